// Issue 26: .pt fixtures from a merge request, each crafted with one claim
// that does not hold (tests/data/hostile/pt/make_hostile_pt.py wrote them),
// refused as a FixtureError that says what is wrong, before any of them
// reaches the run's heap, its stack or its memory limit. The sound control
// and a dict of two load with their values.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tensors/fixtures.h"

namespace casebook {
namespace {
namespace fs = std::filesystem;

const fs::path kFolder = fs::path(CASEBOOK_TEST_DATA) / "hostile" / "pt";

struct Hostile {
  const char* file;
  const char* refusal;  // a part of the FixtureError's text
};

TEST(HostilePt, EachCraftedClaimIsRefusedSayingWhatIsWrong) {
  const std::vector<Hostile> table = {
      {"storage_claims_more.pt", "4000 bytes"},
      {"view_past_storage.pt", "storage"},
      {"offset_past_storage.pt", "storage"},
      {"negative_stride.pt", "egative"},
      {"stride0_huge.pt", "a tensor of 2147483647 elements"},
      {"nested_tuples.pt", "nests containers deeper than 200 levels"},
      {"memo_index_huge.pt", "memo index 2356568833"},
      {"duplicate_records.pt", "`archive/data.pkl` appears twice"},
  };
  for (const Hostile& hostile : table) {
    const fs::path file = kFolder / hostile.file;
    try {
      const at::Tensor tensor = read_pt(file, "");
      ADD_FAILURE() << hostile.file << ": read, shape " << tensor.sizes();
    } catch (const FixtureError& error) {
      const std::string text = error.what();
      EXPECT_EQ(text.rfind(file.string() + ": ", 0), 0u) << text;
      EXPECT_NE(text.find(hostile.refusal), std::string::npos)
          << hostile.file << ": " << text;
    }
  }
}

TEST(HostilePt, SoundFilesLoadWithTheirValues) {
  EXPECT_TRUE(
      at::equal(read_pt(kFolder / "sound.pt", ""), at::tensor({1.0F, 2.0F})));
  EXPECT_TRUE(at::equal(read_pt(kFolder / "dict_of_two.pt", "b"),
                        at::tensor({3.0F, 4.0F})));
}

}  // namespace
}  // namespace casebook
