// The benchmark's case files, written to a temporary folder: the cases under
// measurement are generated, never taken from cases/.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace casebook::bench {

struct CaseSet {
  std::filesystem::path folder;
  std::vector<std::filesystem::path> files;  // in run order
};

// A fresh folder under $TMPDIR (or /tmp), removed by the destructor.
class ScratchFolder {
 public:
  ScratchFolder();
  ~ScratchFolder();
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// `count` cases of torch.softmax(dim=1) on a 64x10 float32 input, one seed
// each, in `root`/`name`/. Every backend must match the CPU reference.
CaseSet write_softmax_cases(const std::filesystem::path& root,
                            const std::string& name, int count);

// `count` cases of torch.cross_entropy on 4x10 float32 logits; those whose
// index is in `bad_labels` hold the label 10 (out of range) and expect
// index_out_of_range on the CPU and device_assert on CUDA and HIP.
CaseSet write_cross_entropy_cases(const std::filesystem::path& root,
                                  const std::string& name, int count,
                                  const std::vector<int>& bad_labels);

// One torch.embedding case whose output is 2^27 float64 values (1 GiB):
// a 1024x1024 weight gathered by 131072 indices, judged against a `cpu64`
// reference run, so that two 1 GiB outputs reach the comparison.
std::filesystem::path write_large_output_case(
    const std::filesystem::path& root);

constexpr long long kLargeOutputBytes = 1LL << 30;

}  // namespace casebook::bench
