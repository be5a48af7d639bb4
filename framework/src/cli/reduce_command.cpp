// `casebook reduce CASE`: the smallest case that still fails the same way
// (runner/reduce.h), written as a new case file beside the original (never
// over a file), checked by a run of the file written.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <memory>

#include "capture/capture.h"
#include "casebook/case_writer.h"
#include "casebook/number_text.h"
#include "casebook/printable.h"
#include "child/fork_safe_aten.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "files/file_writer.h"
#include "runner/reduce.h"
#include "runner/session.h"
#include "tensors/materialise.h"

namespace casebook {
namespace fs = std::filesystem;
namespace {

struct ReduceArguments {
  std::string kase, backend, id, output;
  int max_runs = 200;
  double max_seconds = 600;
};

// The case to reduce: `--id`'s (a neighbour too), else the file's own.
const PlannedCase* chosen_case(const Plan& plan, const std::string& id) {
  for (const PlannedCase& planned : plan.cases) {
    if (id.empty() ? !planned.neighbor : planned.loaded.id == id) {
      return &planned;
    }
  }
  return nullptr;
}

// False, said, for a file that does not load or an id it does not have.
bool refuse(const Plan& plan, const fs::path& file, const std::string& id,
            const PlannedCase* chosen) {
  for (const PlannedCase& planned : plan.cases) {
    if (planned.runnable()) continue;
    std::cerr << "casebook reduce: " << file.string()
              << ": the case is invalid, so there is no failure to keep; fix "
                 "it first (`casebook check "
              << file.string() << "`):\n";
    for (const CaseError& error : planned.loaded.errors) {
      std::cerr << "  " << error.to_string() << "\n";
    }
    for (const std::string& error : planned.plan_errors) {
      std::cerr << "  " << error << "\n";
    }
    return false;
  }
  if (chosen != nullptr) return true;
  std::cerr << "casebook reduce: --id `" << printable_line(id)
            << "`: no case of " << file.string() << " has this id; its ids:";
  for (const PlannedCase& planned : plan.cases) {
    std::cerr << " " << planned.loaded.id;
  }
  std::cerr << "\n";
  return false;
}

// `--backend`, else the origin's backend where the case runs on it, else
// the CPU.
std::optional<Backend> backend_of(const ReduceArguments& arguments,
                                  const Case& kase) {
  if (!arguments.backend.empty()) {
    return parse_backend_option("reduce", arguments.backend);
  }
  for (const auto& [key, value] : kase.origin.entries) {
    const std::optional<Backend> origin = parse_backend(value);
    if (key == "backend" && origin && kase.runs_on(*origin)) return origin;
  }
  return Backend::kCpu;
}

// `-o`, else `<stem>.reduced.yaml` beside the case (a neighbour's suffix
// escaped into the name).
fs::path output_of(const ReduceArguments& arguments, const fs::path& file,
                   const PlannedCase& planned) {
  if (!arguments.output.empty()) return arguments.output;
  std::string stem = file.stem().string();
  const size_t tilde = planned.loaded.id.find('~');
  if (planned.neighbor && tilde != std::string::npos) {
    stem += "." + escaped_file_name(planned.loaded.id.substr(tilde + 1));
  }
  return file.parent_path() / (stem + ".reduced.yaml");
}

}  // namespace

namespace {

int64_t element_count(const std::vector<int64_t>& shape) {
  int64_t count = 1;
  for (int64_t size : shape) count *= size;
  return count;
}

bool same_folder(const std::optional<fs::path>& a, const fs::path& b) {
  std::error_code error;
  return a && fs::weakly_canonical(*a, error) == fs::weakly_canonical(b, error);
}

// The reduced case as it is written: a changed input of more than 64
// values becomes a fixture in the fixtures folder of `output` (capture's
// content-named .npy), as does a fixture of the original that `output`
// would not find. The fixtures written.
std::vector<fs::path> place_fixtures(Case& kase,
                                     const std::vector<bool>& changed,
                                     const fs::path& original,
                                     const fs::path& output) {
  const fs::path folder =
      find_fixtures_folder(output).value_or(output.parent_path() / "fixtures");
  const bool shared = same_folder(find_fixtures_folder(original), folder);
  const std::string under =
      op_folder(kase.steps.empty() ? kase.op : kase.steps.front().op);
  std::vector<fs::path> written;
  for (size_t i = 0; i < kase.inputs.size(); ++i) {
    TensorSpec& spec = kase.inputs[i];
    if (!spec.same_as.empty()) continue;  // written `{same_as: NAME}`
    const bool large = spec.source == TensorSpec::Source::kValues &&
                       changed[i] && element_count(spec.shape) > kInlineLimit;
    const bool moved = spec.source == TensorSpec::Source::kFile && !shared;
    if (!large && !moved) continue;
    const at::Tensor values = read_only_values(spec);
    const fs::path fixture = write_fixture(values, folder / under);
    written.push_back(fixture);
    spec.source = TensorSpec::Source::kFile;
    spec.file = under + "/" + fixture.filename().string();
    spec.file_tensor.clear();
    spec.sha256 = fixture.stem().string();
    spec.shape = values.sizes().vec();
    spec.shape_given = true;
    spec.float_values.clear();
    spec.int_values.clear();
  }
  return written;
}

// The file's text: the schema modeline, what was removed and kept (as
// comments), the case.
std::string reduced_text(const ReduceResult& result,
                         const ReduceRequest& request, const fs::path& output) {
  std::string text;
  if (auto modeline = schema_modeline(output)) text += *modeline + "\n";
  text += "# reduced by `casebook reduce` from " + request.original.id +
          " on " + std::string(backend_name(request.backend)) + "\n";
  for (const std::string& line : result.removed) {
    text += "# removed: " + printable_line(line) + "\n";
  }
  for (const std::string& line : result.kept) {
    text += "# kept: " + printable_line(line) + "\n";
  }
  return text + case_to_yaml(result.reduced);
}

void print_summary(const ReduceResult& result, const ReduceRequest& request,
                   const std::string& check) {
  std::cout << "casebook reduce: " << request.original.id << " on "
            << backend_name(request.backend) << ": "
            << verdict_name(result.original.verdict) << " "
            << family_name(result.failure.family) << ": "
            << bounded_text(result.failure.message, 300) << "\n"
            << "  from: " << result.original_sizes << "\n"
            << "  to:   " << result.reduced_sizes << "\n";
  if (!result.removed.empty()) std::cout << "  removed:\n";
  for (const std::string& line : result.removed) {
    std::cout << "    - " << line << "\n";
  }
  if (!result.kept.empty()) std::cout << "  kept:\n";
  for (const std::string& line : result.kept) {
    std::cout << "    - " << line << "\n";
  }
  std::cout << "  " << result.runs << " runs in "
            << number_text(static_cast<double>(
                               static_cast<int64_t>(result.seconds * 10)) /
                           10)
            << " s; the last, of the file written: " << check << "\n";
  if (!result.stopped.empty()) {
    std::cout << "  stopped: " << result.stopped
              << ": the case written is the smallest verified so far\n";
  }
}

}  // namespace

namespace {

// On a terminal: one line rewritten after each run.
std::function<void(const ReduceProgress&)> progress_line() {
  if (isatty(STDERR_FILENO) != 1) return nullptr;
  return [](const ReduceProgress& progress) {
    std::cerr << "\r\x1b[Kcasebook reduce: " << progress.runs << " runs, "
              << bounded_text(progress.sizes, 120) << ", "
              << static_cast<int64_t>(progress.seconds) << " s" << std::flush;
  };
}

int say_not_reduced(const ReduceResult& result, const ReduceRequest& request) {
  const CaseVerdict& run = result.original;
  const std::string where =
      request.original.id + " on " + std::string(backend_name(request.backend));
  if (!result.stopped.empty()) {
    std::cerr << "casebook reduce: " << where << ": " << result.stopped
              << " before its first run\n";
    return 1;
  }
  switch (result.outcome) {
    case ReduceResult::Outcome::kPasses:
      std::cerr << "casebook reduce: " << where << " passes ("
                << verdict_name(run.verdict)
                << "): there is no failure to keep\n";
      return 1;
    case ReduceResult::Outcome::kInvalid:
      std::cerr << "casebook reduce: " << where << ": "
                << verdict_name(run.verdict) << " " << family_name(run.family)
                << ": " << run.message << "\n";
      return kExitUsage;
    default:
      std::cerr << "casebook reduce: " << where << " did not run ("
                << verdict_name(run.verdict) << ": " << run.message
                << "); reduce it on a backend that runs here (--backend)\n";
      return 1;
  }
}

// Writes the reduced case (never over a file) and its fixtures, runs the
// file written, and says what was removed and kept. The file goes again
// where it does not fail the same way: a case that does not reproduce is
// never left behind.
int write_reduced(ReduceResult& result, const ReduceRequest& request,
                  const fs::path& file, const fs::path& output) {
  std::vector<fs::path> fixtures;
  try {
    fixtures = place_fixtures(result.reduced, result.changed, file, output);
    const std::string text = reduced_text(result, request, output);
    const LoadedCase loaded = load_case_text(text, output);
    if (!loaded.ok()) {
      std::cerr << "casebook reduce: internal error: the reduced case does "
                   "not load: "
                << loaded.errors.front().to_string() << "\n";
      return kExitUsage;
    }
    write_file(output, text, OnExisting::kRefuse);
  } catch (const std::exception& error) {  // WriteError, CaptureError
    std::cerr << "casebook reduce: " << printable_line(error.what()) << "\n";
    return kExitNotWritten;
  }
  std::string why;
  const bool same =
      written_case_fails_the_same_way(output, request, result, &why);
  print_summary(
      result, request,
      same ? "it fails the same way" : "it does not fail the same way: " + why);
  if (!same) {
    remove_tree_in(OpenFolder::open(output.parent_path(), false),
                   output.filename().string());
    std::cerr << "casebook reduce: removed " << output.string()
              << ": it does not reproduce the failure (casebook's own "
                 "fault: please report it)\n";
    return 1;
  }
  for (const fs::path& fixture : fixtures) {
    std::cout << "fixture " << fixture.string() << "\n";
  }
  std::cout << "wrote " << output.string() << "\n";
  return 0;
}

int reduce_command(const ReduceArguments& arguments) {
  if (arguments.kase.empty() && arguments.id.empty()) {
    std::cerr << "casebook reduce: name a case file, or a case with --id\n";
    return kExitUsage;
  }
  if (arguments.max_runs < 1 || !(arguments.max_seconds > 0)) {
    std::cerr << "casebook reduce: --max-runs and --max-seconds must be "
                 "positive\n";
    return kExitUsage;
  }
  fs::path file;
  const std::string& id = arguments.id;
  if (!resolve_case_argument(
          arguments.kase.empty() ? id.substr(0, id.find('~')) : arguments.kase,
          &file)) {
    return kExitUsage;
  }
  keep_aten_single_threaded();  // before the runner forks
  const Plan plan = load_plan({file}, RunOptions{});
  const PlannedCase* chosen = chosen_case(plan, id);
  if (!refuse(plan, file, id, chosen)) return kExitUsage;
  const std::optional<Backend> backend = backend_of(arguments, chosen->value());
  if (!backend) return kExitUsage;
  const fs::path output = output_of(arguments, file, *chosen);
  std::error_code error;
  if (fs::symlink_status(output, error).type() != fs::file_type::not_found) {
    std::cerr << "casebook reduce: " << output.string()
              << " exists: casebook writes a reduced case over no file; "
                 "choose another with -o\n";
    return kExitUsage;
  }
  ReduceRequest request;
  request.original = chosen->loaded;
  request.backend = *backend;
  request.max_runs = arguments.max_runs;
  request.max_seconds = arguments.max_seconds;
  request.on_progress = progress_line();
  ReduceResult result = reduce_case(request);
  if (request.on_progress) std::cerr << "\r\x1b[K" << std::flush;
  if (result.outcome != ReduceResult::Outcome::kReduced) {
    return say_not_reduced(result, request);
  }
  return write_reduced(result, request, file, output);
}

}  // namespace

Command add_reduce(CLI::App& app) {
  auto arguments = std::make_shared<ReduceArguments>();
  CLI::App* reduce = app.add_subcommand(
      "reduce",
      "write the smallest case that still fails the same way on a backend "
      "(the same verdict, family and key: the offending value, the failing "
      "step, the output that differs) as a new case file: steps, "
      "arguments, dims and values each removed only where a run in a "
      "process of its own still fails so; what was kept, and why, is said");
  reduce->add_option("case", arguments->kase,
                     "a case file, or a case id under cases/");
  reduce->add_option("--id", arguments->id,
                     "reduce this case or neighbour of the file "
                     "(`case~rule[param]`); alone, a case under cases/");
  reduce->add_option("--backend,-b", arguments->backend,
                     "the backend it fails on (default: the origin's "
                     "backend where the case runs on it, else cpu)");
  reduce->add_option("-o,--output", arguments->output,
                     "the file to write (default: <case>.reduced.yaml beside "
                     "it); never over an existing file");
  reduce
      ->add_option("--max-runs", arguments->max_runs,
                   "stop after this many runs, writing the smallest case "
                   "verified so far")
      ->capture_default_str();
  reduce
      ->add_option("--max-seconds", arguments->max_seconds,
                   "stop after this long, writing the smallest case "
                   "verified so far")
      ->capture_default_str();
  return {reduce, [arguments] { return reduce_command(*arguments); }};
}

}  // namespace casebook
