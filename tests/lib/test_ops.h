// Ops that misbehave on purpose, registered only in the test programs: they
// prove that a child that crashes, aborts, hangs or throws gets the verdict
// of that run alone, and that nothing outlives a timeout.
#pragma once

#include "casebook/ops.h"

namespace casebook::testing_support {

// testing.segfault, testing.abort, testing.hang, testing.throw,
// testing.hang_with_grandchild (args: pid_file), testing.identity.
void register_test_ops(OpRegistry& registry);

// The fault suite (registered by register_test_ops too):
// testing.allocate_until_limit, testing.flood (args: megabytes),
// testing.close_result_channel, testing.exit_without_result,
// testing.grandchild_holds_output (args: pid_file).
void register_fault_ops(OpRegistry& registry);

// register_all() plus the test ops, built once.
const OpRegistry& registry_with_test_ops();

// A single-threaded ATen: the test process forks children after using ATen,
// and an OpenMP pool started before fork() would hang them.
void use_single_thread();

}  // namespace casebook::testing_support
