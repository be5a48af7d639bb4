// The Python reproduction a report carries: a script a PyTorch developer
// runs as it is, with nothing of casebook installed. It rebuilds the case's
// inputs (their values inline up to kInlineFixtureElements elements, else
// `np.load` of a .npy the bundle carries), calls the op as PyTorch spells it
// on the chosen run's device, prints what it returns and checks it as the
// case does (its expected values, or the CPU reference), so that it raises
// the run's error or fails its check. Not scrubbed here: scrub_report does.
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

// The script of `kase`'s run on `backend`. `op`: the op the case resolved to
// (null where it does not resolve; the script then rebuilds the inputs and
// says so). `seen`: what casebook's run gave ("index_out_of_range: Target 4
// is out of bounds."), said in the script's header. An input that cannot be
// made here is named in a comment, not rebuilt.
PythonReproduction python_reproduction(const Case& kase, const OpDef* op,
                                       Backend backend,
                                       const std::string& seen);

}  // namespace casebook
