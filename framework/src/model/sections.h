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

// The whole document of a case file (model/case_reader.cpp): `out` is
// complete where the reader holds no errors. `placeholders`: the key paths
// of the `TODO`s a skeleton left.
void read_case(Reader& reader, const YAML::Node& root, Case& out,
               std::vector<std::string>* placeholders);

// `inputs.<name>`: one tensor. `case_file` locates the fixtures folder.
std::optional<TensorSpec> read_tensor(Reader& reader, const Entry& entry,
                                      const std::string& path,
                                      const std::filesystem::path& case_file);

// How read_tensor reads a tensor that is one part of a larger map (an
// expected output): `extra` keys are accepted and handed back in `*extras`
// (file order), and values, fill and file may all be absent (then nullopt
// is returned without an error, and `*has_source` is false).
struct TensorKeys {
  std::vector<std::string> extra;
  bool source_optional = false;
  // Expected outputs: their values are compared within a tolerance, so a
  // value the dtype cannot hold exactly (0.24472847 pasted from Python for
  // a float32 output) is its nearest value, as with `rounding: nearest`.
  bool values_round_to_nearest = false;
};
std::optional<TensorSpec> read_tensor(Reader& reader, const Entry& entry,
                                      const std::string& path,
                                      const std::filesystem::path& case_file,
                                      const TensorKeys& keys,
                                      std::vector<Entry>* extras,
                                      bool* has_source);

// `values` a floating dtype cannot hold exactly (70000 in float16, 1024.5
// in bfloat16): the value it would become, else nullopt. A decimal that is
// the shortest spelling of a value of the dtype (0.1 for float32) is held.
std::optional<double> inexact_in(DType dtype, double value);

// The shortest decimal that rounds to `value` in floating `dtype` (0.3333
// for the float16 nearest 1/3): how a person writes a value of that dtype
// (model/float_formats.cpp, with inexact_in).
std::string dtype_number_text(DType dtype, double value);

// Why a finite `written` value cannot be one of floating `dtype`: it lies
// beyond the dtype's largest finite value (70000 in float16), so it would
// become an infinity the author did not write; empty when it fits. Such a
// value is refused at its line unless the tensor rounds to nearest (issue
// 36): `rounding: nearest` does not help it, so the message does not offer it.
std::string beyond_range(DType dtype, double value, const std::string& written);

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

// `args` (at key path `path`: "args", "steps[1].args").
std::map<std::string, ArgValue> read_args(Reader& reader, const Entry& entry,
                                          const std::string& path = "args");
std::vector<Backend> read_backends(Reader& reader, const Entry& entry);
// Sets case.tolerance and case.equal_nan.
void read_tolerance(Reader& reader, const Entry& entry, Case& out);
// A `tolerance` map at key path `at`: rtol and atol (both or neither) into
// `*tolerance`, `equal_nan` where written into `*equal_nan`.
void read_tolerance_at(Reader& reader, const Entry& entry,
                       const std::string& at,
                       std::optional<Tolerance>* tolerance,
                       std::optional<bool>* equal_nan);
// `outputs` (top level or inside an expectation): index or name -> what the
// output must be.
std::vector<OutputExpectation> read_outputs(
    Reader& reader, const Entry& entry, const std::string& path,
    const std::filesystem::path& case_file);
// `when`: conditions on the run's environment; an unknown fact is an error.
// `backend`: whose expectation the entry is (a device fact, `capability` or
// `gfx`, is refused under another backend).
std::vector<Condition> read_when(Reader& reader, const Entry& entry,
                                 const std::string& path, Backend backend);
// Needs case.op, case.backends and case.reference already read.
void read_expect(Reader& reader, const Entry& entry, Case& out);
Origin read_origin(Reader& reader, const Entry& entry);
// `grad`; needs case.op and case.inputs already read.
void read_grad(Reader& reader, const Entry& entry, Case& out);
// `neighbors`: the rules and their parameters; needs case.inputs and
// case.backends already read. Whether each rule applies is checked apart
// (declared_neighbors), once the whole case is read.
void read_neighbors(Reader& reader, const Entry& entry, Case& out);
// `steps` (model/steps_reader.cpp): sets steps and op (their ops' names);
// checks each source against the case's inputs and earlier steps. Call
// after `inputs` is read.
void read_steps(Reader& reader, const Entry& entry, Case& out);
// The earlier steps' outputs that `outputs` keys name (`logp.0`), into
// step_outputs. Call after `steps` and `outputs` are read.
void read_step_outputs(Reader& reader, Case& out);

}  // namespace casebook::model
