// judge_reproduction and write_acceptance (cli/capture_run.h): is the new
// case's failure the one its origin reported, and the `expect` that keeps it.
#include <algorithm>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "casebook/case_writer.h"
#include "casebook/diagnosis.h"
#include "casebook/joined.h"
#include "casebook/loader.h"
#include "casebook/verdict.h"
#include "cli/capture_run.h"
#include "files/file_writer.h"

namespace casebook {
namespace fs = std::filesystem;
namespace {

std::string origin_entry(const Origin& origin, const std::string& key) {
  for (const auto& [name, value] : origin.entries) {
    if (name == key) return value;
  }
  return "";
}

bool ran(const JudgedRun& outcome) {
  return outcome.verdict != Verdict::kSkip &&
         outcome.verdict != Verdict::kNotRun;
}

bool passed(const JudgedRun& outcome) {
  return outcome.verdict == Verdict::kPass ||
         outcome.verdict == Verdict::kXfail;
}

// "cpu: FAIL index_out_of_range: Target 4 is out of bounds."
std::string outcome_text(const JudgedRun& outcome) {
  std::string text = std::string(backend_name(outcome.backend)) + ": " +
                     std::string(verdict_name(outcome.verdict));
  if (outcome.family != Family::kNone) {
    text += " " + std::string(family_name(outcome.family));
  }
  return outcome.message.empty() ? text : text + ": " + outcome.message;
}

// The run that decides: the origin's backend's, else the CPU's, else the
// first that ran.
const JudgedRun* deciding_run(const std::vector<const JudgedRun*>& runs,
                              Backend origin_backend) {
  for (Backend wanted : {origin_backend, Backend::kCpu}) {
    for (const JudgedRun* run : runs) {
      if (run->backend == wanted) return run;
    }
  }
  return runs.empty() ? nullptr : runs.front();
}

bool ran_on(const std::vector<const JudgedRun*>& runs, Backend backend) {
  for (const JudgedRun* run : runs) {
    if (run->backend == backend) return true;
  }
  return false;
}

void add_expectations(const std::vector<const JudgedRun*>& runs,
                      Backend origin_backend, Family origin_family,
                      Reproduction* out) {
  for (const JudgedRun* run : runs) {
    out->ran.push_back(run->backend);
    if (run->family != Family::kNone) {
      out->expect.emplace_back(run->backend, run->family);
    }
  }
  if (!ran_on(runs, origin_backend)) {
    out->expect.emplace_back(origin_backend, origin_family);
  }
}

// The failing run that decides, against origin.first_error: reproduced (as
// it is, or in its CPU form), or failing differently.
void judge_failure(const Origin& origin,
                   const std::vector<const JudgedRun*>& runs,
                   const JudgedRun& decider, Backend origin_backend,
                   Reproduction* out) {
  const std::string first_error = origin_entry(origin, "first_error");
  const Family origin_family = classify_python_error(first_error);
  const std::string origin_text = "origin (" +
                                  std::string(backend_name(origin_backend)) +
                                  "): " + first_error + " (" +
                                  std::string(family_name(origin_family)) + ")";
  std::string why;
  const OriginMatch match =
      match_origin(first_error, origin_backend, ran_on(runs, origin_backend),
                   decider.backend, decider.family, decider.message, &why);
  if (match == OriginMatch::kDiffers) {
    out->kind = Reproduction::Kind::kDiffers;
    out->sentence =
        "the capture fails differently from the failure it was "
        "captured for (" +
        why + "):\n  " + origin_text + "\n  case (" +
        std::string(backend_name(decider.backend)) + "):" +
        outcome_text(decider).substr(backend_name(decider.backend).size() + 1);
    return;
  }
  out->kind = Reproduction::Kind::kReproduced;
  const std::string gpu(backend_name(origin_backend));
  out->sentence =
      match == OriginMatch::kSame
          ? "the capture reproduces the failure: " + outcome_text(decider) +
                "\n  " + origin_text
          : "the capture reproduces the failure in its CPU form: " +
                outcome_text(decider) + ", what " + gpu +
                "'s device_assert is on the CPU (" + gpu +
                " did not run here)\n  " + origin_text;
  add_expectations(runs, origin_backend, origin_family, out);
}

}  // namespace

Reproduction judge_reproduction(const Origin& origin, const CaseRun& run) {
  Reproduction out;
  std::vector<const JudgedRun*> runs;
  for (const JudgedRun& outcome : run.outcomes) {
    if (ran(outcome)) runs.push_back(&outcome);
  }
  if (runs.empty()) {
    out.sentence =
        "the capture ran nowhere: every backend of the case is absent here";
    return out;
  }
  std::vector<const JudgedRun*> failing;
  for (const JudgedRun* outcome : runs) {
    if (!passed(*outcome)) failing.push_back(outcome);
  }
  if (failing.empty()) {
    out.kind = Reproduction::Kind::kPasses;
    out.sentence =
        "the capture does not reproduce a failure: every verdict is PASS";
    return out;
  }
  const Backend origin_backend =
      parse_backend(origin_entry(origin, "backend")).value_or(Backend::kCpu);
  const JudgedRun& decider = *deciding_run(failing, origin_backend);
  if (origin_entry(origin, "first_error").empty()) {
    out.kind = Reproduction::Kind::kUnknown;
    out.sentence = "the capture fails (" + outcome_text(decider) +
                   "); the case has no origin.first_error, so whether that "
                   "is the failure it was captured for is not known";
    return out;
  }
  judge_failure(origin, runs, decider, origin_backend, &out);
  return out;
}

std::string acceptance_refusal(const fs::path& case_file) {
  std::ifstream in(case_file);
  std::ostringstream read;
  read << in.rdbuf();
  const std::string text = read.str();
  for (const std::string key : {"expect", "backends"}) {
    if (text.rfind(key + ":", 0) == 0 ||
        text.find("\n" + key + ":") != std::string::npos) {
      return case_file.string() + " already says `" + key +
             "`: edit it by hand";
    }
  }
  return "";
}

namespace {

// What a GPU does where the CPU failed with `cpu`, where that is known: an
// index the CPU kernels refuse (index_out_of_range) is what CUDA's and HIP's
// kernels assert on (device_assert); a host-side check (contract,
// label_mapping) refuses the same inputs on every backend. kNone: unknown.
Family gpu_form_of(Family cpu) {
  switch (cpu) {
    case Family::kIndexOutOfRange:
      return Family::kDeviceAssert;
    case Family::kContract:
    case Family::kLabelMapping:
      return cpu;
    default:
      return Family::kNone;
  }
}

// The family `accept` writes for `backend`: as seen where it ran (or where
// the origin saw it); for a GPU that did not run here (a CPU machine, a CPU
// CI job), what the CPU's failure implies (`*implied` set). kNone: none.
Family accepted_family(const Reproduction& reproduction, Backend backend,
                       bool* implied) {
  Family on_cpu = Family::kNone;
  for (const auto& [where, family] : reproduction.expect) {
    if (where == backend) return family;
    if (where == Backend::kCpu) on_cpu = family;
  }
  const auto& ran = reproduction.ran;
  if (!is_gpu(backend) ||
      std::find(ran.begin(), ran.end(), backend) != ran.end()) {
    return Family::kNone;
  }
  *implied = gpu_form_of(on_cpu) != Family::kNone;
  return gpu_form_of(on_cpu);
}

// The block `accept` appends: each backend's expectation, and the backends
// kept when one was not seen failing here.
std::string acceptance_block(const Case& kase,
                             const Reproduction& reproduction) {
  std::map<Backend, std::vector<Expectation>> accepted;
  std::vector<Backend> kept;
  std::vector<std::string_view> left_out;
  std::vector<std::string_view> implied;
  for (Backend backend : kase.backends) {
    bool derived = false;
    Expectation error;
    error.kind = Expectation::Kind::kError;
    error.family = accepted_family(reproduction, backend, &derived);
    if (error.family == Family::kNone) {
      left_out.push_back(backend_name(backend));
      continue;
    }
    accepted[backend] = {error};
    kept.push_back(backend);
    if (derived) implied.push_back(backend_name(backend));
  }
  std::string block = "# accepted: the failure of origin.first_error\n";
  if (!implied.empty()) {
    block += "# " + joined(implied) +
             ": not run here; expected as the cpu failure implies\n";
  }
  block += expect_to_yaml(accepted);
  if (!left_out.empty()) {
    // A backend without an expectation would compare with a reference that
    // raised: an ERROR there, not a regression case.
    block += "# not seen failing here: " + joined(left_out) +
             "; add them with their expect where they run\n" +
             backends_to_yaml(kept);
  }
  return block;
}

}  // namespace

bool write_acceptance(const fs::path& case_file, const Case& kase,
                      const Reproduction& reproduction, std::string* why) {
  if (reproduction.kind != Reproduction::Kind::kReproduced) {
    *why = "the failure is not reproduced, so there is nothing to accept";
    return false;
  }
  const std::string block = acceptance_block(kase, reproduction);
  try {
    // The lock first (files/file_writer.h): a second `accept` or `show
    // --write-expected` of this case is refused, not interleaved; the file
    // is read under it.
    const OpenFolder folder = OpenFolder::open(case_file.parent_path(), false);
    FileBeingWritten out(folder, case_file.filename().string());
    *why = acceptance_refusal(case_file);
    if (!why->empty()) return false;
    std::ifstream in(case_file);
    std::ostringstream read;
    read << in.rdbuf();
    const std::string original = read.str();
    const std::string text =
        original + (original.empty() || original.back() == '\n' ? "" : "\n") +
        block;
    if (!load_case_text(text, case_file).ok()) {
      *why = "the accepted case would not load; " + case_file.string() +
             " left as it was";
      return false;
    }
    out.write(text);
    out.commit(OnExisting::kReplace);
  } catch (const WriteError& error) {
    *why = std::string(error.what()) + "; " + case_file.string() +
           " left as it was";
    return false;
  }
  std::cout << "accepted into " << case_file.string() << ":\n" << block;
  return true;
}

}  // namespace casebook
