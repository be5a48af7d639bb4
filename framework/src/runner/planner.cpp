#include "runner/planner.h"

#include <algorithm>
#include <filesystem>

#include "runner/rerun.h"

namespace casebook {
namespace {

bool contains(const std::vector<Backend>& backends, Backend backend) {
  return std::find(backends.begin(), backends.end(), backend) != backends.end();
}

std::string required_but_absent(const std::string& reason) {
  return "required (--require, $CASEBOOK_REQUIRE) but absent: " + reason;
}

// The GPU backends of `planned` that run: selected, expected neither to skip
// nor missing an expectation, and ready for the case's op.
std::vector<Backend> gpu_runs_of(
    const Plan& plan, const std::map<Backend, BackendStatus>& readiness,
    const PlannedCase& planned, const Selection& selected) {
  std::vector<Backend> gpu_runs;
  for (Backend backend : planned.reported) {
    if (!is_gpu(backend) || !selected(planned, backend)) continue;
    const Expectation expectation = expectation_in_run(plan, planned, backend);
    if (expectation.kind == Expectation::Kind::kSkip) continue;
    if (!expectation.missing.empty()) continue;  // its ERROR, unrun
    const std::optional<PartReadiness> part =
        readiness_for_case(readiness, planned, backend);
    if (!part || !part->ready()) continue;
    gpu_runs.push_back(backend);
  }
  return gpu_runs;
}

}  // namespace

std::vector<Backend> backends_to_probe(const Plan& plan,
                                       const Selection& selected,
                                       const std::vector<Backend>& required) {
  std::vector<Backend> wanted;
  for (const PlannedCase& planned : plan.cases) {
    if (!planned.runnable()) continue;
    for (Backend backend : planned.reported) {
      if (!is_gpu(backend) || contains(wanted, backend) ||
          !selected(planned, backend)) {
        continue;
      }
      // A skip that may not hold once the device's facts are known
      // (`when: {capability: ...}`) still wants the probe.
      if (planned.value().expectation(backend).kind !=
              Expectation::Kind::kSkip ||
          reads_device_facts(planned.value(), backend)) {
        wanted.push_back(backend);
      }
    }
  }
  for (Backend backend : required) {
    if (is_gpu(backend) && !contains(wanted, backend)) {
      wanted.push_back(backend);
    }
  }
  return wanted;
}

Expectation expectation_in_run(const Plan& plan, const PlannedCase& planned,
                               Backend backend) {
  const Case& kase = planned.value();
  const auto device = plan.device_facts.find(backend);
  if (device == plan.device_facts.end() || !reads_device_facts(kase, backend)) {
    return kase.expectation(backend);
  }
  EnvironmentFacts facts = plan.host_facts;
  facts.insert(device->second.begin(), device->second.end());
  return expectation_for(kase, backend, facts).value_or(Expectation{});
}

void apply_required(const std::vector<Backend>& required,
                    std::map<Backend, BackendStatus>* statuses) {
  for (auto& [backend, status] : *statuses) {
    if (!contains(required, backend)) continue;
    if (status.state == Readiness::kAbsent) {
      status.state = Readiness::kBroken;
      status.reason = required_but_absent(status.reason);
    }
    for (PartReadiness* part : {&status.torch, &status.kernels}) {
      if (part->state == Readiness::kAbsent) {
        part->state = Readiness::kBroken;
        part->reason = required_but_absent(part->reason);
      }
    }
  }
}

std::optional<PartReadiness> readiness_for_case(
    const std::map<Backend, BackendStatus>& readiness,
    const PlannedCase& planned, Backend backend) {
  const auto found = readiness.find(backend);
  if (!is_gpu(backend) || found == readiness.end() || planned.op == nullptr) {
    return std::nullopt;
  }
  const BackendStatus& status = found->second;
  // An absent or broken backend speaks for all of it: every run is a skip
  // with its reason, or an error (a broken install is never half run).
  if (!status.ready()) return whole_backend(status);
  return part_readiness(status, backend, *planned.op);
}

PairInRun pair_in_run(const Plan& plan,
                      const std::map<Backend, BackendStatus>& readiness,
                      const PlannedCase& planned, Backend backend) {
  PairInRun pair;
  if (planned.loaded.value) {
    pair.expect = expectation_in_run(plan, planned, backend);
  }
  const auto found = readiness.find(backend);
  if (is_gpu(backend) && found != readiness.end()) {
    const PartReadiness whole = whole_backend(found->second);
    pair.backend_absent = whole.state == Readiness::kAbsent;
    pair.needed =
        readiness_for_case(readiness, planned, backend).value_or(whole);
  }
  return pair;
}

PairInRun pair_as_loaded(const PlannedCase& planned, Backend backend) {
  PairInRun pair;
  if (planned.loaded.value) pair.expect = planned.value().expectation(backend);
  return pair;
}

JobPlan plan_jobs(Plan& plan, const std::map<Backend, BackendStatus>& readiness,
                  const Selection& selected) {
  JobPlan out;
  for (size_t position = 0; position < plan.cases.size(); ++position) {
    PlannedCase& planned = plan.cases[position];
    // Set anew: planning the same plan twice gives the same jobs.
    planned.jobs.clear();
    bool any = false;
    for (Backend backend : planned.reported) any |= selected(planned, backend);
    if (!any) continue;
    out.order.push_back(position);
    if (!planned.runnable()) continue;
    const Case& kase = planned.value();
    planned.table_index = out.table.cases.size();
    out.table.cases.push_back(&kase);
    out.table.ops.push_back(planned.op);
    auto add_job = [&](Backend backend, JobKind kind) {
      Job job;
      job.case_position = position;
      job.backend = backend;
      job.kind = kind;
      planned.jobs.push_back(out.jobs.size());
      out.jobs.push_back(std::move(job));
    };
    const std::vector<Backend> gpu_runs =
        gpu_runs_of(plan, readiness, planned, selected);
    // The CPU runs when it is judged itself or when it is the reference of a
    // GPU run; a cuda-only lane on a machine without CUDA runs nothing.
    const bool cpu_judged = contains(planned.reported, Backend::kCpu) &&
                            selected(planned, Backend::kCpu);
    const bool any_run = cpu_judged || !gpu_runs.empty();
    if (any_run && kase.reference == Case::Reference::kCpu64) {
      add_job(Backend::kCpu, JobKind::kReferenceCpu64);
    } else if (any_run && kase.reference == Case::Reference::kTorch) {
      add_job(Backend::kCpu, JobKind::kReferenceTorch);
    }
    const long cpu_reference =
        planned.jobs.empty() ? -1 : static_cast<long>(planned.jobs.back());
    if (cpu_judged ||
        (!gpu_runs.empty() && kase.reference == Case::Reference::kCpu)) {
      add_job(Backend::kCpu, JobKind::kRun);
      // One fork, not two: the reference and the run are both the CPU's.
      if (cpu_reference >= 0) {
        out.jobs[cpu_reference].then_job =
            static_cast<long>(out.jobs.size() - 1);
        out.jobs.back().second = true;
      }
    }
    for (Backend backend : gpu_runs) add_job(backend, JobKind::kRun);
  }
  return out;
}

const Job* find_job(const std::vector<Job>& jobs, const PlannedCase& planned,
                    Backend backend, JobKind kind) {
  for (size_t index : planned.jobs) {
    if (jobs[index].backend == backend && jobs[index].kind == kind) {
      return &jobs[index];
    }
  }
  return nullptr;
}

const Job* reference_job(const std::vector<Job>& jobs,
                         const PlannedCase& planned) {
  if (!planned.runnable()) return nullptr;
  const Case::Reference reference = planned.value().reference;
  const JobKind kind =
      reference == Case::Reference::kCpu64   ? JobKind::kReferenceCpu64
      : reference == Case::Reference::kTorch ? JobKind::kReferenceTorch
                                             : JobKind::kRun;
  return find_job(jobs, planned, Backend::kCpu, kind);
}

std::vector<CaseVerdict> not_run_verdicts(const Plan& plan,
                                          const std::vector<size_t>& order,
                                          const Selection& selected,
                                          const RunOptions& options,
                                          const std::vector<size_t>& jobs_left,
                                          int signal) {
  std::vector<CaseVerdict> verdicts;
  for (size_t position : order) {
    const PlannedCase& planned = plan.cases[position];
    if (!planned.runnable() || jobs_left[position] == 0) continue;
    for (Backend backend : planned.reported) {
      if (!selected(planned, backend)) continue;
      CaseVerdict verdict;
      verdict.case_id = planned.loaded.id;
      verdict.backend = backend;
      verdict.file = planned.loaded.file;
      verdict.verdict = Verdict::kNotRun;
      verdict.message =
          "not run: interrupted by signal " + std::to_string(signal);
      verdict.rerun_command = rerun_line(planned, backend, options);
      verdicts.push_back(std::move(verdict));
    }
  }
  return verdicts;
}

void order_verdicts(const Plan& plan, std::vector<CaseVerdict>* verdicts) {
  std::map<std::string, size_t> rank;
  auto key = [](const std::filesystem::path& file, const std::string& id) {
    return file.string() + '\n' + id;
  };
  for (size_t i = 0; i < plan.cases.size(); ++i) {
    rank.emplace(key(plan.cases[i].loaded.file, plan.cases[i].loaded.id), i);
  }
  std::stable_sort(verdicts->begin(), verdicts->end(),
                   [&rank, &key](const CaseVerdict& a, const CaseVerdict& b) {
                     const size_t ra = rank[key(a.file, a.case_id)];
                     const size_t rb = rank[key(b.file, b.case_id)];
                     return ra != rb ? ra < rb : a.backend < b.backend;
                   });
}

}  // namespace casebook
