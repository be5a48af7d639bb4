// The facts of a report's request: the inputs as the op sees them, the
// arguments, the versions, and the command that reruns the carried file.
#include "report/request.h"

#include <cstdlib>
#include <optional>

#include "model/yaml_text.h"
#include "runner/rerun.h"
#include "tensors/materialise.h"

namespace casebook {

std::vector<ReportTensor> report_inputs(const Case& kase) {
  std::vector<ReportTensor> inputs;
  for (size_t i = 0; i < kase.inputs.size(); ++i) {
    const TensorSpec& spec = kase.inputs[i];
    const std::optional<size_t> target = alias_target(kase.inputs, i);
    if (target && *target < inputs.size()) {  // the target's tensor itself
      ReportTensor same = inputs[*target];
      same.name = spec.name;
      inputs.push_back(std::move(same));
      continue;
    }
    ReportTensor tensor;
    tensor.name = spec.name;
    tensor.dtype = std::string(dtype_name(spec.dtype));
    tensor.shape = spec.shape;
    try {
      const at::Tensor view = materialise(spec).view;
      if (auto dtype = to_dtype(view.scalar_type())) {
        tensor.dtype = std::string(dtype_name(*dtype));
      }
      tensor.shape = view.sizes().vec();
      tensor.strides = view.strides().vec();
      tensor.storage_offset = view.storage_offset();
    } catch (const std::exception&) {
      // The run's own message says why; the table shows what was written.
    }
    inputs.push_back(std::move(tensor));
  }
  return inputs;
}

ReportPairs report_args(const Case& kase) {
  ReportPairs args;
  for (const auto& [name, value] : kase.args) {
    args.emplace_back(name, model::yaml_arg(value));
  }
  return args;
}

ReportPairs report_versions(const ReportPairs& environment,
                            const std::map<Backend, BackendStatus>& probed,
                            Backend backend, ReportPairs* rest) {
  ReportPairs versions;
  std::string cpu_model;
  std::string cpu_vector;
  for (const auto& [key, value] : environment) {
    if (key == "libtorch.library" || key == "libtorch") {
      versions.emplace_back(key, value);
    } else if (parse_backend(key)) {
      // Each probed backend's line comes after the chosen one's.
    } else {
      if (key == "cpu.model") cpu_model = value;
      if (key == "cpu.vector") cpu_vector = value;
      rest->emplace_back(key, value);
    }
  }
  const std::string name(backend_name(backend));
  if (!is_gpu(backend)) {
    versions.emplace_back(
        "device", "CPU: " + cpu_model +
                      (cpu_vector.empty() ? "" : " (" + cpu_vector + ")"));
  }
  for (const auto& [each, status] : probed) {
    if (each != backend) continue;
    versions.emplace_back(
        name, status.ready() ? status.description
                             : std::string(readiness_name(status.state)) +
                                   ": " + status.reason);
    for (const char* fact : {"capability", "gfx"}) {
      const auto found = status.facts.find(fact);
      if (found == status.facts.end()) continue;
      versions.emplace_back(std::string(fact) == "capability"
                                ? "compute capability"
                                : "gfx target",
                            found->second);
    }
  }
  for (const auto& [each, status] : probed) {
    if (each == backend) continue;
    versions.emplace_back(
        std::string(backend_name(each)),
        status.ready()
            ? status.description
            : std::string(readiness_name(status.state)) + ": " + status.reason);
  }
  return versions;
}

ReportPairs collect_env_facts(const ReportPairs& environment,
                              const std::map<Backend, BackendStatus>& probed) {
  std::map<std::string, std::string> facts(environment.begin(),
                                           environment.end());
  const auto fact = [&](const std::string& key) {
    const auto found = facts.find(key);
    return found == facts.end() ? std::string("not recorded") : found->second;
  };
  const std::map<std::string, std::string> built =
      condition_facts(fact("libtorch"));
  const auto built_with = [&](const char* key, const char* none) {
    const auto found = built.find(key);
    return found == built.end() ? std::string(none) : found->second;
  };
  ReportPairs out;
  out.emplace_back("PyTorch version", facts.count("libtorch.library")
                                          ? fact("libtorch.library")
                                          : fact("libtorch"));
  out.emplace_back("CUDA used to build PyTorch", built_with("cuda", "None"));
  out.emplace_back("ROCM used to build PyTorch", built_with("hip", "N/A"));
  out.emplace_back("OS", fact("os.name") + " (" + fact("os.machine") + ")");
  out.emplace_back("Kernel", fact("os.kernel"));
  out.emplace_back("Compiler (casebook's build)", fact("build.compiler"));
  out.emplace_back("Python version",
                   "none in this run (casebook runs LibTorch from C++); the "
                   "Python reproduction prints its own");
  for (const auto& [backend, status] : probed) {
    const std::string name(backend_name(backend));
    out.emplace_back("Is " + name + " available",
                     status.ready() ? "True" : "False");
    out.emplace_back(
        name + " device, runtime and driver",
        status.ready()
            ? status.description
            : std::string(readiness_name(status.state)) + ": " + status.reason);
  }
  out.emplace_back("CPU", fact("cpu.model"));
  out.emplace_back("casebook", fact("casebook.version") + " (" +
                                   fact("casebook.revision") + ")");
  return out;
}

std::string reproduce_line(const std::string& case_file_name, Backend backend) {
  std::string line;
  // The CPU's runs read none of them.
  if (is_gpu(backend)) {
    for (const std::string& name : rerun_environment_names()) {
      if (const char* value = std::getenv(name.c_str())) {
        line += name + "=" + shell_word(value) + " ";
      }
    }
  }
  return line + "casebook run " + shell_word(case_file_name) + " --backend " +
         std::string(backend_name(backend));
}

}  // namespace casebook
