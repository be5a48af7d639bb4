// The one list of error families: the closed set a case's `error:` names and
// every verdict's family is said in (docs/case-format.md, "Error
// families"; schema/case.schema.json). An
// X-macro, as the verdicts are (casebook/verdict_list.h): family.h's
// `enum class Family` is generated from it, and so is the one table that
// family_name, parse_family and all_families (casebook/family.h) read. What
// each family means and what to check first is its advice row
// (diagnosis/advice.cpp), which a static_assert keeps one per family.
//
// Each row is X(enumerator, name):
//   enumerator  the Family's enumerator (Family::kDeviceAssert);
//   name        how case files, lines, JUnit types and reports spell it, and
//               what `casebook explain` takes.
//
// Order is the documentation's, which all_families() and every "expected
// one of" message follow: a new family is one row, placed where
// docs/case-format.md and the schema list it. Family::kNone (no error) is no
// row: no case names it.
#pragma once

// clang-format off
#define CASEBOOK_FOR_EACH_FAMILY(X)                                           \
  X(kIndexOutOfRange, "index_out_of_range")                                   \
  X(kDeviceAssert,    "device_assert")                                        \
  X(kIllegalAddress,  "illegal_address")                                      \
  X(kOutOfMemory,     "out_of_memory")                                        \
  X(kOpUnavailable,   "op_unavailable")                                       \
  X(kDeviceMismatch,  "device_mismatch")                                      \
  X(kContract,        "contract")                                             \
  /* validate.class_mapping: not a bijection onto `classes` */                \
  X(kLabelMapping,    "label_mapping")                                        \
  X(kMismatch,        "mismatch")                                             \
  X(kNanOrInf,        "nan_or_inf")                                           \
  /* fewer entries processed than the case says (`processed`) */              \
  X(kSkippedEntries,  "skipped_entries")                                      \
  X(kTimeout,         "timeout")                                              \
  X(kCrash,           "crash")                                                \
  X(kInvalidCase,     "invalid_case")
// clang-format on
