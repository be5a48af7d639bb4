#include "capture/capture_check.h"

#include "casebook/loader.h"
#include "casebook/op_catalog.h"
#include "casebook/ops.h"
#include "casebook/shape_text.h"
#include "ops/names.h"
#include "tensors/materialise.h"

namespace casebook {
namespace {

// The name the provisional case carries in messages, cut from them: its
// lines are not those of the file that will be written.
const char* const kProvisional = "(captured case)";

std::string without_position(const std::string& message) {
  const std::string prefix = kProvisional;
  if (message.rfind(prefix, 0) != 0) return message;
  const size_t after = message.find(": ", prefix.size());
  return after == std::string::npos ? message : message.substr(after + 2);
}

// The case the capture would write, its values left out: each tensor a
// `fill` of its dtype and shape, which the loader checks as it would the
// written values or fixture (no memory is taken for them).
std::string provisional_text(const CaptureRequest& request) {
  std::string text =
      "casebook: 1\nsummary: capture\nop: \"" + request.op + "\"\n";
  if (!request.args.empty()) {
    text += "args:\n";
    for (const auto& [key, value] : request.args) {
      text += "  " + key + ": " + value + "\n";
    }
  }
  text += "inputs:\n";
  for (const CapturedTensor& captured : request.tensors) {
    const auto dtype = to_dtype(captured.tensor.scalar_type());
    if (!dtype) continue;  // check_request refuses it by name
    text +=
        "  " + captured.name + ": {dtype: " + std::string(dtype_name(*dtype)) +
        ", shape: " + shape_text(captured.tensor.sizes()) +
        ", fill: {full: " + (*dtype == DType::kBool ? "false" : "0") + "}}\n";
  }
  return text;
}

}  // namespace

std::vector<std::string> capture_case_problems(const CaptureRequest& request) {
  std::vector<std::string> problems;
  // A name that is not a plain key is refused by write_capture, with its own
  // message; it would only make the provisional YAML say less.
  auto plain = [](const std::string& name) {
    return !name.empty() && name.find_first_not_of(
                                "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP"
                                "QRSTUVWXYZ0123456789_") == std::string::npos;
  };
  if (request.op.empty() || request.tensors.empty()) return problems;
  for (const CapturedTensor& captured : request.tensors) {
    if (!plain(captured.name)) return problems;
  }
  for (const auto& [key, value] : request.args) {
    if (!plain(key) || value.empty()) return problems;
  }
  const LoadedCase loaded =
      load_case_text(provisional_text(request), kProvisional);
  for (const CaseError& error : loaded.errors) {
    problems.push_back(without_position(error.to_string()));
  }
  if (!loaded.ok()) return problems;
  // A file's inputs stand in the op's argument order (version 1), a
  // capture's in any order: it binds by name only, and what a reading by
  // position would say of them (a swap) is moot.
  const PositionalInputs positional =
      inputs_read_by_position(*loaded.value, default_registry());
  for (const std::string& name : positional.names) {
    problems.push_back("`" + name + "` is no input of `" + request.op +
                       "` (a capture binds each tensor by its name, never by "
                       "its place): name it as one of " +
                       positional.names_taken);
  }
  if (!problems.empty()) return problems;
  for (const std::string& problem :
       resolve_op(*loaded.value, default_registry()).problems) {
    problems.push_back(without_position(problem));
  }
  return problems;
}

}  // namespace casebook
