#include "runner/evidence.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <memory>
#include <sstream>

#include "casebook/joined.h"
#include "casebook/limits.h"
#include "casebook/shape_text.h"
#include "compare/compare.h"
#include "files/file_writer.h"
#include "runner/judge.h"
#include "tensors/fixtures.h"
#include "tensors/materialise.h"

namespace casebook {
namespace fs = std::filesystem;
namespace {

std::string number(double value) {
  std::ostringstream out;
  out << std::setprecision(9) << value;
  return out.str();
}

std::string fill_text(const Fill& fill) {
  switch (fill.kind) {
    case Fill::Kind::kNormal:
      return "normal(mean " + number(fill.first) + ", std " +
             number(fill.second) + ")";
    case Fill::Kind::kUniform:
      return "uniform(low " + number(fill.first) + ", high " +
             number(fill.second) + ")";
    case Fill::Kind::kRandint:
      return "randint(low " + number(fill.first) + ", high " +
             number(fill.second) + ")";
    case Fill::Kind::kArange:
      return "arange(start " + number(fill.first) + ", step " +
             number(fill.second) + ")";
    case Fill::Kind::kFull:
      return "full(" + number(fill.first) + ")";
    case Fill::Kind::kTorch:
      return "torch." + fill.torch_call + "(" + number(fill.first) + ", " +
             number(fill.second) + ") after torch.manual_seed";
  }
  return "?";
}

std::string reference_name(Case::Reference reference) {
  switch (reference) {
    case Case::Reference::kCpu:
      return "cpu (the CPU run of the case)";
    case Case::Reference::kCpu64:
      return "cpu64 (the op on the CPU in float64, cast to the run's dtype)";
    case Case::Reference::kTorch:
      return "torch (LibTorch's equivalent op on the CPU)";
    case Case::Reference::kNone:
      return "none (the case's expected `outputs` alone)";
  }
  return "?";
}

// Where each input's numbers came from, and how to get them again.
std::string seeds_text(const PlannedCase& planned, Backend backend,
                       const Comparison& comparison) {
  const Case& kase = planned.value();
  std::ostringstream out;
  out << "case: " << planned.loaded.id << "\nfile: " << planned.loaded.file
      << "\nbackend: " << backend_name(backend)
      << "\nreference: " << reference_name(kase.reference)
      << "\ntolerance: rtol " << number(comparison.tolerance.rtol) << ", atol "
      << number(comparison.tolerance.atol) << ", equal_nan "
      << (comparison.tolerance.equal_nan ? "true" : "false") << "\n";
  for (const TensorSpec& spec : kase.inputs) {
    out << "input `" << spec.name << "` " << dtype_name(spec.dtype) << " "
        << shape_text(spec.shape) << ": ";
    if (!spec.same_as.empty()) {
      out << "input `" << spec.same_as << "` itself (same_as)\n";
      continue;
    }
    switch (spec.source) {
      case TensorSpec::Source::kFill:
        out << "seed " << spec.seed << ", fill " << fill_text(spec.fill);
        break;
      case TensorSpec::Source::kValues:
        out << "values written in the case file";
        break;
      case TensorSpec::Source::kFile:
        out << "file " << spec.file
            << (spec.sha256.empty() ? "" : " (sha256 " + spec.sha256 + ")");
        break;
    }
    out << "\n";
  }
  out << "rerun: " << rerun_command(planned, backend) << "\n";
  return out.str();
}

// The evidence files of one run, each written only while the run's and the
// whole run's budgets hold (LoadLimits::max_evidence_bytes and
// max_evidence_total_bytes); what is left out is listed in seeds.txt and
// said in the verdict.
class EvidenceBudget {
 public:
  EvidenceBudget(const OpenFolder& folder, uint64_t* total_written)
      : folder_(folder), total_written_(total_written) {}

  // Writes `tensor` (its bytes `bytes`, known before it is made) as `name`,
  // or lists it as left out.
  template <typename MakeTensor>
  void npy(const std::string& name, uint64_t bytes, MakeTensor make) {
    const LoadLimits& limits = load_limits();
    if (run_bytes_ + bytes > limits.max_evidence_bytes ||
        *total_written_ + bytes > limits.max_evidence_total_bytes) {
      left_out_.push_back(name + " (" + format_bytes(bytes) + ")");
      return;
    }
    write_npy_in(folder_, name, make());
    run_bytes_ += bytes;
    *total_written_ += bytes;
  }

  // "" when nothing was left out, else the line that says what and why.
  std::string left_out_text() const {
    if (left_out_.empty()) return "";
    const LoadLimits& limits = load_limits();
    return "left out, over the evidence limits (" +
           format_bytes(limits.max_evidence_bytes) +
           " a run, CASEBOOK_MAX_EVIDENCE_BYTES; " +
           format_bytes(limits.max_evidence_total_bytes) +
           " in all, CASEBOOK_MAX_EVIDENCE_TOTAL_BYTES): " + joined(left_out_);
  }

 private:
  const OpenFolder& folder_;
  uint64_t* total_written_;
  uint64_t run_bytes_ = 0;
  std::vector<std::string> left_out_;
};

uint64_t tensor_bytes(const at::Tensor& tensor) {
  return static_cast<uint64_t>(tensor.numel()) * tensor.element_size();
}

uint64_t spec_bytes(const TensorSpec& spec) {
  const uint64_t elements = element_count(spec.shape);
  const uint64_t size = element_size(spec.dtype);
  return elements > UINT64_MAX / std::max<uint64_t>(size, 1) ? UINT64_MAX
                                                             : elements * size;
}

// The worst elements of the first differing output, or why there are none.
std::string worst_text(const MismatchEvidence& mismatch) {
  const Comparison& comparison = mismatch.comparison;
  if (comparison.difference != Comparison::Difference::kValues) {
    return "# no element-wise comparison: " +
           comparison.report.substr(0, comparison.report.find('\n')) + "\n";
  }
  const size_t at = comparison.output_index;
  return "# output " + std::to_string(at) + "\n" +
         worst_elements_text(mismatch.expected.at(at), mismatch.actual.at(at),
                             comparison.tolerance, kWorstElementCount);
}

}  // namespace

fs::path evidence_folder(const fs::path& root, const std::string& case_id,
                         Backend backend) {
  return root / evidence_folder_name(case_id, backend);
}

std::string evidence_folder_name(const std::string& case_id, Backend backend) {
  return escaped_file_name(case_id) + "." + std::string(backend_name(backend));
}

std::string worst_elements_text(const at::Tensor& expected,
                                const at::Tensor& actual,
                                const Tolerance& tolerance, int64_t count) {
  const at::Tensor e = expected.to(at::kDouble).contiguous().reshape({-1});
  const at::Tensor a = actual.to(at::kDouble).contiguous().reshape({-1});
  const double* exp = e.data_ptr<double>();
  const double* act = a.data_ptr<double>();
  const int64_t total = e.numel();
  // The comparison's own test, element by element (compare/compare.h).
  const at::Tensor outside_mask =
      outside_tolerance(expected.contiguous().reshape({-1}),
                        actual.contiguous().reshape({-1}), tolerance)
          .contiguous();
  const bool* outside_flags = outside_mask.data_ptr<bool>();
  auto outside = [&](int64_t i) { return outside_flags[i]; };
  auto abs_diff = [&](int64_t i) {
    const double diff = std::abs(act[i] - exp[i]);
    return std::isnan(diff) ? INFINITY : diff;
  };
  std::vector<int64_t> order(static_cast<size_t>(total));
  for (int64_t i = 0; i < total; ++i) order[static_cast<size_t>(i)] = i;
  const auto shown = static_cast<size_t>(std::min(count, total));
  std::partial_sort(order.begin(), order.begin() + static_cast<long>(shown),
                    order.end(), [&](int64_t x, int64_t y) {
                      const bool ox = outside(x);
                      const bool oy = outside(y);
                      if (ox != oy) return ox;
                      const double dx = abs_diff(x);
                      const double dy = abs_diff(y);
                      return dx != dy ? dx > dy : x < y;
                    });
  std::ostringstream out;
  out << "# the " << shown << " worst of " << total
      << " elements: outside the tolerance (rtol " << number(tolerance.rtol)
      << ", atol " << number(tolerance.atol)
      << ") first, then by absolute difference\n"
      << "# index\texpected\tactual\tabs_diff\trel_diff\tverdict\n";
  const auto sizes = expected.sizes();
  for (size_t k = 0; k < shown; ++k) {
    const int64_t i = order[k];
    const std::vector<int64_t> index = unravel(i, sizes);
    const double diff = std::abs(act[i] - exp[i]);
    out << shape_text(index) << "\t" << number(exp[i]) << "\t" << number(act[i])
        << "\t" << number(diff) << "\t" << number(diff / std::abs(exp[i]))
        << "\t" << (outside(i) ? "outside" : "within") << "\n";
  }
  return out.str();
}

JudgementListener evidence_listener(const fs::path& root) {
  auto total_written = std::make_shared<uint64_t>(0);
  return [root, total_written](const PlannedCase& planned, Judgement& judged) {
    // The judge hands on only a failing run's mismatch; an XFAIL's is
    // expected and leaves nothing.
    if (judged.mismatch.comparison.equal()) return;
    judged.verdict.evidence_dir =
        write_mismatch_evidence(root, planned, judged.verdict.backend,
                                judged.mismatch, total_written.get());
  };
}

std::string write_mismatch_evidence(const fs::path& root,
                                    const PlannedCase& planned, Backend backend,
                                    const MismatchEvidence& mismatch,
                                    uint64_t* total_written) {
  uint64_t written_here = 0;
  if (total_written == nullptr) total_written = &written_here;
  const std::string name = evidence_folder_name(planned.loaded.id, backend);
  const fs::path shown = root / name;
  try {
    const OpenFolder evidence = OpenFolder::open(root, true);
    remove_tree_in(evidence, name);  // an older run's files would mislead
    const OpenFolder folder = evidence.folder(name, true);
    EvidenceBudget budget(folder, total_written);
    for (const TensorSpec& spec : planned.value().inputs) {
      if (!spec.same_as.empty()) continue;  // its target's file holds it
      budget.npy("input_" + escaped_file_name(spec.name) + ".npy",
                 spec_bytes(spec), [&] { return materialise(spec).view; });
    }
    for (size_t i = 0; i < mismatch.expected.size(); ++i) {
      const at::Tensor& tensor = mismatch.expected[i];
      budget.npy("reference_" + std::to_string(i) + ".npy",
                 tensor_bytes(tensor), [&] { return tensor; });
    }
    for (size_t i = 0; i < mismatch.actual.size(); ++i) {
      const at::Tensor& tensor = mismatch.actual[i];
      budget.npy("actual_" + std::to_string(i) + ".npy", tensor_bytes(tensor),
                 [&] { return tensor; });
    }
    write_file_in(folder, "worst_elements.txt", worst_text(mismatch),
                  OnExisting::kRefuse);
    const std::string left_out = budget.left_out_text();
    write_file_in(folder, "seeds.txt",
                  seeds_text(planned, backend, mismatch.comparison) +
                      (left_out.empty() ? "" : left_out + "\n"),
                  OnExisting::kRefuse);
    return left_out.empty() ? shown.string()
                            : shown.string() + " (" + left_out + ")";
  } catch (const std::exception& error) {
    return "not written (" + shown.string() + "): " + error.what();
  }
}

}  // namespace casebook
