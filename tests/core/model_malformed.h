// Shared by the tables of malformed case files: model_errors*_test.cpp and
// the model_*_test.cpp file of each feature.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "casebook/loader.h"

namespace casebook::testing_malformed {

struct Malformed {
  const char* name;
  std::string text;
  std::vector<std::string> expected;
};

// Lines 1-4 of a valid case; line 5 is the input `x` (its text starts at
// column 6), or a valid one followed by `extra` from line 6 on.
inline const char* const kHead =
    "casebook: 1\nsummary: s\nop: torch.add\ninputs:\n  x: ";
inline std::string with_input(const std::string& tensor) {
  return kHead + tensor + "\n";
}
inline std::string with_extra(const std::string& extra) {
  return with_input("{dtype: float32, values: [1, 2]}") + extra;
}

inline const std::string kDtypes =
    "bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, "
    "float64, complex64, complex128";
inline const std::string kFamilies =
    "index_out_of_range, device_assert, illegal_address, out_of_memory, "
    "op_unavailable, device_mismatch, contract, label_mapping, mismatch, "
    "nan_or_inf, skipped_entries, timeout, crash, invalid_case";

// The messages of every error `text` gives, named cases/bad.yaml.
inline std::vector<std::string> messages_of(const std::string& text) {
  const LoadedCase loaded = load_case_text(text, "cases/bad.yaml");
  std::vector<std::string> messages;
  for (const CaseError& error : loaded.errors) {
    messages.push_back(error.to_string());
  }
  if (loaded.value.has_value()) messages.push_back("(a value was returned)");
  return messages;
}

// As many messages as expected, each starting with its expected text (what
// follows may be another library's wording: a regular expression's error).
inline void expect_messages_start_with(const Malformed& malformed) {
  const std::vector<std::string> got = messages_of(malformed.text);
  ASSERT_EQ(got.size(), malformed.expected.size())
      << ::testing::PrintToString(got);
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].substr(0, malformed.expected[i].size()),
              malformed.expected[i]);
  }
}

// The test's name: the table entry's.
inline std::string name_of(const ::testing::TestParamInfo<Malformed>& info) {
  return info.param.name;
}

}  // namespace casebook::testing_malformed
