// The options that `run`, `list` and `test` share (cli/command_line.h).
#include <CLI/CLI.hpp>
#include <iostream>

#include "casebook/printable.h"
#include "casebook/suggestions.h"
#include "cli/command_line.h"
#include "cli/commands.h"

namespace casebook {

void add_common_options(CLI::App* command, CommonArguments* arguments) {
  command->add_option("paths", arguments->paths,
                      "case files and folders (default: cases/)");
  command
      ->add_option("--backend,-b", arguments->backends,
                   "backends to run: a list of " + backend_names() +
                       " (cpu always runs as the reference)")
      ->capture_default_str();
  command->add_option("--filter,-f", arguments->filters,
                      "a glob on the case id, `<id>/<backend>` or the file "
                      "path; a plain word matches as a substring. Repeat it: "
                      "a run matching any is selected; one that selects "
                      "nothing is an error");
  // No short form: `-x` is --fail-fast, as in pytest (a `-x NAME` meant to
  // stop at the first failure must not leave NAME's cases out).
  command->add_option("--exclude", arguments->excludes,
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
      "backends that must run: a list of " + backend_names() +
          "; one of them that is absent (no device, no runtime) is an ERROR, "
          "not a SKIP (also $CASEBOOK_REQUIRE)");
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

void add_evidence_option(CLI::App* command, CommonArguments* arguments) {
  command
      ->add_option("--evidence", arguments->evidence,
                   "folder for the evidence of failing mismatches (inputs, "
                   "reference and actual outputs as .npy, the worst "
                   "elements, the seeds); '' writes none")
      ->capture_default_str();
}

std::optional<Backend> parse_backend_option(const std::string& command,
                                            const std::string& name) {
  const std::optional<Backend> backend = parse_backend(name);
  if (!backend) {
    std::cerr << "casebook " << command << ": --backend: expected "
              << backend_alternatives() << "; got `" << printable_line(name)
              << "`" << did_you_mean(suggest_backends(name)) << "\n";
  }
  return backend;
}

}  // namespace casebook
