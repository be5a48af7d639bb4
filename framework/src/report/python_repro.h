// The Python reproduction a report carries: a script a PyTorch developer
// runs as it is, with nothing of casebook installed. It rebuilds the case's
// inputs (their values inline up to kInlineFixtureElements elements, else
// `np.load` of a .npy the bundle carries), calls the op as PyTorch spells it
// on the chosen run's device, prints what it returns and checks it as the
// case does, so that it ends as casebook's run did. Not scrubbed here:
// scrub_report does.
#pragma once

#include <ATen/core/Tensor.h>

#include <string>
#include <vector>

#include "casebook/case.h"
#include "casebook/ops.h"

namespace casebook {

// A .npy file the script loads that the case does not carry as a fixture:
// `file` is its path relative to the bundle ("inputs/logits.npy"),
// `values` what `--bundle` writes there (write_npy).
struct PythonInputFile {
  std::string file;
  at::Tensor values;
};

struct PythonReproduction {
  std::string script;
  std::vector<PythonInputFile> files;
};

// The exit status of a script that calls nothing: the case's op has no
// public PyTorch function (casebook's own kernels.* and validate.* ops), it
// is a case of `steps`, or the run is skipped; the script says which.
constexpr int kNoPythonCall = 3;

// The script of `kase`'s run on `backend`: the op's public PyTorch function
// (torch.X, torch.nn.functional.X, torch.Tensor.X_ for an in-place op,
// torch.ops.aten for an `aten::` op), its inputs by the names that function
// takes, whatever their order in the case; then what casebook checks of
// that run (`expected`: its expectation there): the error it expects (its
// family and `message`), or each output entry's shape, dtype, finite, nan,
// min, max, mean, std and values, and the reference. It ends as casebook's
// run did: exit 0 where every check holds, 1 where one fails (or the call
// raises an error the case does not expect); the error a case expects is
// raised again after a line saying so (a reproduction shows it as PyTorch
// does); kNoPythonCall where it calls nothing. `op`: the op the
// case resolved to (null where it does not resolve). `seen`: what
// casebook's run gave ("index_out_of_range: Target 4 is out of bounds."),
// said in the script's header. An input that cannot be made here is named
// in a comment, not rebuilt.
PythonReproduction python_reproduction(const Case& kase, const OpDef* op,
                                       const Expectation& expected,
                                       Backend backend,
                                       const std::string& seen);

}  // namespace casebook
