#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>

#include "casebook/limits.h"
#include "casebook/loader.h"
#include "casebook/printable.h"
#include "casebook/suggestions.h"
#include "casebook/verdict.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "process/interrupts.h"

namespace casebook {
namespace {

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
  std::cerr << "casebook: unknown command `" << printable_line(given) << "`"
            << did_you_mean(nearest_name(given, names))
            << " (casebook --help lists them)\n";
  return true;
}

// The names of the verdicts that keep the exit status 0 (`success`) or not,
// from the verdict rows (casebook/verdict_list.h): "PASS, XFAIL or SKIP".
std::string verdicts_whose_success_is(bool success) {
  std::vector<std::string_view> names;
#define CASEBOOK_VERDICT_NAME(enumerator, name, keeps_zero, colour, junit) \
  if (keeps_zero == success) names.push_back(name);
  CASEBOOK_FOR_EACH_VERDICT(CASEBOOK_VERDICT_NAME)
#undef CASEBOOK_VERDICT_NAME
  std::string text;
  for (size_t i = 0; i < names.size(); ++i) {
    text += i == 0 ? "" : i + 1 == names.size() ? " or " : ", ";
    text += names[i];
  }
  return text;
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
      "every verdict is " +
      verdicts_whose_success_is(true) + "; 1 when any is " +
      verdicts_whose_success_is(false) +
      "; 2 for a usage or configuration error "
      "(a selection that selects nothing included); 77 when every selected "
      "run was SKIP (nothing tested; --allow-skipped: 0)."};
  app.require_subcommand(1);
  // CLI11's own messages quote the arguments they refuse: made printable.
  app.failure_message([](const CLI::App* failed, const CLI::Error& error) {
    return printable_text(CLI::FailureMessage::simple(failed, error));
  });
  // In the order `casebook --help` lists them (a braced list is evaluated
  // left to right).
  const std::vector<Command> commands = {
      add_run(app),      add_list(app),     add_check(app),    add_test(app),
      add_explain(app),  add_diagnose(app), add_report(app),   add_ops(app),
      add_describe(app), add_new(app),      add_show(app),     add_capture(app),
      add_accept(app),   add_reduce(app),   add_neighbors(app)};

  if (unknown_command(app, argc, argv)) return kExitUsage;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    // --help is a "parse error" that exits 0; every real one exits 2.
    return app.exit(error) == 0 ? 0 : kExitUsage;
  }
  // A limit set to what does not read is a configuration error, before any
  // command: ignored, it would leave the default in force without a word.
  const std::vector<std::string> unread = limit_variable_errors();
  for (const std::string& error : unread) {
    std::cerr << "casebook: " << error << "\n";
  }
  if (!unread.empty()) return kExitUsage;
  for (const Command& command : commands) {
    if (*command.parser) return command.run();
  }
  return kExitUsage;
}

}  // namespace casebook
