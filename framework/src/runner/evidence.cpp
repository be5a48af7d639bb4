#include "runner/evidence.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "casebook/shape_text.h"
#include "compare/compare.h"
#include "runner/judge.h"
#include "tensors/fixtures.h"
#include "tensors/materialise.h"

namespace casebook {
namespace fs = std::filesystem;
namespace {

std::string safe_name(const std::string& text) {
  std::string out;
  for (char c : text) {
    const bool keep = std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
                      c == '-' || c == '.';
    out += keep ? c : '_';
  }
  // Never "." or "..", never a hidden file.
  if (out.empty() || out.front() == '.') out.insert(out.begin(), '_');
  return out;
}

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

void write_text(const fs::path& file, const std::string& text) {
  std::ofstream out(file);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + file.string());
}

}  // namespace

fs::path evidence_folder(const fs::path& root, const std::string& case_id,
                         Backend backend) {
  return root / (safe_name(case_id) + "." + std::string(backend_name(backend)));
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
  return [root](const PlannedCase& planned, Judgement& judged) {
    // The judge hands on only a failing run's mismatch; an XFAIL's is
    // expected and leaves nothing.
    if (judged.mismatch.comparison.equal()) return;
    judged.verdict.evidence_dir = write_mismatch_evidence(
        root, planned, judged.verdict.backend, judged.mismatch);
  };
}

std::string write_mismatch_evidence(const fs::path& root,
                                    const PlannedCase& planned, Backend backend,
                                    const MismatchEvidence& mismatch) {
  const fs::path folder = evidence_folder(root, planned.loaded.id, backend);
  try {
    std::error_code ignored;
    fs::remove_all(folder, ignored);  // an older run's files would mislead
    fs::create_directories(folder);
    for (const TensorSpec& spec : planned.value().inputs) {
      write_npy(folder / ("input_" + safe_name(spec.name) + ".npy"),
                materialise(spec).view);
    }
    for (size_t i = 0; i < mismatch.expected.size(); ++i) {
      write_npy(folder / ("reference_" + std::to_string(i) + ".npy"),
                mismatch.expected[i]);
    }
    for (size_t i = 0; i < mismatch.actual.size(); ++i) {
      write_npy(folder / ("actual_" + std::to_string(i) + ".npy"),
                mismatch.actual[i]);
    }
    const Comparison& comparison = mismatch.comparison;
    std::string worst;
    if (comparison.difference == Comparison::Difference::kValues) {
      const size_t at = comparison.output_index;
      worst =
          "# output " + std::to_string(at) + "\n" +
          worst_elements_text(mismatch.expected.at(at), mismatch.actual.at(at),
                              comparison.tolerance, kWorstElementCount);
    } else {
      worst = "# no element-wise comparison: " +
              comparison.report.substr(0, comparison.report.find('\n')) + "\n";
    }
    write_text(folder / "worst_elements.txt", worst);
    write_text(folder / "seeds.txt", seeds_text(planned, backend, comparison));
  } catch (const std::exception& error) {
    return "not written (" + folder.string() + "): " + error.what();
  }
  return folder.string();
}

}  // namespace casebook
