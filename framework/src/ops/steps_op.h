// A case of `steps` as one op: each step resolved as a one-op case would be
// (resolve_op: a registered op, else the dispatcher's, bound by its schema),
// then run in order, each reading the case's inputs and earlier steps'
// outputs. To the child and the judge it is an op like any other: its
// outputs are the last step's, then the earlier steps' outputs the case's
// `outputs` names (`logp.0`), named so.
#pragma once

#include "casebook/ops.h"

namespace casebook {

// The case's steps as one generated op; `problems` names each step that
// does not resolve (at its file:line:col), and steps that mix host ops
// (validate.*, kernels.*) with device ops. Only for a case with steps.
ResolvedOp resolve_steps(const Case& kase, const OpRegistry& registry);

}  // namespace casebook
