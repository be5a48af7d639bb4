#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>

#include "casebook/loader.h"
#include "casebook/printable.h"
#include "casebook/suggestions.h"
#include "cli/commands.h"
#include "runner/scheduler.h"

namespace casebook {
namespace {

void add_common(CLI::App* command, CommonArguments* arguments) {
  command->add_option("paths", arguments->paths,
                      "case files and folders (default: cases/)");
  command
      ->add_option("--backend,-b", arguments->backends,
                   "backends to run: a list of cpu, cuda, hip (cpu always "
                   "runs as the reference)")
      ->capture_default_str();
  command->add_option("--filter,-f", arguments->filters,
                      "a glob on the case id, `<id>/<backend>` or the file "
                      "path; a plain word matches as a substring. Repeat it: "
                      "a run matching any is selected; one that selects "
                      "nothing is an error");
  command->add_option("--exclude,-x", arguments->excludes,
                      "a pattern as --filter takes: the runs it matches are "
                      "left out, whatever --filter selects (repeatable)");
  command->add_flag("--allow-skipped", arguments->allow_skipped,
                    "exit 0, not 77, when every selected run was skipped "
                    "(an absent backend) or none was left to run");
  command->add_option("--id", arguments->case_id,
                      "exactly this case id: a case without its neighbours, "
                      "or one neighbour (what rerun lines use)");
  command->add_option("-j,--jobs", arguments->jobs,
                      "parallel CPU runs (default: the number of cores)");
  command->add_option(
      "--require", arguments->require,
      "backends that must run: a list of cpu, cuda, hip; one of them that is "
      "absent (no device, no runtime) is an ERROR, not a SKIP (also "
      "$CASEBOOK_REQUIRE)");
  command->add_option(
      "--shard", arguments->shard,
      "I/N: run this machine's share of the cases, shard I of N (0-based), "
      "assigned by case id so that a case keeps its shard");
  command->add_flag("--allow-links-outside", arguments->allow_links_outside,
                    "take linked case files and folders that resolve outside "
                    "the folders named (refused otherwise)");
  command
      ->add_option("--isolation", arguments->isolation,
                   "pooled: a fork per CPU run, one worker per GPU backend "
                   "replaced when poisoned; strict: a fresh process for "
                   "every run")
      ->capture_default_str();
}

// A first word that is no command (`casebook diagnos`): said with the
// nearest command, where CLI11 would only say that a command is required.
bool unknown_command(const CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return false;
  const std::string given = argv[1];
  std::vector<std::string> names;
  for (const CLI::App* command : app.get_subcommands({})) {
    if (command->check_name(given)) return false;
    names.push_back(command->get_name());
  }
  std::cerr << "casebook: unknown command `" << printable_text(given) << "`"
            << did_you_mean(nearest_name(given, names))
            << " (casebook --help lists them)\n";
  return true;
}

void add_evidence(CLI::App* command, CommonArguments* arguments) {
  command
      ->add_option("--evidence", arguments->evidence,
                   "folder for the evidence of failing mismatches (inputs, "
                   "reference and actual outputs as .npy, the worst "
                   "elements, the seeds); '' writes none")
      ->capture_default_str();
}

}  // namespace

void apply_ctest_gpu_allocation() {
  // ctest --resource-spec-file sets CTEST_RESOURCE_GROUP_0_GPUS="id:1,slots:1".
  const char* groups = std::getenv("CTEST_RESOURCE_GROUP_COUNT");
  const char* gpus = std::getenv("CTEST_RESOURCE_GROUP_0_GPUS");
  if (groups == nullptr || gpus == nullptr) return;
  std::string text = gpus;
  auto start = text.find("id:");
  if (start == std::string::npos) return;
  std::string id = text.substr(start + 3, text.find(',', start) - start - 3);
  setenv("CUDA_VISIBLE_DEVICES", id.c_str(), 1);
  setenv("HIP_VISIBLE_DEVICES", id.c_str(), 1);
}

int main_entry(int argc, char** argv) {
  apply_ctest_gpu_allocation();
  // From the start: a Ctrl-C while cases load still ends in a report.
  install_interrupt_handlers();
  CLI::App app{
      "casebook: regression cases of PyTorch/LibTorch and GPU-kernel "
      "failures, each run in a process of its own on the CPU reference and "
      "every GPU backend, judged on their outputs. `casebook run` prints the "
      "environment (an absent backend's reason there, once), a table with a "
      "row per case and a column per backend that ran, a block per failure "
      "and the counts.\n\nExit status: 0 when "
      "every verdict is PASS, XFAIL or SKIP; 1 when any is FAIL, XPASS, "
      "ERROR, TIMEOUT or NOT RUN; 2 for a usage or configuration error "
      "(a selection that selects nothing included); 77 when every selected "
      "run was SKIP (nothing tested; --allow-skipped: 0)."};
  app.require_subcommand(1);

  CommonArguments run_arguments;
  RunOutput run_output;
  CLI::App* run = app.add_subcommand(
      "run",
      "run the cases; print each failure as it lands (a status line instead "
      "on a terminal), then the environment (an absent backend's reason "
      "there, once, and how many runs it skipped), a table with a row per "
      "case and a column per backend that ran (not a line per case and "
      "backend: --verbose adds those), a block per failure with its rerun "
      "command, and the counts");
  add_common(run, &run_arguments);
  add_evidence(run, &run_arguments);
  run->add_option("--junit", run_output.junit,
                  "also write a JUnit XML file, as results arrive");
  run->add_option("--summary", run_output.summary,
                  "also write a Markdown summary (the cases x backends "
                  "table, each failure with its rerun command), e.g. "
                  "$GITHUB_STEP_SUMMARY");
  run->add_flag("!--brief", run_output.details,
                "failures without their details and advice");
  run->add_flag("--verbose,-v", run_output.verbose,
                "a line per case and backend as it lands, absent backends' "
                "skips included");
  run->add_flag("--quiet,-q", run_output.quiet,
                "no progress and no table: only failures and the counts");
  run->add_flag("--last-failed,--lf", run_output.last_failed,
                "only the runs that failed when last run (kept in the build "
                "folder's casebook-cache/, or $CASEBOOK_CACHE_DIR); every "
                "selected run when none failed");
  run->add_flag("--fail-fast", run_output.fail_fast,
                "stop at the first run that does not pass: the runs not "
                "finished are NOT RUN");

  CommonArguments list_arguments;
  CLI::App* list = app.add_subcommand(
      "list",
      "list the cases and the backends each would run on, without "
      "running them");
  add_common(list, &list_arguments);

  CommonArguments check_arguments;
  CLI::App* check = app.add_subcommand(
      "check",
      "load and check the case files (keys, values, fixtures, the op and its "
      "arguments) without running them; every problem is printed; exit 1 "
      "when any file is invalid");
  check->add_option("paths", check_arguments.paths,
                    "case files and folders (default: cases/)");

  CommonArguments test_arguments;
  std::vector<std::string> gtest_arguments;
  CLI::App* test = app.add_subcommand(
      "test",
      "gtest mode for ctest: each case x backend is a gtest test "
      "(<case_id>.<backend>, non [A-Za-z0-9_] as _); gtest flags such as "
      "--gtest_filter=... and --gtest_output=xml:FILE are passed to gtest");
  add_common(test, &test_arguments);
  add_evidence(test, &test_arguments);
  // Anything casebook does not know (--gtest_*) is passed to gtest.
  test->allow_extras();

  std::string family;
  CLI::App* explain = app.add_subcommand(
      "explain",
      "what an error family means, what to check first and what "
      "not to conclude");
  explain->add_option("family", family, "an error family, e.g. device_assert")
      ->required();

  std::string diagnose_case;
  std::string diagnose_backend;
  CLI::App* diagnose = app.add_subcommand(
      "diagnose",
      "rerun one case in fresh processes, changing one thing at a time "
      "(launch blocking, the CPU, float32, float64, contiguous inputs, "
      "compute-sanitizer memcheck), and tell which change altered the "
      "outcome");
  diagnose
      ->add_option("case", diagnose_case,
                   "a case file, or a case id under cases/")
      ->required();
  diagnose->add_option("--backend,-b", diagnose_backend,
                       "cpu, cuda or hip (default: the case's first GPU "
                       "backend present, else cpu)");

  std::string report_case;
  std::string report_backend;
  std::string report_output;
  CLI::App* report = app.add_subcommand(
      "report",
      "run one case and write a Markdown request for a targeted analysis, "
      "with nothing personal in it (home paths, user and host names, "
      "e-mails, secrets are scrubbed)");
  report->add_option("case", report_case,
                     "a case file, or a case id under cases/");
  std::string report_id;
  report->add_option("--id", report_id,
                     "report this case or neighbour of the file "
                     "(`case~rule[param]`); alone, a case under cases/");
  report->add_option("--backend,-b", report_backend,
                     "the backend whose runs to report (default: every "
                     "backend; the report is about the first run that "
                     "failed, else the first expected error)");
  report->add_option("-o,--output", report_output,
                     "write the report to this file (default: stdout)");
  std::string report_bundle;
  report->add_option("--bundle", report_bundle,
                     "also write the case file the report carries, its "
                     "fixtures and the report to this folder, ready to "
                     "attach (never overwrites a file)");

  std::string ops_glob;
  CLI::App* ops = app.add_subcommand(
      "ops",
      "list the operators a case can name, with their schemas: casebook's "
      "own ops (torch.*, kernels.*, validate.* and a program's registered "
      "ones), then every operator of the running LibTorch, each overload; "
      "without GLOB every one of them (thousands of lines)");
  ops->add_option("glob", ops_glob,
                  "a glob or a word on the name (softmax, torch.soft*, "
                  "aten::*_)");
  std::string new_op;
  std::string new_name;
  CLI::App* new_case = app.add_subcommand(
      "new",
      "write a case skeleton for any op `ops` lists (from its schema, or a "
      "registered op's inputs and arguments)");
  new_case
      ->add_option("op", new_op,
                   "torch.<name>, aten::<name>[.<overload>], kernels.<name>, "
                   "validate.<name>")
      ->required();
  new_case
      ->add_option("name", new_name,
                   "the case id: writes cases/<name>.yaml (or a path ending "
                   "in .yaml)")
      ->required();
  std::string show_case;
  std::string show_backend;
  bool show_full = false;
  bool show_write = false;
  CLI::App* show = app.add_subcommand(
      "show",
      "run one case on one backend and print each output: shape, dtype, "
      "strides, statistics and values, to turn a correct run into "
      "expected `outputs`");
  show->add_option("case", show_case, "a case file, or a case id under cases/")
      ->required();
  show->add_option("--backend,-b", show_backend, "cpu (default), cuda or hip");
  show->add_flag("--full", show_full,
                 "print every value (default: the first 64)");
  show->add_flag("--write-expected", show_write,
                 "append the outputs to the case file as `outputs` (a .npy "
                 "fixture with its sha256 for outputs of more than 64 "
                 "elements)");

  CaptureArguments capture_arguments;
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
      "reproduced failure");
  capture
      ->add_option("--op", capture_arguments.op,
                   "torch.<name>, aten::<name>[.<overload>], ...")
      ->required();
  capture
      ->add_option("--tensor", capture_arguments.tensors,
                   "NAME=FILE[#KEY]: an input of the op (KEY: a dict key, "
                   "a list index or a safetensors name; nested: #a.b)")
      ->required();
  capture->add_option("--arg", capture_arguments.args,
                      "KEY=VALUE: an argument of the op (YAML text)");
  capture
      ->add_option("--name", capture_arguments.name,
                   "the case's name: writes <cases>/<op>/<name>.yaml")
      ->required();
  capture->add_option("--cases", capture_arguments.cases, "the cases folder")
      ->capture_default_str();
  capture->add_option("--fixtures", capture_arguments.fixtures,
                      "the fixtures folder (default: the nearest fixtures/ "
                      "above the case, else one beside the cases folder)");
  capture->add_option("--summary", capture_arguments.summary,
                      "the case's one-line summary");
  capture->add_option("--origin", capture_arguments.origin,
                      "KEY=VALUE for the dossier: first_error, iteration, "
                      "last_completed_step, versions.NAME, data.NAME, ...");
  capture
      ->add_option("--backend,-b", capture_arguments.backends,
                   "backends to run the new case on")
      ->capture_default_str();
  capture->add_flag("--expect-failure", capture_arguments.expect_failure,
                    "exit 1 when the capture does not reproduce a failure: "
                    "every verdict PASS, or the case invalid");
  capture->add_flag("--no-run", capture_arguments.no_run,
                    "write the case without running it");
  capture->add_flag("--accept", capture_arguments.accept,
                    "write a reproduced failure into the case as its expect");
  std::string accept_case;
  std::string accept_backends = "cpu,cuda,hip";
  CLI::App* accept = app.add_subcommand(
      "accept",
      "run a captured case and, when it fails as its origin.first_error "
      "says, write that failure into it as its expect");
  accept->add_option("case", accept_case, "a case file, or a case id")
      ->required();
  accept->add_option("--backend,-b", accept_backends, "backends to run")
      ->capture_default_str();

  std::string neighbors_case;
  std::string neighbors_write;
  std::vector<std::string> neighbors_select;
  CLI::App* neighbors = app.add_subcommand(
      "neighbors",
      "list the neighbouring cases the rules can generate for a case (label "
      "limits, last batch, lengths, block boundaries, layouts, dtypes), one "
      "per line with its expected outcome; --write turns them into case "
      "files");
  neighbors->alias("neighbours");  // the README's prose spells it so
  neighbors
      ->add_option("case", neighbors_case,
                   "a case file, or a case id under cases/")
      ->required();
  neighbors->add_option("--write", neighbors_write,
                        "write the chosen neighbours as case files into this "
                        "folder (never overwriting one)");
  neighbors->add_option("--select,-s", neighbors_select,
                        "the neighbours to list and write: an id, "
                        "<rule>[<param>], a rule, or a glob (default: all)");

  if (unknown_command(app, argc, argv)) return kExitUsage;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    // --help is a "parse error" that exits 0; every real one exits 2.
    return app.exit(error) == 0 ? 0 : kExitUsage;
  }
  if (*run) return run_command(run_arguments, run_output);
  if (*list) return list_command(list_arguments);
  if (*check) return check_command(check_arguments);
  if (*test) {
    for (const std::string& extra : test->remaining()) {
      gtest_arguments.push_back(extra);
    }
    return test_command(test_arguments, gtest_arguments);
  }
  if (*explain) return explain_command(family);
  if (*ops) return ops_command(ops_glob);
  if (*capture) return capture_command(capture_arguments);
  if (*accept) return accept_command(accept_case, accept_backends);
  if (*new_case) return new_command(new_op, new_name);
  if (*diagnose) return diagnose_command(diagnose_case, diagnose_backend);
  if (*report) {
    return report_command(report_case, report_id, report_backend, report_output,
                          report_bundle);
  }
  if (*show)
    return show_command(show_case, show_backend, show_full, show_write);
  if (*neighbors) {
    return neighbors_command(neighbors_case, neighbors_write, neighbors_select);
  }
  return kExitUsage;
}

}  // namespace casebook
