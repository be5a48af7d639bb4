// The Python reproduction (report/python_repro.h). Hand-written: the script is
// a few lines of Python text from a case casebook already holds in memory;
// no library writes PyTorch calls.
#include "report/python_repro.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>

#include "casebook/joined.h"
#include "casebook/number_text.h"
#include "report/carry.h"
#include "tensors/materialise.h"

namespace casebook {
namespace {

// What the script names itself; an input of the same name is renamed.
const std::set<std::string>& reserved_names() {
  static const std::set<std::string> names = {
      "False",   "None",     "True",      "and",      "as",       "assert",
      "async",   "await",    "break",     "class",    "continue", "def",
      "del",     "elif",     "else",      "except",   "finally",  "for",
      "from",    "global",   "if",        "import",   "in",       "is",
      "lambda",  "nonlocal", "not",       "or",       "pass",     "raise",
      "return",  "try",      "while",     "with",     "yield",    "torch",
      "np",      "platform", "device",    "place",    "run",      "result",
      "outputs", "floating", "reference", "expected", "tensor",   "actual",
      "wanted"};
  return names;
}

// A Python identifier for an input name, unique in `taken`.
std::string python_variable(const std::string& name,
                            std::set<std::string>* taken) {
  std::string out;
  for (char c : name) {
    out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  }
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) {
    out = "input_" + out;
  }
  while (reserved_names().count(out) || taken->count(out)) out += '_';
  taken->insert(out);
  return out;
}

// Written as a float ("-0.0", "3.0"): Python reads "-0" as the integer 0,
// which loses the sign of a negative zero.
std::string float_literal(std::string text) {
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

std::string python_number(double value) {
  if (std::isnan(value)) return "float(\"nan\")";
  if (std::isinf(value))
    return value > 0 ? "float(\"inf\")" : "-float(\"inf\")";
  return float_literal(number_text(value));
}

// A value of a dtype narrower than float64 as the shortest text that reads
// back as the same float32 (0.42393154, not 0.4239315390586853); float16
// and bfloat16 values are float32 values, and round back to themselves.
std::string python_number(double value, DType dtype) {
  if (dtype == DType::kFloat64 || dtype == DType::kComplex128 ||
      !std::isfinite(value)) {
    return python_number(value);
  }
  const float narrow = static_cast<float>(value);
  char text[32];
  for (int digits = 1; digits <= 9; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits,
                  static_cast<double>(narrow));
    if (std::strtof(text, nullptr) == narrow) break;
  }
  return float_literal(text);
}

std::string python_string(const std::string& text) {
  std::string out = "\"";
  static const char* const kHex = "0123456789abcdef";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string python_ints(const std::vector<int64_t>& values) {
  return "(" +
         joined(values, ", ",
                [](int64_t value) { return std::to_string(value); }) +
         (values.size() == 1 ? ",)" : ")");
}

std::string torch_dtype(DType dtype) {
  return "torch." + std::string(dtype_name(dtype));
}

// `torch.tensor([...], dtype=...)`: the elements of `values`, row-major.
std::string inline_tensor(const at::Tensor& values, DType dtype) {
  const at::Tensor flat = values.contiguous().reshape({-1});
  const int64_t count = flat.numel();
  std::vector<std::string> elements;
  elements.reserve(static_cast<size_t>(count));
  if (is_complex(dtype)) {
    const at::Tensor parts =
        at::view_as_real(flat.to(at::kComplexDouble)).contiguous();
    const double* data = parts.data_ptr<double>();
    for (int64_t i = 0; i < count; ++i) {
      elements.push_back("complex(" + python_number(data[2 * i], dtype) + ", " +
                         python_number(data[2 * i + 1], dtype) + ")");
    }
  } else if (is_floating(dtype)) {
    const at::Tensor wide = flat.to(at::kDouble).contiguous();
    const double* data = wide.data_ptr<double>();
    for (int64_t i = 0; i < count; ++i) {
      elements.push_back(python_number(data[i], dtype));
    }
  } else {
    const at::Tensor wide = flat.to(at::kLong).contiguous();
    const int64_t* data = wide.data_ptr<int64_t>();
    for (int64_t i = 0; i < count; ++i) {
      elements.push_back(dtype == DType::kBool
                             ? std::string(data[i] ? "True" : "False")
                             : std::to_string(data[i]));
    }
  }
  return "torch.tensor([" + joined(elements) +
         "], dtype=" + torch_dtype(dtype) + ")";
}

// The layout is the default one: the values alone make the tensor.
bool plain_layout(const MaterialisedTensor& made) {
  return made.view.is_contiguous() && made.view.storage_offset() == 0 &&
         made.storage.numel() == made.view.numel();
}

struct PythonTensor {
  std::string variable;
  std::string definition;  // "x = torch.tensor(...)": on the CPU
  std::string view;        // after placing: ".as_strided(...)" or empty
};

// One input, rebuilt on the CPU: inline values, the carried .npy fixture, or
// a .npy of its own in `files`. A strided layout keeps its whole storage
// (the skipped elements too) and is viewed again after placing, as casebook
// places it.
PythonTensor python_tensor(const TensorSpec& spec, const std::string& variable,
                           std::vector<PythonInputFile>* files) {
  PythonTensor tensor;
  tensor.variable = variable;
  const MaterialisedTensor made = materialise(spec);
  const bool plain = plain_layout(made);
  const at::Tensor base = plain ? made.view.contiguous() : made.storage;
  const std::string reshape =
      plain ? ".reshape(" + python_ints(made.view.sizes().vec()) + ")" : "";
  if (!plain) {
    tensor.view = ".as_strided(" + python_ints(made.view.sizes().vec()) + ", " +
                  python_ints(made.view.strides().vec()) + ", " +
                  std::to_string(made.view.storage_offset()) + ")";
  }
  const std::string file = spec.file.substr(0, spec.file.find('#'));
  std::string expression;
  if (static_cast<uint64_t>(base.numel()) <= kInlineFixtureElements) {
    expression = inline_tensor(base, spec.dtype);
  } else if (plain && spec.source == TensorSpec::Source::kFile &&
             spec.file.find('#') == std::string::npos && file.size() > 4 &&
             file.substr(file.size() - 4) == ".npy" &&
             spec.dtype != DType::kBFloat16) {
    expression = "torch.from_numpy(np.load(" +
                 python_string("fixtures/" + file) + ")).to(" +
                 torch_dtype(spec.dtype) + ")";
  } else {
    // NumPy has no bfloat16: its values travel as float32, exactly.
    PythonInputFile written;
    written.file = "inputs/" + variable + ".npy";
    written.values = spec.dtype == DType::kBFloat16 ? base.to(at::kFloat)
                                                    : base.contiguous();
    files->push_back(written);
    expression = "torch.from_numpy(np.load(" + python_string(written.file) +
                 ")).to(" + torch_dtype(spec.dtype) + ")";
  }
  tensor.definition = variable + " = " + expression + reshape;
  return tensor;
}

// "Type name=default" of each argument of a schema's text.
std::map<std::string, std::string> schema_types(const std::string& schema) {
  std::map<std::string, std::string> types;
  const size_t open = schema.find('(');
  const size_t close = schema.rfind(") ->");
  if (open == std::string::npos || close == std::string::npos) return types;
  int depth = 0;
  std::string part;
  const auto take = [&] {
    std::string text = part.substr(0, part.find('='));
    while (!text.empty() && text.back() == ' ') text.pop_back();
    const size_t space = text.rfind(' ');
    if (space != std::string::npos) {
      const size_t start = text.find_first_not_of(' ');
      types[text.substr(space + 1)] = text.substr(start, space - start);
    }
    part.clear();
  };
  for (size_t at = open + 1; at < close; ++at) {
    const char c = schema[at];
    if (c == '(' || c == '[') ++depth;
    if (c == ')' || c == ']') --depth;
    if (c == ',' && depth == 0) {
      take();
    } else {
      part += c;
    }
  }
  take();
  return types;
}

std::string python_value(const ArgValue& value, const std::string& type) {
  switch (value.kind) {
    case ArgValue::Kind::kNull:
      return "None";
    case ArgValue::Kind::kBool:
      return value.bool_value ? "True" : "False";
    case ArgValue::Kind::kInt:
      return std::to_string(value.int_value);
    case ArgValue::Kind::kFloat:
      return python_number(value.float_value);
    case ArgValue::Kind::kString: {
      // PyTorch's Python takes torch.float32, torch.strided,
      // torch.channels_last, not their names.
      const bool typed = type.rfind("ScalarType", 0) == 0 ||
                         type.rfind("Layout", 0) == 0 ||
                         type.rfind("MemoryFormat", 0) == 0;
      if (typed && !value.string_value.empty() &&
          value.string_value.find_first_not_of(
              "abcdefghijklmnopqrstuvwxyz0123456789_") == std::string::npos) {
        return "torch." + value.string_value;
      }
      return python_string(value.string_value);
    }
    case ArgValue::Kind::kList: {
      return "[" +
             joined(value.list, ", ",
                    [&type](const ArgValue& item) {
                      return python_value(item, type);
                    }) +
             "]";
    }
    case ArgValue::Kind::kGenerator:
      return "torch.Generator(device=device).manual_seed(" +
             std::to_string(value.int_value) + ")";
  }
  return "None";
}

// How PyTorch's Python spells a case's op, and the name each of its inputs
// is passed as; empty `function` with `why_not` where it has no call.
struct PythonCall {
  std::string function;
  std::vector<std::string> parameters;  // one per case input
  std::map<std::string, std::string> arg_types;
  std::string why_not;
};

// casebook's own torch.* ops: the Python functions they follow.
PythonCall registered_call(const Case& kase, const OpDef& op) {
  static const std::map<std::string, std::string> functions = {
      {"torch.cross_entropy", "torch.nn.functional.cross_entropy"},
      {"torch.nll_loss", "torch.nn.functional.nll_loss"},
      {"torch.embedding", "torch.nn.functional.embedding"},
      {"torch.sum", "torch.sum"}};
  PythonCall call;
  const auto found = functions.find(op.name);
  if (found == functions.end()) {
    call.why_not = "`" + op.name +
                   "` is casebook's own op, which PyTorch has no call for; "
                   "the inputs above are what it ran on";
    return call;
  }
  call.function = found->second;
  std::vector<std::string> names = op.inputs;
  names.insert(names.end(), op.optional_inputs.begin(),
               op.optional_inputs.end());
  for (size_t i = 0; i < kase.inputs.size(); ++i) {
    const std::string& given = kase.inputs[i].name;
    std::string name =
        std::find(names.begin(), names.end(), given) != names.end()
            ? given
            : (i < names.size() ? names[i] : given);
    // F.embedding(input, weight): the indices are its `input`.
    if (op.name == "torch.embedding" && name == "indices") name = "input";
    call.parameters.push_back(name);
  }
  if (op.name == "torch.sum") call.arg_types["dtype"] = "ScalarType?";
  return call;
}

// An ATen operator bound by its schema: `torch.<name>` as Python's function
// (whose `input` is the schema's `self`), `aten::` as torch.ops.aten.
PythonCall dispatcher_call(const Case& kase, const OpDef& op) {
  PythonCall call;
  call.arg_types = schema_types(op.schema);
  const bool aten = kase.op.rfind("aten::", 0) == 0;
  if (aten) {
    std::string name = op.schema.substr(0, op.schema.find('('));
    name = name.substr(name.find("::") + 2);
    if (name.find('.') == std::string::npos) name += ".default";
    call.function = "torch.ops.aten." + name;
  } else {
    call.function = kase.op;
  }
  for (const std::string& argument : op.input_arguments) {
    call.parameters.push_back(!aten && argument == "self" ? "input" : argument);
  }
  return call;
}

PythonCall python_call(const Case& kase, const OpDef* op) {
  PythonCall call;
  if (!kase.steps.empty()) {
    call.why_not =
        "a case of `steps` calls several ops; the inputs above are what its "
        "first step reads";
  } else if (op == nullptr) {
    call.why_not = "`" + kase.op + "` does not resolve here";
  } else if (!op->input_arguments.empty() || !op->schema.empty()) {
    call = dispatcher_call(kase, *op);
  } else {
    call = registered_call(kase, *op);
  }
  return call;
}

// run(device, floating): the call, each input placed on `device` (floating
// inputs as `floating` where given: the cpu64 reference).
std::string run_function(const Case& kase, const PythonCall& call,
                         const std::vector<PythonTensor>& tensors) {
  std::vector<std::string> arguments;
  std::map<std::string, std::vector<std::string>> grouped;  // Tensor[]
  std::vector<std::string> order;
  for (size_t i = 0; i < tensors.size() && i < call.parameters.size(); ++i) {
    const std::string placed = "place(" + tensors[i].variable +
                               ", device, floating)" + tensors[i].view;
    const std::string& name = call.parameters[i];
    if (!grouped.count(name)) order.push_back(name);
    grouped[name].push_back(placed);
  }
  for (const std::string& name : order) {
    const std::vector<std::string>& placed = grouped[name];
    std::string value = placed.front();
    if (placed.size() > 1) value = "[" + joined(placed) + "]";
    // torch.ops' OpOverload.__call__ has a `self` of its own: the schema's
    // `self`, always its first argument, goes first by position.
    if (name == "self") {
      arguments.insert(arguments.begin(), value);
    } else {
      arguments.push_back(name + "=" + value);
    }
  }
  for (const auto& [name, value] : kase.args) {
    const auto type = call.arg_types.find(name);
    arguments.push_back(
        name + "=" +
        python_value(value, type == call.arg_types.end() ? "" : type->second));
  }
  std::string text =
      "def run(device, floating=None):\n    return " + call.function + "(";
  for (size_t i = 0; i < arguments.size(); ++i) {
    text += std::string(i ? "," : "") + "\n        " + arguments[i];
  }
  return text + ")\n";
}

std::string tolerance_arguments(const Tolerance& tolerance) {
  return ", rtol=" + python_number(tolerance.rtol) +
         ", atol=" + python_number(tolerance.atol) +
         ", equal_nan=" + (tolerance.equal_nan ? "True" : "False");
}

// The checks the case makes of a run that returns: its expected values
// (written inline), and the CPU reference of a GPU run (or the cpu64 one).
std::string checks(const Case& kase, const OpDef* op, Backend backend) {
  std::string text;
  for (const OutputExpectation& entry : kase.outputs_for(backend)) {
    if (!entry.index || !entry.values ||
        entry.values->source != TensorSpec::Source::kValues) {
      continue;
    }
    const TensorSpec& values = *entry.values;
    at::Tensor wanted;
    try {
      wanted = read_only_values(values);
    } catch (const std::exception&) {
      continue;  // the run's own check says why
    }
    const Tolerance tolerance =
        tolerance_in_force(kase.tolerance_rule(), &entry, values.dtype);
    text += "expected = " + inline_tensor(wanted, values.dtype) + ".reshape(" +
            python_ints(values.shape) + ")\n" +
            "torch.testing.assert_close(outputs[" +
            std::to_string(*entry.index) + "].cpu(), expected" +
            tolerance_arguments(tolerance) + ")\n";
  }
  const bool random = op != nullptr && op->random;
  std::string reference;
  if (kase.reference == Case::Reference::kCpu64 && !random) {
    reference = "run(\"cpu\", torch.float64)";
  } else if (kase.reference == Case::Reference::kCpu && is_gpu(backend) &&
             !random) {
    reference = "run(\"cpu\")";
  }
  if (reference.empty()) return text;
  const std::string rule =
      kase.tolerance ? tolerance_arguments(kase.tolerance_for(DType::kFloat32))
                     : std::string();
  return text + "reference = " + reference +
         "\nreference = reference if isinstance(reference, (tuple, list)) "
         "else (reference,)\n"
         "for actual, wanted in zip(outputs, reference):\n"
         "    torch.testing.assert_close(actual.cpu(), "
         "wanted.to(actual.dtype)" +
         rule + ")\n";
}

const char kPlace[] =
    "def place(tensor, device, floating=None):\n"
    "    if floating is not None and tensor.is_floating_point():\n"
    "        tensor = tensor.to(floating)\n"
    "    return tensor.to(device)\n";

std::string header(const Case& kase, Backend backend, const std::string& seen,
                   const PythonCall& call) {
  std::string text = "# casebook case `" + kase.id + "` on " +
                     std::string(backend_name(backend)) + ", as PyTorch code";
  text += call.function.empty() ? ".\n" : ": " + call.function + ".\n";
  if (!seen.empty()) text += "# casebook's run: " + seen + "\n";
  text +=
      "# It needs PyTorch (and NumPy for .npy inputs), not casebook: run it "
      "in the\n# folder `casebook report CASE --bundle DIR` writes.\n"
      "import platform\n\n";
  return text;
}

}  // namespace

PythonReproduction python_reproduction(const Case& kase, const OpDef* op,
                                       Backend backend,
                                       const std::string& seen) {
  PythonReproduction made;
  std::set<std::string> taken;
  std::vector<PythonTensor> tensors;
  std::string definitions;
  PythonCall call = python_call(kase, op);
  for (const TensorSpec& spec : kase.inputs) {
    const std::string variable = python_variable(spec.name, &taken);
    try {
      tensors.push_back(python_tensor(spec, variable, &made.files));
      definitions += tensors.back().definition + "\n";
    } catch (const std::exception& error) {
      definitions += "# `" + spec.name + "` cannot be made here: " +
                     std::string(error.what()).substr(0, 400) + "\n";
      call.why_not = "an input cannot be made here";
      call.function.clear();
    }
  }
  std::string& script = made.script;
  script = header(kase, backend, seen, call);
  if (!made.files.empty() || definitions.find("np.load") != std::string::npos) {
    script += "import numpy as np\n";
  }
  script +=
      "import torch\n\n"
      "print(\"PyTorch\", torch.__version__, \"| CUDA\", torch.version.cuda,\n"
      "      \"| ROCm\", getattr(torch.version, \"hip\", None),\n"
      "      \"| Python\", platform.python_version(), \"|\", "
      "platform.platform())\n\n";
  // ROCm's PyTorch calls a HIP device `cuda`.
  script += std::string("device = \"") + (is_gpu(backend) ? "cuda" : "cpu") +
            "\"\n\n" + definitions + "\n";
  if (!call.why_not.empty()) {
    script += "# Not called: " + call.why_not + ".\n";
    return made;
  }
  script += "\n" + std::string(kPlace) + "\n\n" +
            run_function(kase, call, tensors) +
            "\n\nresult = run(device)\n"
            "outputs = result if isinstance(result, (tuple, list)) else "
            "(result,)\n"
            "print(result)\n";
  script += checks(kase, op, backend);
  return made;
}

}  // namespace casebook
