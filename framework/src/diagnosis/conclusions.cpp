#include "diagnosis/conclusions.h"

#include <cctype>

#include "casebook/joined.h"

namespace casebook {
namespace {

// The first line with every run of digits (and the points inside a
// number) as '#': the counts and values a rerun changes do not make
// another failure.
std::string masked(const std::string& message) {
  const std::string line = message.substr(0, message.find('\n'));
  std::string out;
  for (size_t i = 0; i < line.size(); ++i) {
    const bool digit = std::isdigit(static_cast<unsigned char>(line[i])) != 0;
    const bool inner_point =
        line[i] == '.' && i > 0 && i + 1 < line.size() &&
        std::isdigit(static_cast<unsigned char>(line[i - 1])) &&
        std::isdigit(static_cast<unsigned char>(line[i + 1]));
    if (digit || inner_point) {
      if (out.empty() || out.back() != '#') out += '#';
    } else {
      out += line[i];
    }
  }
  return out;
}

std::string outcome_text(const RunOutcome& outcome) {
  if (outcome.matched) return "the outputs match the reference";
  return std::string(family_name(outcome.family)) + ": " +
         outcome.message.substr(0, outcome.message.find('\n'));
}

bool is_precision_family(Family family) {
  return family == Family::kMismatch || family == Family::kNanOrInf;
}

std::string with_detail(const Rerun& rerun) {
  return rerun.detail.empty() ? std::string() : " (" + rerun.detail + ")";
}

// A rerun that passed where the first run failed.
std::string passes_finding(const RunOutcome& first, const Rerun& rerun,
                           const std::string& backend) {
  switch (rerun.change) {
    case RerunKind::kFloat32:
    case RerunKind::kFloat64: {
      const std::string dtype =
          rerun.change == RerunKind::kFloat32 ? "float32" : "float64";
      if (first.family == Family::kOpUnavailable) {
        return "the kernel is missing for the case's dtype on " + backend +
               ": in " + dtype + with_detail(rerun) +
               " the op runs and matches (a missing kernel, not precision)";
      }
      if (is_precision_family(first.family)) {
        return "the outcome depends on the precision: in " + dtype +
               with_detail(rerun) +
               " the outputs match (rounding, accumulation or overflow in "
               "the case's dtype)";
      }
      return "in " + dtype + with_detail(rerun) +
             " the run passes: the failure depends on the floating inputs' "
             "dtype";
    }
    case RerunKind::kContiguous:
      return "with every input contiguous the run passes: the op mishandles "
             "strides, a storage offset or a non-contiguous layout";
    case RerunKind::kCpu:
      if (first.family == Family::kOpUnavailable) {
        return "the CPU has the op: only " + backend + " lacks it";
      }
      return "the same case passes on the CPU: the " + backend +
             " path differs (a hint where to look, not a validation of the " +
             backend + " run)";
    case RerunKind::kLaunchBlocking:
      return "with blocking launches the run passes: the failure depends on "
             "asynchronous execution";
    case RerunKind::kValidIndices:
      return "with every index in range" + with_detail(rerun) +
             " the run passes: the data is at fault (the out-of-range "
             "values), not the kernel";
    case RerunKind::kMemcheck:
      break;
  }
  return "";
}

}  // namespace

std::string rerun_change_name(RerunKind change) {
  switch (change) {
    case RerunKind::kLaunchBlocking:
      return "launch blocking";
    case RerunKind::kCpu:
      return "cpu";
    case RerunKind::kFloat32:
      return "float32";
    case RerunKind::kFloat64:
      return "float64";
    case RerunKind::kContiguous:
      return "contiguous";
    case RerunKind::kValidIndices:
      return "valid indices";
    case RerunKind::kMemcheck:
      return "memcheck";
  }
  return "";
}

RerunReading read_rerun(const RunOutcome& first, const RunOutcome& rerun) {
  if (!rerun.ran || !first.ran) return RerunReading::kNotRun;
  if (first.matched) {
    return rerun.matched ? RerunReading::kSame : RerunReading::kBreaks;
  }
  if (rerun.matched) return RerunReading::kPasses;
  if (rerun.family == first.family &&
      masked(rerun.message) == masked(first.message)) {
    return RerunReading::kSame;
  }
  return RerunReading::kChanged;
}

RerunConclusion conclude_rerun(const RunOutcome& first, const Rerun& rerun,
                               const std::string& backend) {
  RerunConclusion conclusion;
  conclusion.reading = read_rerun(first, rerun.outcome);
  const std::string name = rerun_change_name(rerun.change);
  if (rerun.change == RerunKind::kMemcheck) {
    // What memcheck saw of this run, whatever the first run did.
    if (conclusion.reading == RerunReading::kNotRun) return conclusion;
    conclusion.reading =
        rerun.outcome.matched ? RerunReading::kSame : RerunReading::kChanged;
    conclusion.finding =
        rerun.outcome.matched
            ? "memcheck saw no invalid access in this run"
            : "memcheck saw invalid accesses: " + rerun.outcome.message;
    return conclusion;
  }
  switch (conclusion.reading) {
    case RerunReading::kNotRun:
      break;
    case RerunReading::kPasses:
      conclusion.finding = passes_finding(first, rerun, backend);
      break;
    case RerunReading::kSame:
      // The index values replaced and the same failure: they were not its
      // cause alone.
      if (rerun.change == RerunKind::kValidIndices) {
        conclusion.finding =
            "with every index in range" + with_detail(rerun) +
            " it still fails the same way: the out-of-range values are not "
            "the cause alone; look at the kernel and the other inputs";
      }
      break;
    case RerunReading::kChanged:
      conclusion.finding = name + with_detail(rerun) +
                           " changed the failure without removing it: first " +
                           outcome_text(first) + "; now " +
                           outcome_text(rerun.outcome);
      if (rerun.change == RerunKind::kValidIndices) {
        conclusion.finding +=
            " (the out-of-range values caused the first failure; another "
            "problem remains)";
      }
      break;
    case RerunReading::kBreaks:
      conclusion.finding =
          name + with_detail(rerun) +
          " makes a run that matched fail: " + outcome_text(rerun.outcome);
      break;
  }
  return conclusion;
}

std::vector<std::string> conclude(const RunOutcome& first,
                                  const std::vector<Rerun>& reruns,
                                  const std::string& backend) {
  if (!first.ran)
    return {"the case did not run as written: nothing to compare"};
  std::vector<std::string> lines;
  if (first.matched) {
    lines.push_back("as written the outputs match the reference on " + backend +
                    ": there is no failure to explain");
  }
  std::vector<std::string> unchanged;
  std::vector<std::string> could_not;
  int ran = 0;
  int not_run = 0;
  for (const Rerun& rerun : reruns) {
    const RerunConclusion conclusion = conclude_rerun(first, rerun, backend);
    const std::string name = rerun_change_name(rerun.change);
    if (conclusion.reading == RerunReading::kNotRun) {
      ++not_run;
      could_not.push_back(name);
      continue;
    }
    ++ran;
    if (!conclusion.finding.empty()) {
      lines.push_back(conclusion.finding);
    } else {
      unchanged.push_back(name);
    }
  }
  const bool found = lines.size() > (first.matched ? 1u : 0u);
  if (!found && !first.matched) {
    lines.push_back(ran == 0 ? "no rerun could run here"
                             : "none of the " + std::to_string(ran) +
                                   " reruns that ran changed the outcome (" +
                                   joined(unchanged) + ")");
  }
  if (not_run > 0) {
    lines.push_back(std::to_string(not_run) +
                    (not_run == 1 ? " rerun" : " reruns") +
                    " could not run here (" + joined(could_not) + ") and " +
                    (not_run == 1 ? "says" : "say") + " nothing either way");
  }
  return lines;
}

}  // namespace casebook
