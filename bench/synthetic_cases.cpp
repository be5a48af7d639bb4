#include "synthetic_cases.h"

#include <stdlib.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace casebook::bench {
namespace fs = std::filesystem;

namespace {

void write_text(const fs::path& file, const std::string& text) {
  std::ofstream out(file);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + file.string());
}

std::string numbered(const std::string& stem, int index) {
  char name[64];
  std::snprintf(name, sizeof name, "%s_%04d", stem.c_str(), index);
  return name;
}

}  // namespace

ScratchFolder::ScratchFolder() {
  const char* tmp = getenv("TMPDIR");
  std::string pattern =
      std::string(tmp != nullptr ? tmp : "/tmp") + "/casebook-bench-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error("cannot create a folder like " + pattern);
  }
  path_ = pattern;
}

ScratchFolder::~ScratchFolder() {
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

CaseSet write_softmax_cases(const fs::path& root, const std::string& name,
                            int count) {
  CaseSet set;
  set.folder = root / name;
  fs::create_directories(set.folder);
  for (int i = 0; i < count; ++i) {
    const std::string stem = numbered("softmax", i);
    const fs::path file = set.folder / (stem + ".yaml");
    write_text(file, "casebook: 1\nid: " + name + "/" + stem +
                         "\nsummary: synthetic softmax case " +
                         std::to_string(i) +
                         " of the benchmark\n"
                         "op: torch.softmax\nargs: {dim: 1}\ninputs:\n"
                         "  input: {shape: [64, 10], dtype: float32, fill: "
                         "{normal: {mean: 0, std: 1}}, seed: " +
                         std::to_string(i) + "}\n");
    set.files.push_back(file);
  }
  return set;
}

CaseSet write_cross_entropy_cases(const fs::path& root, const std::string& name,
                                  int count,
                                  const std::vector<int>& bad_labels) {
  CaseSet set;
  set.folder = root / name;
  fs::create_directories(set.folder);
  for (int i = 0; i < count; ++i) {
    const bool bad =
        std::find(bad_labels.begin(), bad_labels.end(), i) != bad_labels.end();
    const std::string stem = numbered("cross_entropy", i);
    const fs::path file = set.folder / (stem + ".yaml");
    std::string text =
        "casebook: 1\nid: " + name + "/" + stem +
        "\nsummary: synthetic cross_entropy case " + std::to_string(i) +
        (bad ? " with the label 10 of 10 classes" : " with valid labels") +
        "\nop: torch.cross_entropy\ninputs:\n"
        "  input: {shape: [4, 10], dtype: float32, fill: {normal: {mean: 0, "
        "std: 1}}, seed: " +
        std::to_string(i) + "}\n  target: {dtype: int64, values: [0, 3, " +
        (bad ? "10" : "9") + ", 2]}\n";
    if (bad) {
      text +=
          "expect:\n  cpu: {error: index_out_of_range}\n"
          "  cuda: {error: device_assert}\n  hip: {error: device_assert}\n";
    }
    write_text(file, text);
    set.files.push_back(file);
  }
  return set;
}

fs::path write_large_output_case(const fs::path& root) {
  const fs::path folder = root / "large";
  fs::create_directories(folder);
  const fs::path file = folder / "embedding_1gib.yaml";
  // 131072 rows x 1024 columns x 8 bytes = 2^30 bytes.
  write_text(file,
             "casebook: 1\nid: large/embedding_1gib\n"
             "summary: a 1 GiB float64 output and its cpu64 reference\n"
             "op: torch.embedding\nreference: cpu64\nbackends: [cpu]\n"
             "inputs:\n"
             "  weight: {shape: [1024, 1024], dtype: float64, fill: {normal: "
             "{mean: 0, std: 1}}, seed: 1}\n"
             "  indices: {shape: [131072], dtype: int64, fill: {randint: "
             "{low: 0, high: 1024}}, seed: 2}\n");
  return file;
}

}  // namespace casebook::bench
