// The facts a report's request holds besides the case file: the inputs as
// the op sees them, the arguments, the versions, the reproducing command.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "casebook/diagnosis.h"
#include "runner/plan.h"

namespace casebook {

// The inputs as the op sees them: dtype, shape, strides and storage offset
// of the materialised view; a spec that cannot be made keeps its written
// shape.
std::vector<ReportTensor> report_inputs(const Case& kase);

// The case's `args`, each value as a case file writes it (model::yaml_arg).
ReportPairs report_args(const Case& kase);

// What the request's "Versions" holds, from the run's environment and the
// probed backends: LibTorch (the library and its header), the chosen
// backend's runtime, driver and device (the CPU's model for cpu), its
// compute capability or gfx target where known, then the other probed
// backends. The rest of `environment` is returned in `rest`.
ReportPairs report_versions(const ReportPairs& environment,
                            const std::map<Backend, BackendStatus>& probed,
                            Backend backend, ReportPairs* rest);

// The facts PyTorch's issue template asks for (`python -m
// torch.utils.collect_env`), as casebook's run knows them, in collect_env's
// words: the PyTorch (LibTorch) version and how it was built (CUDA, ROCm),
// the OS, the compiler, Python, each GPU backend's device, runtime and
// driver, the CPU. Python ran no part of the run: it says so, and the
// Python reproduction prints the one it runs under.
ReportPairs collect_env_facts(const ReportPairs& environment,
                              const std::map<Backend, BackendStatus>& probed);

// "casebook run label_out_of_range.yaml --backend cuda", preceded on a GPU
// backend by the device and runtime variables set here (CUDA_VISIBLE_DEVICES,
// ...): the run of the file the report carries.
std::string reproduce_line(const std::string& case_file_name, Backend backend);

}  // namespace casebook
