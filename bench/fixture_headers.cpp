// casebook_bench_headers: what reading a fixture's header costs as the header
// grows (issue 49): a .safetensors header of N tensors read (accepted) and
// refused (its data one byte short, so that the whole header is checked
// first), and a bfloat16 .npy whose sidecar is a sparse file of G GiB. Prints
// seconds and how far the resident set peaked above where it was; the
// figures depend on the machine, so it is a program to run, not a test.
//
//   casebook_bench_headers [--entries 25000,50000,100000,200000]
//                          [--sidecar-gib 3]
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "elapsed.h"
#include "memory.h"
#include "tensors/fixtures.h"

namespace casebook::bench {
namespace {

namespace fs = std::filesystem;

// A header of `entries` F32 tensors of one element each, tiling the data.
std::string header_of(int entries) {
  std::string header = "{";
  for (int i = 0; i < entries; ++i) {
    header += (i == 0 ? "\"t" : ",\"t") + std::to_string(i) +
              R"(":{"dtype":"F32","shape":[1],"data_offsets":[)" +
              std::to_string(4 * i) + "," + std::to_string(4 * i + 4) + "]}";
  }
  return header + "}";
}

void write_safetensors(const fs::path& file, const std::string& header,
                       size_t data_bytes) {
  std::string length(8, '\0');
  for (size_t i = 0; i < 8; ++i) {
    length[i] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
  }
  std::ofstream(file, std::ios::binary)
      << length << header << std::string(data_bytes, '\0');
}

// Seconds and peak of one read of the names; whether it was refused.
void time_names(const char* label, int entries, const fs::path& file) {
  reset_peak_self();
  const long before_kib = current_resident_set().total_kib;
  const Clock::time_point start = Clock::now();
  bool refused = false;
  try {
    safetensors_names(file);
  } catch (const FixtureError&) {
    refused = true;
  }
  const double seconds = seconds_since(start);
  std::printf("%-9s %8d tensors  %8.3f s  %7.2f us/tensor  peak +%s  %s\n",
              label, entries, seconds, 1e6 * seconds / entries,
              mib(peak_since_reset_kib() - before_kib).c_str(),
              refused ? "refused" : "read");
}

void safetensors_section(const fs::path& folder,
                         const std::vector<int>& sizes) {
  std::printf(".safetensors header of N tensors (safetensors_names):\n");
  for (const int entries : sizes) {
    const std::string header = header_of(entries);
    const fs::path good = folder / "good.safetensors";
    const fs::path short_data = folder / "short.safetensors";
    write_safetensors(good, header, 4 * static_cast<size_t>(entries));
    write_safetensors(short_data, header, 4 * static_cast<size_t>(entries) - 1);
    std::printf("  header %.1f MB\n", header.size() / 1e6);
    time_names("  read", entries, good);
    time_names("  refused", entries, short_data);
  }
}

// A '<V2' .npy (bfloat16 as NumPy saves it) whose sidecar is sparse.
void sidecar_section(const fs::path& folder, double gib) {
  const fs::path npy = folder / "x.npy";
  std::ofstream(npy, std::ios::binary)
      << npy_header(at::kBFloat16, {2}) << std::string(4, '\0');
  std::ofstream(npy_sidecar(npy)).close();
  fs::resize_file(npy_sidecar(npy), static_cast<uintmax_t>(gib * (1 << 30)));
  reset_peak_self();
  const long before_kib = current_resident_set().total_kib;
  const Clock::time_point start = Clock::now();
  std::string outcome = "read";
  try {
    read_npy(npy);
  } catch (const FixtureError& error) {
    outcome = std::string(error.what()).substr(0, 160);
  }
  std::printf(
      "bfloat16 .npy with a sparse %.1f GiB sidecar: %.3f s, peak +%s\n  %s\n",
      gib, seconds_since(start),
      mib(peak_since_reset_kib() - before_kib).c_str(), outcome.c_str());
}

}  // namespace
}  // namespace casebook::bench

int main(int argc, char** argv) {
  using namespace casebook::bench;
  CLI::App app{"casebook_bench_headers: fixture headers as they grow"};
  std::vector<int> sizes{25000, 50000, 100000, 200000};
  double sidecar_gib = 3.0;
  app.add_option("--entries", sizes, "tensors in each header")->delimiter(',');
  app.add_option("--sidecar-gib", sidecar_gib, "size of the sparse sidecar");
  CLI11_PARSE(app, argc, argv);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each line as it is measured
  std::string pattern =
      (std::filesystem::temp_directory_path() / "casebook_bench_headers_XXXXXX")
          .string();
  if (::mkdtemp(pattern.data()) == nullptr) return 1;
  const std::filesystem::path folder = pattern;
  safetensors_section(folder, sizes);
  sidecar_section(folder, sidecar_gib);
  std::filesystem::remove_all(folder);
  return 0;
}
