// How `casebook`'s command line is put together: main_entry adds one command
// after another, and each command's file says its options (CLI11) beside what
// the command does. Adding a command is one `add_<command>` in its file, its
// declaration here and one line in main_entry.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "casebook/backend.h"

namespace CLI {
class App;
}

namespace casebook {

struct CommonArguments;

// A command added to the command line: `parser` is its CLI11 subcommand
// (true once parsed), `run` what it does with the parsed arguments, giving
// the exit status. `run` holds the arguments the parser writes into.
struct Command {
  CLI::App* parser = nullptr;
  std::function<int()> run;
};

// The options `run`, `list` and `test` share: paths, --backend, --filter,
// --exclude, --allow-skipped, --id, --jobs, --require, --shard,
// --allow-links-outside, --isolation.
void add_common_options(CLI::App* command, CommonArguments* arguments);
// --evidence, of `run` and `test`.
void add_evidence_option(CLI::App* command, CommonArguments* arguments);

// `--backend NAME` of a command that runs on one backend (`show`, `report`,
// `diagnose`): the backend, or nullopt after saying on stderr "casebook
// <command>: --backend: expected cpu, cuda or hip; got `x`" (every backend
// known, registered ones too), with a did-you-mean.
std::optional<Backend> parse_backend_option(const std::string& command,
                                            const std::string& name);

// One per command, in the order `casebook --help` lists them. Each adds the
// command with its help text and options to `app`.
Command add_run(CLI::App& app);        // cli/run_command.cpp
Command add_list(CLI::App& app);       // cli/list_command.cpp
Command add_check(CLI::App& app);      // cli/check_command.cpp
Command add_test(CLI::App& app);       // cli/test_command.cpp
Command add_explain(CLI::App& app);    // cli/explain_command.cpp
Command add_diagnose(CLI::App& app);   // cli/diagnose_command.cpp
Command add_report(CLI::App& app);     // cli/report_command.cpp
Command add_ops(CLI::App& app);        // cli/ops_command.cpp
Command add_describe(CLI::App& app);   // cli/describe_command.cpp
Command add_new(CLI::App& app);        // cli/ops_command.cpp
Command add_show(CLI::App& app);       // cli/show_command.cpp
Command add_capture(CLI::App& app);    // cli/capture_command.cpp
Command add_accept(CLI::App& app);     // cli/accept_command.cpp
Command add_reduce(CLI::App& app);     // cli/reduce_command.cpp
Command add_neighbors(CLI::App& app);  // cli/neighbors_command.cpp

}  // namespace casebook
