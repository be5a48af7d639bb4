// Internal: the readers of a case file's sections. Each reports every problem
// it finds to the Reader and fills what it could read.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "casebook/case.h"
#include "model/yaml_reader.h"

namespace casebook::model {

// `inputs.<name>`: one tensor. `case_file` locates the fixtures folder.
std::optional<TensorSpec> read_tensor(Reader& reader, const Entry& entry,
                                      const std::string& path,
                                      const std::filesystem::path& case_file);

// `values` of a tensor of `dtype`; sets shape (inferred, or `given` checked)
// and the values. Returns false after reporting.
bool read_values(Reader& reader, const Entry& entry, const std::string& path,
                 DType dtype, const std::optional<std::vector<int64_t>>& given,
                 TensorSpec& spec);

// `fill` of a tensor of `dtype`.
std::optional<Fill> read_fill(Reader& reader, const Entry& entry,
                              const std::string& path, DType dtype);

// `file` (with `sha256` where given): checks the path and finds the fixture.
void read_fixture(Reader& reader, const Entry& entry, const Entry* sha256,
                  const std::string& path,
                  const std::filesystem::path& case_file, TensorSpec& spec);

// `layout` of a tensor of `rank` dims (nullopt: unknown, an error).
std::optional<Layout> read_layout(Reader& reader, const Entry& entry,
                                  const std::string& path,
                                  std::optional<size_t> rank);

std::map<std::string, ArgValue> read_args(Reader& reader, const Entry& entry);
std::vector<Backend> read_backends(Reader& reader, const Entry& entry);
// Sets case.tolerance and case.equal_nan.
void read_tolerance(Reader& reader, const Entry& entry, Case& out);
// Needs case.op, case.backends and case.reference already read.
void read_expect(Reader& reader, const Entry& entry, Case& out);
Origin read_origin(Reader& reader, const Entry& entry);
// `grad`; needs case.op and case.inputs already read.
void read_grad(Reader& reader, const Entry& entry, Case& out);

}  // namespace casebook::model
