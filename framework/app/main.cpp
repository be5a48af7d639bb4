// The casebook executable: see `casebook --help`.
#include "cli/commands.h"

int main(int argc, char** argv) { return casebook::main_entry(argc, argv); }
