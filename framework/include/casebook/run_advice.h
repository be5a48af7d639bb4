// The advice for one failed run: the family's (casebook/diagnosis.h) as the
// run's backend and its message make it (issue 48). LibTorch-free.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "casebook/backend.h"
#include "casebook/diagnosis.h"

namespace casebook {

// The advice for a failure of `family` seen on `backend`: a rerun that
// flips a runtime's switch names it as that backend reads it
// (CUDA_LAUNCH_BLOCKING=1 on cuda; HIP_LAUNCH_BLOCKING=1
// AMD_SERIALIZE_KERNEL=3 on hip, and AMD_LOG_LEVEL=3 where CUDA has
// compute-sanitizer) and is left out where `backend` has none (cpu);
// without a backend, once for each GPU backend ("... on hip"), which is
// advice_for(family).
FamilyAdvice advice_on(Family family, std::optional<Backend> backend);

// The text `casebook explain FAMILY [--backend B]` prints.
std::string explain_family_on(Family family, std::optional<Backend> backend);

// What a failed run showed besides its family, known without running
// anything more.
struct FailureFacts {
  Family family = Family::kNone;
  // The first line of the first error, or of the comparison that failed it.
  std::string_view message;
  std::optional<Backend> backend;  // the failing run's
  // The case's stated outputs missed, and the run agrees with the reference
  // (or is it): what disagrees with the reference is the stated outputs.
  bool stated_outputs_disagree_with_reference = false;
};

// What to check first: what `casebook diagnose` would conclude where the
// message says it (a kernel missing for a dtype: `"addmm_impl_cpu_" not
// implemented for 'Half'`; an output's shape or dtype that differs from the
// case's or the reference's; stated outputs the reference disagrees with),
// else the family's first check.
std::string first_check_for(const FailureFacts& facts);

}  // namespace casebook
