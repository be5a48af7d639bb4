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
#include <optional>
#include <set>
#include <sstream>

#include "casebook/joined.h"
#include "casebook/number_text.h"
#include "casebook/quoted.h"
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
  // An alias (`same_as`): the index of its target, whose placed tensor it is.
  std::optional<size_t> alias_of;
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
                 double_quoted("fixtures/" + file) + ")).to(" +
                 torch_dtype(spec.dtype) + ")";
  } else {
    // NumPy has no bfloat16: its values travel as float32, exactly.
    PythonInputFile written;
    written.file = "inputs/" + variable + ".npy";
    written.values = spec.dtype == DType::kBFloat16 ? base.to(at::kFloat)
                                                    : base.contiguous();
    files->push_back(written);
    expression = "torch.from_numpy(np.load(" + double_quoted(written.file) +
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
      return double_quoted(value.string_value);
    }
    case ArgValue::Kind::kList: {
      // A complex Scalar, written [real, imaginary] (ops/aten_values.cpp).
      const bool optional = !type.empty() && type.back() == '?';
      const std::string base =
          optional ? type.substr(0, type.size() - 1) : type;
      if (base == "Scalar" && value.list.size() == 2) {
        return "complex(" + python_value(value.list[0], "") + ", " +
               python_value(value.list[1], "") + ")";
      }
      const std::string item_type = base == "Scalar[]" ? "Scalar" : type;
      return "[" +
             joined(value.list, ", ",
                    [&item_type](const ArgValue& item) {
                      return python_value(item, item_type);
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
        i < op.input_arguments.size() ? op.input_arguments[i]
        : std::find(names.begin(), names.end(), given) != names.end()
            ? given
            : (i < names.size() ? names[i] : given);
    // F.embedding(input, weight): the indices are its `input`.
    if (op.name == "torch.embedding" && name == "indices") name = "input";
    call.parameters.push_back(name);
  }
  if (op.name == "torch.sum") call.arg_types["dtype"] = "ScalarType?";
  return call;
}

// The public Python function of a `torch.<name>` op: torch.<name>, except
// for the names PyTorch's Python keeps in torch.nn.functional only (its
// losses and activations of torch._C._nn) and the in-place ops, which are
// methods of the tensor.
std::string public_function(const std::string& op) {
  static const std::set<std::string> functional = {"binary_cross_entropy",
                                                   "cross_entropy",
                                                   "elu",
                                                   "gelu",
                                                   "glu",
                                                   "hardsigmoid",
                                                   "hardswish",
                                                   "hardtanh",
                                                   "huber_loss",
                                                   "l1_loss",
                                                   "leaky_relu",
                                                   "linear",
                                                   "mish",
                                                   "mse_loss",
                                                   "multi_margin_loss",
                                                   "multilabel_margin_loss",
                                                   "nll_loss",
                                                   "one_hot",
                                                   "silu",
                                                   "smooth_l1_loss",
                                                   "soft_margin_loss",
                                                   "softplus",
                                                   "softshrink"};
  const std::string name = op.substr(op.find('.') + 1);
  if (functional.count(name)) return "torch.nn.functional." + name;
  if (!name.empty() && name.back() == '_' && name.find("__") != 0) {
    return "torch.Tensor." + name;
  }
  return op;
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
    call.function = public_function(kase.op);
  }
  // A method (torch.Tensor.add_) takes its `self` by position, as
  // torch.ops' overloads do.
  const bool method = call.function.rfind("torch.Tensor.", 0) == 0;
  for (const std::string& argument : op.input_arguments) {
    call.parameters.push_back(
        !aten && !method && argument == "self" ? "input" : argument);
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
  } else if (op->schema.empty()) {
    // casebook's registered ops, bound in any order (input_arguments then
    // says which argument each input is): their Python functions.
    call = registered_call(kase, *op);
  } else {
    call = dispatcher_call(kase, *op);
  }
  return call;
}

// Each input's argument in run(): placed on `device` (floating inputs as
// `floating`: the cpu64 reference), its view again; a tensor an alias
// shares is placed once, into a variable of run()'s whose assignment is
// appended to `shared`, and that variable is both arguments.
std::vector<std::string> placed_arguments(
    const Case& kase, const std::vector<PythonTensor>& tensors,
    std::set<std::string>* taken, std::string* shared) {
  std::vector<std::string> placed;
  for (const PythonTensor& tensor : tensors) {
    std::string each =
        "place(" + tensor.variable + ", device, floating)" + tensor.view;
    // casebook's cpu64 reference computes from contiguous inputs (case.h).
    if (!tensor.view.empty() && kase.reference == Case::Reference::kCpu64 &&
        !kase.reference_keeps_layout) {
      each = "as_reference(" + each + ", floating)";
    }
    placed.push_back(each);
  }
  std::map<size_t, std::string> once;
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (!tensors[i].alias_of) continue;
    const size_t target = *tensors[i].alias_of;
    if (!once.count(target)) {
      once[target] =
          python_variable(tensors[target].variable + "_placed", taken);
      *shared += "    " + once[target] + " = " + placed[target] + "\n";
    }
    placed[i] = placed[target] = once[target];
  }
  return placed;
}

// run(device, floating): the call, each input placed on `device` (floating
// inputs as `floating` where given: the cpu64 reference).
std::string run_function(const Case& kase, const PythonCall& call,
                         const std::vector<PythonTensor>& tensors,
                         std::set<std::string>* taken) {
  std::string shared;
  const std::vector<std::string> placed =
      placed_arguments(kase, tensors, taken, &shared);
  std::vector<std::string> arguments;
  // A Tensor[] argument's elements (`tensors[1]`) by position; an element
  // not given is None (`indices[0]` of aten::index).
  std::map<std::string, std::map<size_t, std::string>> grouped;
  std::set<std::string> lists;
  std::vector<std::string> order;
  for (size_t i = 0; i < tensors.size() && i < call.parameters.size(); ++i) {
    const std::string& parameter = call.parameters[i];
    const size_t bracket = parameter.find('[');
    const std::string name = parameter.substr(0, bracket);
    if (!grouped.count(name)) order.push_back(name);
    std::map<size_t, std::string>& elements = grouped[name];
    size_t position = elements.size();
    if (bracket != std::string::npos) {
      lists.insert(name);
      position = std::strtoul(parameter.c_str() + bracket + 1, nullptr, 10);
    }
    elements[position] = placed[i];
  }
  for (const std::string& name : order) {
    const std::map<size_t, std::string>& elements = grouped[name];
    std::string value = elements.begin()->second;
    if (elements.size() > 1 || lists.count(name)) {
      std::vector<std::string> items(elements.rbegin()->first + 1, "None");
      for (const auto& [position, placed] : elements) items[position] = placed;
      value = "[" + joined(items) + "]";
    }
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
  std::string text = "def run(device, floating=None):\n" + shared +
                     "    return " + call.function + "(";
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

std::string python_bound(const std::optional<double>& bound) {
  return bound ? python_number(*bound) : std::string("None");
}

// The properties an output entry states, each a check() of `out` (the
// output on the CPU), in the words casebook's failure uses.
std::string property_checks(const OutputExpectation& entry,
                            const std::string& label) {
  std::string text;
  const auto check = [&](const std::string& held, const std::string& what) {
    text += "check(" + held + ", " + double_quoted(label + ": " + what) + ")\n";
  };
  if (entry.shape) {
    check("tuple(out.shape) == " + python_ints(*entry.shape),
          "shape differs from " + python_ints(*entry.shape));
  }
  if (entry.dtype) {
    check("out.dtype == " + torch_dtype(*entry.dtype),
          "dtype differs from " + std::string(dtype_name(*entry.dtype)));
  }
  if (entry.finite) {
    check("not floating(out) or bool(torch.isfinite(out).all())",
          "not finite (`finite: true`)");
  }
  if (entry.all_nan) {
    check("floating(out) and bool(torch.isnan(out).all())",
          "expected NaN everywhere (`nan: true`)");
  }
  if (entry.nan_positions) {
    std::vector<std::string> positions;
    for (const std::vector<int64_t>& each : *entry.nan_positions) {
      positions.push_back(
          "[" +
          joined(each, ", ", [](int64_t at) { return std::to_string(at); }) +
          "]");
    }
    check("nan_exactly_at(out, [" + joined(positions) + "])",
          "NaN elsewhere than the case's `nan` positions");
  }
  if (entry.min) {
    check("bool((out >= " + python_number(*entry.min) + ").all())",
          "below `min`");
  }
  if (entry.max) {
    check("bool((out <= " + python_number(*entry.max) + ").all())",
          "above `max`");
  }
  for (const auto& [name, bounds] :
       {std::pair{"mean", entry.mean_bounds}, {"std", entry.std_bounds}}) {
    if (!bounds) continue;
    check(std::string("within(out.double().") + name + "().item(), " +
              python_bound(bounds->min) + ", " + python_bound(bounds->max) +
              ")",
          std::string(name) + " outside its bounds");
  }
  return text;
}

// The position of an output entry's output: its index, or its name among
// the schema's return names (`values`, `indices` of torch.sort); nullopt
// for another (a gradient's, `grad.input`).
std::optional<size_t> output_position(const OutputExpectation& entry,
                                      const OpDef* op) {
  if (entry.index || op == nullptr) return entry.index;
  const size_t arrow = op->schema.rfind("->");
  if (arrow == std::string::npos) return std::nullopt;
  std::string returns = op->schema.substr(arrow + 2);
  for (char& c : returns) {
    if (c == '(' || c == ')') c = ' ';
  }
  std::stringstream list(returns);
  std::string each;
  for (size_t position = 0; std::getline(list, each, ','); ++position) {
    const size_t end = each.find_last_not_of(' ');
    const size_t start = each.find_last_of(' ', end);
    if (end != std::string::npos &&
        each.substr(start + 1, end - start) == entry.key) {
      return position;
    }
  }
  return std::nullopt;
}

// The checks of one output entry (output `position`): its properties, then
// its values (inline, or a .npy in `files`).
std::string entry_checks(const Case& kase, const OutputExpectation& entry,
                         size_t position, std::set<std::string>* taken,
                         std::vector<PythonInputFile>* files) {
  const std::string index = std::to_string(position);
  const std::string label = "output " + entry.key;
  std::string text = "check(len(outputs) > " + index + ", " +
                     double_quoted(label + ": missing") + ")\n" +
                     "if len(outputs) > " + index + ":\n";
  std::string body = "out = outputs[" + index + "].detach().cpu()\n" +
                     property_checks(entry, label);
  if (entry.values) {
    try {
      const PythonTensor expected = python_tensor(
          *entry.values, python_variable("expected_" + index, taken), files);
      const Tolerance tolerance = tolerance_in_force(
          kase.tolerance_rule(), &entry, entry.values->dtype);
      body += expected.definition + expected.view + "\n" + "check_close(out, " +
              expected.variable + ", " + double_quoted(label + ": values") +
              tolerance_arguments(tolerance) + ")\n";
    } catch (const std::exception&) {
      body += "# its expected values cannot be made here\n";
    }
  }
  for (size_t at = 0; at < body.size();) {
    const size_t end = body.find('\n', at);
    text += "    " + body.substr(at, end + 1 - at);
    at = end + 1;
  }
  return text;
}

// The checks the case makes of a run that returns: each output entry's
// properties and values, and the CPU reference of a GPU run (or the cpu64
// one). An entry of a named output (a gradient) is said, not checked.
std::string checks(const Case& kase, const OpDef* op, Backend backend,
                   std::set<std::string>* taken,
                   std::vector<PythonInputFile>* files) {
  std::string text;
  for (const OutputExpectation& entry : kase.outputs_for(backend)) {
    const std::optional<size_t> position = output_position(entry, op);
    if (!position) {
      text += "# Not checked here: `outputs." + entry.key +
              "` (casebook checks it; PyTorch's call returns no such "
              "output).\n";
      continue;
    }
    text += entry_checks(kase, entry, *position, taken, files);
  }
  if (kase.grad) {
    text +=
        "# Not checked here: the gradients (`grad`), which casebook "
        "checks.\n";
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
         "for index, (actual, wanted) in enumerate(zip(outputs, "
         "reference)):\n"
         "    check_close(actual.detach().cpu(), "
         "wanted.detach().to(actual.dtype).cpu(), f\"output {index} against "
         "the reference\"" +
         rule + ")\n";
}

// A Python test that `error` is of `family` (diagnosis/classify.cpp's table,
// in its main words): the exception's type, else its text.
std::string family_test(Family family) {
  switch (family) {
    case Family::kIndexOutOfRange:
      return "isinstance(error, IndexError) or \"out of bounds\" in text or "
             "\"out of range\" in text or \"not in the valid range\" in text";
    case Family::kDeviceAssert:
      return "\"device-side assert\" in text";
    case Family::kIllegalAddress:
      return "\"illegal memory access\" in text or \"launch failure\" in text";
    case Family::kOutOfMemory:
      return "\"out of memory\" in text";
    case Family::kOpUnavailable:
      return "isinstance(error, NotImplementedError) or \"not implemented\" "
             "in text";
    case Family::kDeviceMismatch:
      return "\"device\" in text";
    case Family::kContract:
    case Family::kLabelMapping:
      return "isinstance(error, (RuntimeError, ValueError, TypeError, "
             "IndexError, AssertionError))";
    default:
      return "True";
  }
}

// A case that expects an error: the call must raise it (of its family, and
// matching its `message`), as casebook's PASS says it did; raised again, so
// that the script shows it as PyTorch does. Anything else is a failure.
std::string expected_error(const Expectation& expected) {
  const std::string family(family_name(expected.family));
  std::string held = family_test(expected.family);
  if (expected.message) {
    held = "(" + held + ") and re.search(" + double_quoted(*expected.message) +
           ", str(error))";
  }
  return "try:\n"
         "    result = run(device)\n"
         "except Exception as error:\n"
         "    text = str(error).lower()\n"
         "    if " +
         held +
         ":\n"
         "        print(" +
         double_quoted("the call raises the error the case expects (" + family +
                       "), as casebook's run did:") +
         ", flush=True)\n"
         "        raise\n"
         "    print(\"raised\", type(error).__name__ + \":\", error)\n"
         "    check(False, " +
         double_quoted("the error is not " + family +
                       (expected.message ? " matching the case's `message`"
                                         : std::string()) +
                       ", which the case expects") +
         ")\n"
         "else:\n"
         "    print(result)\n"
         "    check(False, " +
         double_quoted("the call returned; the case expects the error " +
                       family) +
         ")\n";
}

// The helpers the checks call; problems are gathered, and the script's end
// says the verdict (exit 1 on any).
const char kCheckHelpers[] =
    "problems = []\n\n\n"
    "def check(held, what):\n"
    "    if not held:\n"
    "        problems.append(what)\n\n\n"
    "def check_close(actual, expected, what, **tolerance):\n"
    "    try:\n"
    "        torch.testing.assert_close(actual, expected, **tolerance)\n"
    "    except AssertionError as error:\n"
    "        problems.append(what + \": \" + \" \".join(str(error).split()))"
    "\n\n\n"
    "def floating(tensor):\n"
    "    return tensor.is_floating_point() or tensor.is_complex()\n\n\n"
    "def within(value, low, high):\n"
    "    return (low is None or value >= low) and (high is None or value <= "
    "high)\n\n\n"
    "def nan_exactly_at(out, positions):\n"
    "    wanted = torch.zeros(out.numel(), dtype=torch.bool)\n"
    "    strides = torch.empty(out.shape).stride()\n"
    "    for at in positions:\n"
    "        flat = at[1] if at[0] == -1 else sum(i * s for i, s in zip(at, "
    "strides))\n"
    "        if not 0 <= flat < out.numel():\n"
    "            return False\n"
    "        wanted[flat] = True\n"
    "    found = out.reshape(-1).isnan() if floating(out) else "
    "torch.zeros_like(wanted)\n"
    "    return torch.equal(found, wanted)\n";

const char kVerdict[] =
    "\nif problems:\n"
    "    print(\"FAIL, as casebook's run:\", *problems, sep=\"\\n  \")\n"
    "    raise SystemExit(1)\n"
    "print(\"PASS: every check casebook makes held\")\n";

const char kPlace[] =
    "def place(tensor, device, floating=None):\n"
    "    # a copy: every run starts from the inputs as made (an out= or\n"
    "    # in-place call writes what it is given)\n"
    "    if floating is not None and tensor.is_floating_point():\n"
    "        tensor = tensor.to(floating)\n"
    "    return tensor.to(device, copy=True)\n\n\n"
    "def as_reference(tensor, floating):\n"
    "    # the float64 reference computes from a contiguous copy\n"
    "    return tensor.contiguous() if floating is not None else tensor\n";

std::string header(const Case& kase, Backend backend, const std::string& seen,
                   const PythonCall& call) {
  std::string text = "# casebook case `" + kase.id + "` on " +
                     std::string(backend_name(backend)) + ", as PyTorch code";
  text += call.function.empty() ? ".\n" : ": " + call.function + ".\n";
  if (!seen.empty()) text += "# casebook's run: " + seen + "\n";
  text +=
      "# It needs PyTorch (and NumPy for .npy inputs), not casebook: run it "
      "in the\n# folder `casebook report CASE --bundle DIR` writes. It checks "
      "what casebook\n# checks and ends as casebook's run did: exit 0 where "
      "every check holds,\n# 1 where one fails; the error a case expects is "
      "raised, after a line saying\n# so; exit " +
      std::to_string(kNoPythonCall) +
      " where PyTorch has no call for the case.\n"
      "import platform\n";
  return text;
}

// The inputs' definitions; an input that cannot be made is said, and the
// call left out.
std::string input_definitions(const Case& kase, PythonCall* call,
                              std::vector<PythonTensor>* tensors,
                              std::set<std::string>* taken,
                              std::vector<PythonInputFile>* files) {
  std::string definitions;
  for (size_t i = 0; i < kase.inputs.size(); ++i) {
    const TensorSpec& spec = kase.inputs[i];
    if (const std::optional<size_t> target = alias_target(kase.inputs, i)) {
      PythonTensor alias;
      alias.alias_of = target;
      tensors->push_back(alias);
      definitions += "# `" + spec.name + "` is `" + spec.same_as +
                     "` itself (`same_as`): one tensor, placed once\n";
      continue;
    }
    const std::string variable = python_variable(spec.name, taken);
    try {
      tensors->push_back(python_tensor(spec, variable, files));
      definitions += tensors->back().definition + "\n";
    } catch (const std::exception& error) {
      definitions += "# `" + spec.name + "` cannot be made here: " +
                     std::string(error.what()).substr(0, 400) + "\n";
      call->why_not = "an input cannot be made here";
      call->function.clear();
    }
  }
  return definitions;
}

// The call and its checks: the expected error, or the outputs' checks.
std::string call_and_checks(const Case& kase, const OpDef* op,
                            const Expectation& expected, Backend backend,
                            std::set<std::string>* taken,
                            std::vector<PythonInputFile>* files) {
  std::string text = "\n\n" + std::string(kCheckHelpers) + "\n\n";
  if (expected.kind == Expectation::Kind::kError) {
    return text + expected_error(expected) + kVerdict;
  }
  text +=
      "result = run(device)\n"
      "outputs = result if isinstance(result, (tuple, list)) else (result,)\n"
      "print(result)\n";
  return text + checks(kase, op, backend, taken, files) + kVerdict;
}

}  // namespace

PythonReproduction python_reproduction(const Case& kase, const OpDef* op,
                                       const Expectation& expected,
                                       Backend backend,
                                       const std::string& seen) {
  PythonReproduction made;
  std::set<std::string> taken;
  std::vector<PythonTensor> tensors;
  PythonCall call = python_call(kase, op);
  if (expected.kind == Expectation::Kind::kSkip) {
    call.why_not = "casebook skips this run (" + expected.reason + ")";
  }
  const std::string definitions =
      input_definitions(kase, &call, &tensors, &taken, &made.files);
  std::string body;
  if (call.why_not.empty()) {
    body = "\n" + std::string(kPlace) + "\n\n" +
           run_function(kase, call, tensors, &taken) +
           call_and_checks(kase, op, expected, backend, &taken, &made.files);
  }
  std::string& script = made.script;
  script = header(kase, backend, seen, call);
  const std::string code = definitions + body;
  if (code.find("np.load") != std::string::npos) {
    script += "import numpy as np\n";
  }
  if (code.find("re.search") != std::string::npos) script += "import re\n";
  script +=
      "import sys\n\n"
      "import torch\n\n"
      "print(\"PyTorch\", torch.__version__, \"| CUDA\", torch.version.cuda,\n"
      "      \"| ROCm\", getattr(torch.version, \"hip\", None),\n"
      "      \"| Python\", platform.python_version(), \"|\", "
      "platform.platform())\n\n";
  // ROCm's PyTorch calls a HIP device `cuda`.
  script += std::string("device = \"") + (is_gpu(backend) ? "cuda" : "cpu") +
            "\"\n\n" + definitions + "\n";
  if (!call.why_not.empty()) {
    script += "print(" + double_quoted("Not called: " + call.why_not + ".") +
              ")\nsys.exit(" + std::to_string(kNoPythonCall) + ")\n";
    return made;
  }
  script += body;
  return made;
}

}  // namespace casebook
