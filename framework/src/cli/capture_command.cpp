// `casebook capture`: saved tensors into a case, then the case run at once.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <system_error>
#include <utility>

#include "capture/capture.h"
#include "capture/capture_check.h"
#include "casebook/joined.h"
#include "casebook/loader.h"
#include "casebook/printable.h"
#include "cli/capture_run.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "files/file_writer.h"

namespace casebook {
namespace {

bool split_pair(const std::string& text, const std::string& flag,
                std::vector<std::pair<std::string, std::string>>* into) {
  const size_t equals = text.find('=');
  if (equals == std::string::npos || equals == 0) {
    std::cerr << "casebook capture: " << flag << " `" << printable_line(text)
              << "`: expected KEY=VALUE\n";
    return false;
  }
  into->emplace_back(text.substr(0, equals), text.substr(equals + 1));
  return true;
}

// A case that fails differently from its origin, or passes, is no case of
// the failure: removed (as this capture made it, replacing nothing) unless
// --keep-unreproduced, saying where the tensors still are. The fixtures
// stay: named by their content, perhaps shared by other cases.
bool drop_unreproduced(const std::filesystem::path& case_file,
                       const Reproduction& reproduction,
                       const CaptureArguments& arguments) {
  if ((reproduction.kind != Reproduction::Kind::kDiffers &&
       reproduction.kind != Reproduction::Kind::kPasses) ||
      arguments.keep_unreproduced) {
    return false;
  }
  std::error_code ignored;
  std::filesystem::remove(case_file, ignored);
  std::vector<std::string> files;
  for (const std::string& text : arguments.tensors) {
    const std::string file =
        printable_line(parse_tensor_argument(text).file.string());
    if (std::find(files.begin(), files.end(), file) == files.end()) {
      files.push_back(file);
    }
  }
  std::cerr << "casebook capture: the case does not reproduce the failure, "
               "so it is not kept (removed "
            << printable_line(case_file.string())
            << "; --keep-unreproduced keeps it); the tensors are still in "
            << joined(files) << "\n";
  return true;
}

// The verdict's last line (`the capture ...`: what the Python Recorder
// reads), then the acceptance where asked. 1 where the case is not kept
// (drop_unreproduced); under --expect-failure, 1 unless the failure is the
// origin's (or, without origin.first_error, any).
int report_reproduction(const std::filesystem::path& case_file,
                        const CaseRun& run, const CaptureArguments& arguments) {
  const LoadedCase loaded = load_case_file(case_file);
  if (!loaded.ok()) {
    std::cerr << "casebook capture: " << printable_line(case_file.string())
              << " does not load again\n";
    return 1;
  }
  const Reproduction reproduction =
      judge_reproduction(loaded.value->origin, run);
  std::cout << reproduction.sentence << "\n";
  if (drop_unreproduced(case_file, reproduction, arguments)) return 1;
  const bool failed_as_expected =
      reproduction.kind == Reproduction::Kind::kReproduced ||
      reproduction.kind == Reproduction::Kind::kUnknown;
  if (arguments.accept) {
    std::string why;
    if (!write_acceptance(case_file, *loaded.value, reproduction, &why)) {
      std::cerr << "casebook capture: not accepted: " << why << "\n";
      return 1;
    }
  }
  return arguments.expect_failure && !failed_as_expected ? 1 : 0;
}

// The command line's request, saved tensors aside; nullopt where an --arg
// or --origin is not NAME=VALUE (said on stderr).
std::optional<CaptureRequest> request_of(const CaptureArguments& arguments) {
  CaptureRequest request;
  request.op = arguments.op;
  request.name = arguments.name;
  request.cases = arguments.cases;
  request.fixtures = arguments.fixtures;
  request.summary = arguments.summary;
  for (const std::string& arg : arguments.args) {
    if (!split_pair(arg, "--arg", &request.args)) return std::nullopt;
  }
  for (const std::string& origin : arguments.origin) {
    if (!split_pair(origin, "--origin", &request.origin)) return std::nullopt;
  }
  return request;
}

// What the capture wrote: its notes (stderr), the case file and fixtures.
void say_written(const CaptureResult& result) {
  for (const std::string& note : result.notes) {
    std::cerr << "casebook capture: " << printable_line(note) << "\n";
  }
  std::cout << "wrote " << printable_line(result.case_file.string()) << "\n";
  for (const auto& fixture : result.fixtures) {
    std::cout << "fixture " << printable_line(fixture.string()) << "\n";
  }
}

// The tensors of `--tensor NAME=FILE#KEY`. One saved tensor named twice
// (`--tensor self=x.pt --tensor out=x.pt`) is one tensor passed twice, as
// `out=x`: read once, it is written `same_as` (capture/capture.h).
std::vector<CapturedTensor> saved_tensors(
    const std::vector<std::string>& texts) {
  std::vector<CapturedTensor> tensors;
  std::map<std::pair<std::string, std::string>, at::Tensor> read;
  for (const std::string& text : texts) {
    const TensorArgument argument = parse_tensor_argument(text);
    at::Tensor& tensor = read[{argument.file.string(), argument.key}];
    if (!tensor.defined()) {
      tensor = read_saved_tensor(argument.file, argument.key);
    }
    tensors.push_back({argument.name, tensor});
  }
  return tensors;
}

}  // namespace

int capture_command(const CaptureArguments& arguments) {
  std::optional<CaptureRequest> asked = request_of(arguments);
  if (!asked) return kExitUsage;
  CaptureRequest& request = *asked;
  CaptureResult result;
  try {
    request.tensors = saved_tensors(arguments.tensors);
    // Checked before anything is written: an op that does not exist or
    // does not take these inputs and args is the capture's own fault, not a
    // failure it reproduced.
    const std::vector<std::string> problems = capture_case_problems(request);
    if (!problems.empty()) {
      std::cerr << "casebook capture: the case would be invalid, so nothing "
                   "was written:\n";
      for (const std::string& problem : problems) {
        std::cerr << "  " << printable_line(problem) << "\n";
      }
      return arguments.expect_failure ? 1 : kExitUsage;
    }
    result = write_capture(request);
  } catch (const CaptureError& error) {
    std::cerr << "casebook capture: " << printable_text(error.what()) << "\n";
    return kExitUsage;
  } catch (const WriteError& error) {
    std::cerr << "casebook capture: " << printable_text(error.what()) << "\n";
    return kExitNotWritten;
  }
  say_written(result);
  if (arguments.no_run) return 0;
  const CaseRun run =
      run_case(result.case_file, arguments.backends, arguments.results_json);
  if (!run.invalid.empty()) {
    // The case's own fault, never a reproduced failure. Its file goes (this
    // capture made it, replacing nothing), so that the corrected capture can
    // take the same name; the fixtures stay, named by their content and
    // perhaps shared by other cases.
    std::cerr << "casebook capture: the case is invalid, so it reproduces "
                 "nothing (removed "
              << result.case_file.string() << "):\n";
    for (const std::string& message : run.invalid) {
      std::cerr << "  " << message << "\n";
    }
    std::error_code ignored;
    std::filesystem::remove(result.case_file, ignored);
    return arguments.expect_failure ? 1 : kExitUsage;
  }
  if (run.status == kExitUsage) {
    std::cerr << "casebook capture: the new case does not run; see above\n";
    return 1;
  }
  return report_reproduction(result.case_file, run, arguments);
}

namespace {

// What capture does with the case it wrote: run it (where), and what it does
// with the verdict.
void add_run_options(CLI::App* capture, CaptureArguments* arguments) {
  capture
      ->add_option("--backend,-b", arguments->backends,
                   "backends to run the new case on")
      ->capture_default_str();
  capture->add_flag("--expect-failure", arguments->expect_failure,
                    "exit 1 when the capture does not reproduce a failure: "
                    "every verdict PASS, or the case invalid");
  capture->add_flag("--no-run", arguments->no_run,
                    "write the case without running it");
  capture->add_flag("--accept", arguments->accept,
                    "write a reproduced failure into the case as its expect");
  capture->add_flag("--keep-unreproduced", arguments->keep_unreproduced,
                    "keep the case when it fails otherwise than its "
                    "origin.first_error, or passes (else it is removed, "
                    "exit 1)");
}

}  // namespace

Command add_capture(CLI::App& app) {
  auto arguments = std::make_shared<CaptureArguments>();
  CLI::App* capture = app.add_subcommand(
      "capture",
      "turn saved tensors (.pt, .npy, .safetensors) into a case file and "
      "fixtures named by their sha256, then run it and print its verdict per "
      "backend. A .pt is what torch.save writes since PyTorch 1.6 (a zip, "
      "records stored): a tensor, or a dict, list or tuple of them, read by "
      "casebook's own reader (a strict zip, a restricted unpickler), never by "
      "LibTorch's; each tensor at most 2^30 elements and 4 GiB "
      "(CASEBOOK_MAX_TENSOR_ELEMENTS, CASEBOOK_MAX_TENSOR_BYTES). The case is "
      "checked (op, inputs, arguments) before anything is written; one that "
      "only the op finds invalid when it runs is removed again: never a "
      "reproduced failure; so is one that does not reproduce the failure "
      "(the same family and message as origin.first_error), unless "
      "--keep-unreproduced");
  capture
      ->add_option("--op", arguments->op,
                   "torch.<name>, aten::<name>[.<overload>], ...")
      ->required();
  capture
      ->add_option("--tensor", arguments->tensors,
                   "NAME=FILE[#KEY]: an input of the op (KEY: a dict key, "
                   "a list index or a safetensors name; nested: #a.b)")
      ->required();
  capture->add_option("--arg", arguments->args,
                      "KEY=VALUE: an argument of the op (YAML text)");
  capture
      ->add_option("--name", arguments->name,
                   "the case's name: writes <cases>/<op>/<name>.yaml")
      ->required();
  capture->add_option("--cases", arguments->cases, "the cases folder")
      ->capture_default_str();
  capture->add_option("--fixtures", arguments->fixtures,
                      "the fixtures folder (default: the nearest fixtures/ "
                      "above the case, else one beside the cases folder)");
  capture->add_option("--json", arguments->results_json,
                      "keep the run's results as FILE (schema/"
                      "results.schema.json), as `casebook run --json` "
                      "writes them");
  capture->add_option("--summary", arguments->summary,
                      "the case's one-line summary");
  capture->add_option("--origin", arguments->origin,
                      "KEY=VALUE for the dossier: first_error, iteration, "
                      "last_completed_step, versions.NAME, data.NAME, ...");
  add_run_options(capture, arguments.get());
  return {capture, [arguments] { return capture_command(*arguments); }};
}

}  // namespace casebook
