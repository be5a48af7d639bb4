// `casebook show CASE [--backend B] [--full] [--write-expected]`: runs one
// case on one backend, in a child process like every run, and prints the
// ATen overload its op resolved to and each output (shape, dtype, strides,
// summary statistics, values), so that an author can turn a correct run into
// the case's expected `outputs`.
#include <ATen/ATen.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "casebook/case_writer.h"
#include "casebook/diagnosis.h"
#include "casebook/family.h"
#include "casebook/loader.h"
#include "casebook/number_text.h"
#include "casebook/op_catalog.h"
#include "casebook/ops.h"
#include "casebook/printable.h"
#include "casebook/shape_text.h"
#include "casebook/verdict.h"
#include "child/execute.h"
#include "child/fork_safe_aten.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "files/file_writer.h"
#include "model/yaml_text.h"
#include "process/run_to_end.h"
#include "process/scratch_folder.h"
#include "tensors/fixtures.h"
#include "tensors/materialise.h"
#include "tensors/values_text.h"

namespace casebook {
namespace fs = std::filesystem;
namespace {

// Values printed, and written inline by --write-expected, up to this many
// elements; larger outputs are elided in print and become a .npy fixture.
constexpr int64_t kShownElements = 64;

std::string dtype_of(const at::Tensor& tensor) {
  const auto dtype = to_dtype(tensor.scalar_type());
  return dtype ? std::string(dtype_name(*dtype))
               : std::string(c10::toString(tensor.scalar_type()));
}

void print_output(std::ostream& out, size_t index, const TensorFile& file,
                  const at::Tensor& tensor, bool full) {
  out << "output " << index;
  if (!file.name.empty()) out << " `" << file.name << "`";
  out << ": dtype " << dtype_of(tensor) << ", shape "
      << shape_text(tensor.sizes()) << ", strides "
      << shape_text(tensor.strides()) << "\n";
  const at::Tensor values = tensor.to(at::kDouble);
  const int64_t count = values.numel();
  if (count > 0) {
    const at::Tensor finite = values.isfinite();
    const int64_t nans = values.isnan().sum().item<int64_t>();
    const int64_t infs = count - nans - finite.sum().item<int64_t>();
    const at::Tensor finite_values = values.masked_select(finite);
    out << "  elements " << count << ", NaN " << nans << ", inf " << infs;
    if (at::isIntegralType(tensor.scalar_type(), /*includeBool=*/false)) {
      // Exact: a double rounds an int64 beyond 2^53.
      const at::Tensor exact = tensor.to(at::kLong);
      out << ", min " << exact.min().item<int64_t>() << ", max "
          << exact.max().item<int64_t>() << ", mean "
          << yaml_number(finite_values.mean().item<double>());
    } else if (finite_values.numel() > 0) {
      out << ", min " << yaml_number(finite_values.min().item<double>())
          << ", max " << yaml_number(finite_values.max().item<double>())
          << ", mean " << yaml_number(finite_values.mean().item<double>());
    }
    out << "\n";
  }
  const int64_t limit = full ? count : kShownElements;
  out << "  values "
      << model::values_text(values_spec("", tensor, limit), limit);
  if (count > limit) {
    out << "\n  (" << count - limit << " more elided; --full shows all)";
  }
  out << "\n";
}

// Runs `kase` on `backend` in a child; the outputs' report, and their tensors
// as files in `run_root`. The child has the case's timeout, as in a run, and a
// child past it is killed and reported as the runner reports it (family
// timeout).
void run_in_child(const Case& kase, const OpDef& op, Backend backend,
                  const std::string& run_root, ChildReport* report) {
  CaseTable table;
  table.cases.push_back(&kase);
  table.ops.push_back(&op);
  RunRequest request;
  request.backend = backend;
  request.output_dir = run_root;
  const ChildEnd run = run_child_to_end(
      [&](int report_fd) {
        return run_one_shot_child(table, request, report_fd);
      },
      kase.timeout_seconds);
  // A report that came before the deadline stands, as in a run.
  const size_t line_end = run.output.find('\n');
  if (run.timed_out && line_end == std::string::npos) {
    report->status = ChildReport::Status::kError;
    report->family = Family::kTimeout;
    report->message = killed_at_deadline(kase.timeout_seconds);
    return;
  }
  if (run.output.empty()) {
    report->status = ChildReport::Status::kError;
    report->message = "the run " + describe_wait_status(run.wait_status);
    return;
  }
  *report = decode_report(run.output.substr(0, line_end));
}

// Output `index` of case `kase` in `file` as a .npy fixture in the fixtures
// folder nearest the case, `expected/<case id>_output<index>.npy` (the id's
// folders kept: two cases of one file name in different folders never share
// a fixture); its tensor's `file` and `sha256`. Throws WriteError.
TensorSpec write_expected_fixture(const fs::path& file, const Case& kase,
                                  size_t index, const at::Tensor& tensor) {
  const fs::path folder =
      find_fixtures_folder(file).value_or(file.parent_path() / "fixtures");
  const std::string name =
      "expected/" + kase.id + "_output" + std::to_string(index) + ".npy";
  if (const std::string problem = name_problem(name, true); !problem.empty()) {
    throw WriteError(printable_line(name) + ": " + problem);
  }
  TensorSpec spec;
  spec.dtype = *to_dtype(tensor.scalar_type());
  spec.shape.assign(tensor.sizes().begin(), tensor.sizes().end());
  spec.source = TensorSpec::Source::kFile;
  spec.file = name;
  write_npy(folder / name, tensor, OnExisting::kReplace);
  spec.sha256 = sha256_file(folder / name);
  return spec;
}

// The `outputs:` block for `outputs`, values inline up to kShownElements,
// else a fixture; empty (said on stderr) when an output has a dtype no case
// can state. Throws WriteError for a fixture not written.
std::string expected_block(const fs::path& file, const Case& kase,
                           const std::vector<TensorFile>& files,
                           const std::vector<at::Tensor>& outputs) {
  std::vector<OutputExpectation> expected;
  std::string names;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const at::Tensor& tensor = outputs[i];
    if (!to_dtype(tensor.scalar_type())) {
      std::cerr << "casebook show: output " << i << " is a " << dtype_of(tensor)
                << " tensor, a dtype no case can state; nothing written\n";
      return "";
    }
    OutputExpectation output;
    output.key = std::to_string(i);
    if (!files[i].name.empty()) {
      names +=
          (names.empty() ? " (" : ", ") + output.key + ": " + files[i].name;
    }
    output.values = tensor.numel() <= kShownElements
                        ? values_spec(output.key, tensor)
                        : write_expected_fixture(file, kase, i, tensor);
    expected.push_back(std::move(output));
  }
  return "# written by casebook show --write-expected" +
         (names.empty() ? "" : names + ")") + "\n" + outputs_to_yaml(expected);
}

// --write-expected: an `outputs:` block added to the case file, under its
// lock (files/file_writer.h: a second writer of the case is refused), and
// only when the case, read again under the lock, has no `outputs` yet and
// loads with the block (a file ending in `...` or written in flow style
// would not).
bool write_expected(const fs::path& file, const Case& kase,
                    const std::vector<TensorFile>& files,
                    const std::vector<at::Tensor>& outputs) {
  const std::string refusal = "casebook show: " + file.string() + ": ";
  try {
    const OpenFolder folder = OpenFolder::open(file.parent_path(), false);
    FileBeingWritten out(folder, file.filename().string());
    std::ifstream in(file);
    std::ostringstream read;
    read << in.rdbuf();
    const std::string original = read.str();
    const LoadedCase now = load_case_text(original, file);
    if (!now.ok() || !now.value->outputs.empty()) {
      std::cerr << refusal
                << "already has `outputs` (or changed since it was run); "
                   "edit them by hand or remove them first\n";
      return false;
    }
    const std::string block = expected_block(file, kase, files, outputs);
    if (block.empty()) return false;
    const std::string text =
        original + (original.empty() || original.back() == '\n' ? "" : "\n") +
        block;
    if (!load_case_text(text, file).ok()) {
      std::cerr << refusal
                << "with `outputs` added it would not load (a "
                   "document end `...` or a flow-style mapping?); "
                   "left as it was\n";
      return false;
    }
    out.write(text);
    out.commit(OnExisting::kReplace);
    std::cout << "written to " << file.string() << ":\n" << block;
    return true;
  } catch (const WriteError& error) {
    std::cerr << refusal << printable_line(error.what()) << "\n";
    return false;
  }
}

// Runs `kase` with `op` on `backend` in a child and prints what it gave (its
// outputs, error or skip, and any `processed` count); --write-expected adds
// the outputs to `file`. Returns the exit status: 0, or 1 when it failed.
int run_and_show(const fs::path& file, const Case& kase, const OpDef& op,
                 Backend backend, bool full, bool write) {
  // The child's output files; removed when show ends.
  std::unique_ptr<ScratchFolder> run_root;
  try {
    run_root = std::make_unique<ScratchFolder>("show");
  } catch (const std::runtime_error& error) {
    std::cerr << "casebook show: " << error.what() << "\n";
    return 1;
  }
  ChildReport report;
  run_in_child(kase, op, backend, run_root->path(), &report);
  const std::vector<at::Tensor> outputs = read_report_outputs(&report);
  int status = 0;
  std::cout << kase.id << " on " << backend_name(backend) << "\n";
  // Which overload a `torch.` or `aten::` name resolved to, chosen by the
  // case's inputs and args (ops/aten_op.cpp): what the author meant to run?
  if (!op.schema.empty()) {
    std::cout << "op: " << kase.op << " resolved to " << op.schema << "\n";
  }
  if (report.internal) {
    // "internal error: ...": casebook's fault, never the case's family.
    std::cout << report.message << "\n" << kInternalErrorNote << "\n";
    status = 1;
  } else if (report.status != ChildReport::Status::kOutputs) {
    std::cout << (report.status == ChildReport::Status::kSkipped
                      ? "skipped: "
                      : "error (" + std::string(family_name(report.family)) +
                            "): ")
              << report.message << "\n";
    status = 1;
  } else {
    for (size_t i = 0; i < report.outputs.size(); ++i) {
      print_output(std::cout, i, report.outputs[i], outputs[i], full);
    }
    if (write && !write_expected(file, kase, report.outputs, outputs)) {
      status = 1;
    }
  }
  // What an op that counts its entries reported: the `processed` and
  // `positions` an expectation can assert.
  if (report.processed) {
    std::cout << "processed: " << *report.processed << " entries";
    if (report.positions && !report.positions->empty()) {
      std::cout << ", rejected positions " << shape_text(*report.positions);
    }
    std::cout << "\n";
  }
  return status;
}

}  // namespace

int show_command(const std::string& argument, const std::string& backend_name_,
                 bool full, bool write) {
  keep_aten_single_threaded();  // before the fork
  Backend backend = Backend::kCpu;
  if (!backend_name_.empty()) {
    const auto parsed = parse_backend_option("show", backend_name_);
    if (!parsed) return kExitUsage;
    backend = *parsed;
  }
  fs::path file;
  if (!resolve_case_argument(argument, &file)) return kExitUsage;
  LoadedCase loaded = load_case_file(file);
  if (!loaded.ok()) {
    for (const CaseError& error : loaded.errors) {
      std::cerr << error.to_string() << "\n";
    }
    return 1;
  }
  const Case& kase = *loaded.value;
  // The one answer to "what does this case run?": registered or dispatcher.
  const ResolvedOp resolved = resolve_op(kase, default_registry());
  const OpDef* op = resolved.def;
  if (op == nullptr || !resolved.problems.empty()) {
    for (const std::string& problem : resolved.problems) {
      std::cerr << problem << "\n";
    }
    return 1;
  }
  return run_and_show(file, kase, *op, backend, full, write);
}

namespace {
struct ShowArguments {
  std::string kase, backend;
  bool full = false;
  bool write_expected = false;
};
}  // namespace

Command add_show(CLI::App& app) {
  auto arguments = std::make_shared<ShowArguments>();
  CLI::App* show = app.add_subcommand(
      "show",
      "run one case on one backend and print each output: shape, dtype, "
      "strides, statistics and values, to turn a correct run into "
      "expected `outputs`");
  show->add_option("case", arguments->kase,
                   "a case file, or a case id under cases/")
      ->required();
  show->add_option("--backend,-b", arguments->backend,
                   backend_alternatives() + " (default: cpu)");
  show->add_flag("--full", arguments->full,
                 "print every value (default: the first 64)");
  show->add_flag("--write-expected", arguments->write_expected,
                 "append the outputs to the case file as `outputs` (a .npy "
                 "fixture with its sha256 for outputs of more than 64 "
                 "elements)");
  return {show, [arguments] {
            const ShowArguments& a = *arguments;
            return show_command(a.kase, a.backend, a.full, a.write_expected);
          }};
}

}  // namespace casebook
