// Recognition of real error messages (tests/data/messages/*.txt: LibTorch 1.13
// recorded here, PyTorch 2.11 CUDA texts recorded on an H200, PyTorch 2.x
// CUDA/ROCm texts from source and issues, the CUDA and HIP runtimes' own
// strings) and the precedence between patterns.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "casebook/diagnosis.h"

namespace casebook {

// Failures print "device_assert", not the enum's bytes.
// NOLINTNEXTLINE(readability-identifier-naming): gtest looks for PrintTo
static void PrintTo(Family family, std::ostream* out) {
  *out << family_name(family);
}

namespace {

struct RecordedMessage {
  std::string file, name, family, type, source, text;
};

// "=== name", header lines "key: value" up to "---", then the text up to the
// next "===" line; lines starting with '#' before the first record are notes.
std::vector<RecordedMessage> read_messages(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::vector<RecordedMessage> records;
  std::string line;
  bool in_text = false;
  while (std::getline(in, line)) {
    if (line.rfind("=== ", 0) == 0) {
      RecordedMessage record;
      record.file = path.filename().string();
      record.name = line.substr(4);
      records.push_back(std::move(record));
      in_text = false;
    } else if (records.empty()) {
      continue;
    } else if (!in_text && line == "---") {
      in_text = true;
    } else if (!in_text) {
      const size_t colon = line.find(':');
      const std::string key = line.substr(0, colon);
      const std::string value =
          colon + 2 <= line.size() ? line.substr(colon + 2) : "";
      if (key == "family") records.back().family = value;
      if (key == "type") records.back().type = value;
      if (key == "source") records.back().source = value;
    } else {
      records.back().text += line + "\n";
    }
  }
  for (RecordedMessage& record : records) {
    while (!record.text.empty() && record.text.back() == '\n') {
      record.text.pop_back();
    }
  }
  return records;
}

std::vector<RecordedMessage> read_all_messages() {
  std::vector<RecordedMessage> all;
  for (const auto& entry : std::filesystem::directory_iterator(
           std::filesystem::path(CASEBOOK_TEST_DATA) / "messages")) {
    for (RecordedMessage& record : read_messages(entry.path())) {
      all.push_back(std::move(record));
    }
  }
  return all;
}

// Read once; records are handed out by reference.
const std::vector<RecordedMessage>& all_messages() {
  static const std::vector<RecordedMessage> all = read_all_messages();
  return all;
}

const RecordedMessage& find_message(const std::vector<RecordedMessage>& all,
                                    const std::string& name) {
  for (const RecordedMessage& record : all) {
    if (record.name == name) return record;
  }
  throw std::runtime_error("no recorded message " + name);
}

TEST(ClassifyRecordedMessages, EveryRecordGetsItsFamily) {
  const std::vector<RecordedMessage>& all = all_messages();
  ASSERT_GE(all.size(), 90u);
  for (const RecordedMessage& record : all) {
    ASSERT_FALSE(record.text.empty()) << record.file << ": " << record.name;
    ASSERT_TRUE(parse_family(record.family).has_value())
        << record.file << ": " << record.name << ": " << record.family;
    EXPECT_EQ(family_name(classify_error(record.text, record.type)),
              record.family)
        << record.file << ": " << record.name << " (" << record.source << ")\n"
        << record.text;
  }
}

TEST(ClassifyRecordedMessages, EveryErrorFamilyHasRealMessages) {
  std::map<std::string, int> per_family;
  std::set<std::string> files;
  for (const RecordedMessage& record : all_messages()) {
    ++per_family[record.family];
    files.insert(record.file);
  }
  EXPECT_EQ(files, (std::set<std::string>{
                       "gpu-runtimes.txt", "libtorch-1.13-cpu.txt",
                       "libtorch-2.13-cpu.txt", "pytorch-2.11-cuda-h200.txt",
                       "pytorch-2.x-gpu.txt"}));
  for (const char* family :
       {"index_out_of_range", "device_assert", "illegal_address",
        "out_of_memory", "op_unavailable", "device_mismatch", "contract",
        "mismatch", "nan_or_inf", "timeout"}) {
    EXPECT_GE(per_family[family], 1) << family;
  }
}

TEST(ClassifyPrecedence, KernelAssertionSayingIndexOutOfBoundsIsDeviceAssert) {
  const auto& record = find_message(
      all_messages(), "cuda_index_kernel_assertion_says_index_out_of_bounds");
  ASSERT_NE(record.text.find("index out of bounds"), std::string::npos);
  EXPECT_EQ(classify_error(record.text), Family::kDeviceAssert);
}

TEST(ClassifyPrecedence, CudaErrorOutOfMemoryIsOutOfMemory) {
  const auto& record =
      find_message(all_messages(), "cuda_error_out_of_memory_is_not_generic");
  ASSERT_EQ(record.text.rfind("CUDA error: ", 0), 0u);
  EXPECT_EQ(classify_error(record.text, record.type), Family::kOutOfMemory);
}

TEST(ClassifyPrecedence, DeviceSideAssertionsTailDoesNotMakeAnAssert) {
  const auto& all = all_messages();
  for (const char* name :
       {"cuda_illegal_address_2x", "hip_invalid_device_function"}) {
    const auto& record = find_message(all, name);
    ASSERT_NE(record.text.find("device-side assertions"), std::string::npos);
    EXPECT_NE(classify_error(record.text, record.type), Family::kDeviceAssert)
        << name;
  }
}

TEST(ClassifyPrecedence, DimensionOutOfRangeIsAContractDespiteIndexError) {
  const auto& record = find_message(all_messages(), "dim_out_of_range");
  ASSERT_EQ(record.type, "c10::IndexError");
  EXPECT_EQ(classify_error(record.text, record.type), Family::kContract);
}

TEST(ClassifyTypes, TypeDecidesWhenTheMessageDoesNot) {
  EXPECT_EQ(classify_error("", "std::bad_alloc"), Family::kOutOfMemory);
  EXPECT_EQ(classify_error("no text we know", "c10::IndexError"),
            Family::kIndexOutOfRange);
  EXPECT_EQ(classify_error("no text we know", "NotImplementedError"),
            Family::kOpUnavailable);
  EXPECT_EQ(classify_error("no text we know", "c10::EnforceFiniteError"),
            Family::kNanOrInf);
  EXPECT_EQ(
      classify_error("missing argument `dim`", "casebook::InvalidCaseError"),
      Family::kInvalidCase);
  // Defaults: unknown torch text and non-torch exceptions are contract.
  EXPECT_EQ(classify_error("no text we know", "c10::Error"), Family::kContract);
  EXPECT_EQ(classify_error("no text we know", "std::runtime_error"),
            Family::kContract);
  EXPECT_EQ(classify_error("no text we know"), Family::kContract);
}

TEST(ClassifyTypes, OutOfMemoryTypeOutranksTheMessage) {
  const auto& record =
      find_message(all_messages(), "cuda_oom_torch_2_5_plus_type_split_off");
  EXPECT_EQ(classify_error(record.text, "c10::OutOfMemoryError"),
            Family::kOutOfMemory);
  EXPECT_EQ(classify_error("Target 4 is out of bounds.",
                           "torch.cuda.OutOfMemoryError"),
            Family::kOutOfMemory);
}

TEST(StripBacktrace, FullWhatGivesTheMessageWithoutBacktrace) {
  const auto& all = all_messages();
  for (const char* name : {"cross_entropy_target_4_of_4",
                           "index_select_out_of_range", "empty_huge"}) {
    const auto& full = find_message(all, std::string(name) + "_full");
    const auto& bare = find_message(all, name);
    ASSERT_NE(full.text.find("\nframe #0"), std::string::npos) << name;
    EXPECT_EQ(strip_backtrace(full.text), bare.text) << name;
  }
}

}  // namespace
}  // namespace casebook
