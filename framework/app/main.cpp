// The casebook executable: see `casebook --help`.
#include <iostream>

#include "cli/commands.h"
#include "process/fork_rules.h"

int main(int argc, char** argv) {
  // A runner that may not fork (more than one thread, an initialised GPU
  // runtime) is an internal error, not a row of verdicts.
  try {
    return casebook::main_entry(argc, argv);
  } catch (const casebook::ForkRefused& error) {
    std::cerr << "casebook: " << error.what() << "\n";
    return 1;
  }
}
