#include "casebook/main.h"
#include "casebook/op_catalog.h"
#include "cli/commands.h"

namespace casebook {

int main_with_ops(int argc, char** argv, void (*registration)(OpRegistry&)) {
  add_op_registration(registration);
  return main_entry(argc, argv);
}

}  // namespace casebook
