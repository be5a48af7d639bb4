// A case's `args`, built in tests that call ops directly. Each value sits at
// `where` (errors name it), by default cases/test.yaml, line 4, column 9.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "casebook/case.h"

namespace casebook::testing_support {

inline SourceLocation arg_line(int line) {
  return {"cases/test.yaml", line, 9};
}

inline ArgValue arg_of(ArgValue::Kind kind, const SourceLocation& where) {
  ArgValue arg;
  arg.kind = kind;
  arg.where = where;
  return arg;
}

inline ArgValue int_arg(int64_t value,
                        const SourceLocation& where = arg_line(4)) {
  ArgValue arg = arg_of(ArgValue::Kind::kInt, where);
  arg.int_value = value;
  return arg;
}

inline ArgValue float_arg(double value,
                          const SourceLocation& where = arg_line(4)) {
  ArgValue arg = arg_of(ArgValue::Kind::kFloat, where);
  arg.float_value = value;
  return arg;
}

inline ArgValue bool_arg(bool value,
                         const SourceLocation& where = arg_line(4)) {
  ArgValue arg = arg_of(ArgValue::Kind::kBool, where);
  arg.bool_value = value;
  return arg;
}

inline ArgValue string_arg(const std::string& value,
                           const SourceLocation& where = arg_line(4)) {
  ArgValue arg = arg_of(ArgValue::Kind::kString, where);
  arg.string_value = value;
  return arg;
}

inline ArgValue list_arg(const std::vector<int64_t>& values,
                         const SourceLocation& where = arg_line(4)) {
  ArgValue arg = arg_of(ArgValue::Kind::kList, where);
  for (int64_t value : values) arg.list.push_back(int_arg(value, where));
  return arg;
}

inline ArgValue names_arg(const std::vector<std::string>& names,
                          const SourceLocation& where = arg_line(4)) {
  ArgValue arg = arg_of(ArgValue::Kind::kList, where);
  for (const std::string& name : names)
    arg.list.push_back(string_arg(name, where));
  return arg;
}

}  // namespace casebook::testing_support
