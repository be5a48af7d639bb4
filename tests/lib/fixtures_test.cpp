// Fixture files: .npy (written and read), .safetensors and .pt (read), the
// sha256 check and its error.
#include "tensors/fixtures.h"

#include <gtest/gtest.h>
#include <torch/csrc/jit/serialization/pickle.h>

#include <fstream>

#include "casebook/ops.h"
#include "run_command.h"
#include "tensors/materialise.h"

namespace casebook {
namespace {

namespace fs = std::filesystem;
using testing_support::write_file;

fs::path scratch_path() {
  return fs::path(::testing::TempDir()) /
         ("casebook_fixtures_" + std::to_string(::getpid()));
}

fs::path scratch_dir() {
  const fs::path dir = scratch_path();
  fs::create_directories(dir);
  return dir;
}

// The scratch folder goes with the test program: a run leaves nothing behind.
class ScratchCleanup : public ::testing::Environment {
 public:
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(scratch_path(), ignored);
  }
};
::testing::Environment* const kScratchCleanup =
    ::testing::AddGlobalTestEnvironment(new ScratchCleanup);

std::string raw(const at::Tensor& tensor) {
  return std::string(static_cast<const char*>(tensor.data_ptr()),
                     tensor.numel() * tensor.element_size());
}

TEST(Npy, RoundTripsEveryDtype) {
  for (DType dtype : all_dtypes()) {
    const at::ScalarType type = to_scalar_type(dtype);
    const at::Tensor tensor =
        at::arange(-3, 9, at::kDouble).reshape({3, 4}).remainder(7).to(type);
    const fs::path file =
        scratch_dir() / (std::string(dtype_name(dtype)) + ".npy");
    write_npy(file, tensor);
    const at::Tensor back = read_npy(file);
    EXPECT_EQ(back.scalar_type(), type) << dtype_name(dtype);
    EXPECT_TRUE(at::equal(back, tensor)) << dtype_name(dtype);
    // NumPy's alignment rule: the data starts on a 64-byte boundary.
    EXPECT_EQ(
        (fs::file_size(file) - tensor.numel() * tensor.element_size()) % 64,
        0u);
  }
}

TEST(Npy, WritesZeroAndOneDimensionalShapes) {
  const fs::path file = scratch_dir() / "shapes.npy";
  for (const at::Tensor& tensor :
       {at::scalar_tensor(2.5, at::kDouble), at::ones({5}, at::kInt)}) {
    write_npy(file, tensor);
    const at::Tensor back = read_npy(file);
    EXPECT_EQ(back.sizes(), tensor.sizes());
    EXPECT_TRUE(at::equal(back, tensor));
  }
}

// A version 3 header (4-byte length) in Fortran order, written by hand as
// NumPy would: [[1, 2, 3], [4, 5, 6]] stored column by column.
TEST(Npy, ReadsVersion3FortranOrder) {
  std::string header =
      "{'descr': '<i2', 'fortran_order': True, 'shape': (2, 3), }";
  header.append(64 - (12 + header.size() + 1) % 64, ' ');
  header.push_back('\n');
  std::string bytes = std::string("\x93NUMPY\x03\x00", 8);
  const auto size = static_cast<uint32_t>(header.size());
  for (int i = 0; i < 4; ++i)
    bytes.push_back(static_cast<char>(size >> (8 * i)));
  bytes += header;
  for (int16_t value : {1, 4, 2, 5, 3, 6}) {
    bytes.append(reinterpret_cast<const char*>(&value), 2);
  }
  const fs::path file = scratch_dir() / "fortran.npy";
  write_file(file, bytes);
  const at::Tensor back = read_npy(file);
  EXPECT_TRUE(at::equal(back, at::arange(1, 7, at::kShort).reshape({2, 3})));
}

TEST(Npy, RejectsBigEndianAndTruncatedData) {
  const fs::path file = scratch_dir() / "bad.npy";
  write_npy(file, at::ones({4}, at::kFloat));
  std::ifstream in(file, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  write_file(file, bytes.substr(0, bytes.size() - 1));
  EXPECT_THROW(
      {
        try {
          read_npy(file);
        } catch (const FixtureError& error) {
          EXPECT_NE(std::string(error.what()).find("holds 15 bytes"),
                    std::string::npos);
          throw;
        }
      },
      FixtureError);
  bytes.replace(bytes.find("<f4"), 3, ">f4");
  write_file(file, bytes);
  EXPECT_THROW(read_npy(file), FixtureError);
}

TEST(Safetensors, ReadsANamedTensorAndListsNames) {
  const at::Tensor a = at::arange(6, at::kFloat).reshape({2, 3});
  const at::Tensor b = at::tensor({7, -1}, at::kLong);
  const std::string header =
      R"({"__metadata__":{"made_by":"test"},)"
      R"("a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]},)"
      R"("b":{"dtype":"I64","shape":[2],"data_offsets":[24,40]}})";
  std::string bytes;
  for (int i = 0; i < 8; ++i) {
    bytes.push_back(static_cast<char>((header.size() >> (8 * i)) & 0xff));
  }
  bytes += header + raw(a) + raw(b);
  const fs::path file = scratch_dir() / "two.safetensors";
  write_file(file, bytes);
  EXPECT_EQ(safetensors_names(file), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(at::equal(read_safetensors(file, "a"), a));
  EXPECT_TRUE(at::equal(read_fixture(file, "b"), b));
  try {
    read_safetensors(file, "c");
    ADD_FAILURE() << "no error for a missing name";
  } catch (const FixtureError& error) {
    EXPECT_NE(
        std::string(error.what()).find("no tensor named `c`; it holds a, b"),
        std::string::npos)
        << error.what();
  }
  EXPECT_THROW(read_safetensors(file, ""), FixtureError);  // two tensors
}

// torch::jit::pickle_save writes torch.save's zip format.
TEST(Pt, ReadsASingleTensorAndADict) {
  const at::Tensor weight = at::arange(12, at::kDouble).reshape({3, 4});
  const fs::path single = scratch_dir() / "single.pt";
  const std::vector<char> one = torch::jit::pickle_save(weight);
  write_file(single, std::string(one.begin(), one.end()));
  EXPECT_TRUE(at::equal(read_fixture(single, ""), weight));

  c10::Dict<std::string, at::Tensor> dict;
  dict.insert("weight", weight);
  dict.insert("bias", at::zeros({4}, at::kHalf));
  const fs::path many = scratch_dir() / "dict.pt";
  const std::vector<char> both = torch::jit::pickle_save(dict);
  write_file(many, std::string(both.begin(), both.end()));
  EXPECT_TRUE(at::equal(read_pt(many, "weight"), weight));
  EXPECT_EQ(read_pt(many, "bias").scalar_type(), at::kHalf);
  EXPECT_THROW(read_pt(many, ""), FixtureError);
}

std::string saved_dict() {
  c10::Dict<std::string, at::Tensor> dict;
  dict.insert("weight", at::arange(12, at::kFloat));
  const std::vector<char> bytes = torch::jit::pickle_save(dict);
  return {bytes.begin(), bytes.end()};
}

void put_u32(std::string& bytes, size_t at, uint32_t value) {
  for (int i = 0; i < 4; ++i) {
    bytes[at + i] = static_cast<char>((value >> (8 * i)) & 0xff);
  }
}

std::string pt_error(const std::string& bytes) {
  const fs::path file = scratch_dir() / "hostile.pt";
  write_file(file, bytes);
  try {
    read_pt(file, "weight");
  } catch (const FixtureError& error) {
    return error.what();
  }
  return "(no error)";
}

// Sizes a .pt claims are checked against its bytes before anything is
// allocated for them (found by fuzz.fixtures, when LibTorch read .pt files).
TEST(Pt, RefusesClaimsPastItsBytes) {
  const std::string good = saved_dict();
  ASSERT_EQ(pt_error(good), "(no error)");

  // BINUNICODE "weight" claims 2 GiB: the altered pickle fails its CRC
  // first (one with a right CRC: hostile_pt_test, "a string claiming 4 GB").
  std::string string_claim = good;
  const size_t key = string_claim.find(std::string("X\x06\0\0\0weight", 11));
  ASSERT_NE(key, std::string::npos);
  put_u32(string_claim, key + 1, 0x7fffffff);
  EXPECT_NE(pt_error(string_claim).find("its CRC does not match its bytes"),
            std::string::npos)
      << pt_error(string_claim);

  std::string record_claim = good;  // the first record claims 2 GiB
  const size_t record = record_claim.find("PK\x01\x02");
  ASSERT_NE(record, std::string::npos);
  put_u32(record_claim, record + 20, 0x7fffffff);
  put_u32(record_claim, record + 24, 0x7fffffff);
  EXPECT_NE(pt_error(record_claim).find("past the end of the file"),
            std::string::npos)
      << pt_error(record_claim);

  std::string compressed = good;  // method 8 (deflate)
  compressed[record + 10] = 8;
  EXPECT_NE(pt_error(compressed).find("is compressed (method 8)"),
            std::string::npos);

  EXPECT_NE(pt_error(good.substr(0, good.size() / 2)).find("not a zip archive"),
            std::string::npos);
  // A bare pickle is the format before PyTorch 1.6: refused by name.
  EXPECT_NE(pt_error(std::string("\x80\x02}q\0.", 6))
                .find("a legacy torch.save pickle"),
            std::string::npos);
}

TEST(Sha256, OfAKnownFile) {
  const fs::path file = scratch_dir() / "abc.txt";
  write_file(file, "abc");
  EXPECT_EQ(sha256_file(file),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TensorSpec file_spec(const fs::path& file, DType dtype) {
  TensorSpec spec;
  spec.name = "logits";
  spec.dtype = dtype;
  spec.source = TensorSpec::Source::kFile;
  spec.file = file.filename().string();
  spec.resolved_file = file;
  spec.shape_given = false;
  spec.where = {"cases/f.yaml", 6, 11};
  return spec;
}

TEST(FixtureSpec, HashMismatchNamesExpectedAndFound) {
  const fs::path file = scratch_dir() / "logits.npy";
  write_npy(file, at::ones({2, 2}, at::kFloat));
  TensorSpec spec = file_spec(file, DType::kFloat32);
  spec.sha256 = std::string(64, '0');
  try {
    materialise(spec);
    ADD_FAILURE() << "no error for a wrong sha256";
  } catch (const InvalidCaseError& error) {
    const std::string message = error.what();
    EXPECT_EQ(message.rfind("cases/f.yaml:6:11: input `logits`: fixture "
                            "`logits.npy`: sha256 expected 0000",
                            0),
              0u)
        << message;
    EXPECT_NE(message.find(", found " + sha256_file(file)), std::string::npos);
  }
  spec.sha256 = sha256_file(file);
  EXPECT_TRUE(at::equal(materialise(spec).view, at::ones({2, 2})));
}

TEST(FixtureSpec, DtypeAndShapeMustAgreeWithTheFile) {
  const fs::path file = scratch_dir() / "ints.npy";
  write_npy(file, at::ones({3}, at::kInt));
  TensorSpec spec = file_spec(file, DType::kInt64);
  try {
    materialise(spec);
    ADD_FAILURE() << "no error for a wrong dtype";
  } catch (const InvalidCaseError& error) {
    EXPECT_NE(
        std::string(error.what()).find("dtype expected int64, found int32"),
        std::string::npos)
        << error.what();
  }
  spec.dtype = DType::kInt32;
  spec.shape = {4};
  spec.shape_given = true;
  try {
    materialise(spec);
    ADD_FAILURE() << "no error for a wrong shape";
  } catch (const InvalidCaseError& error) {
    EXPECT_NE(std::string(error.what()).find("shape expected [4], found [3]"),
              std::string::npos)
        << error.what();
  }
}

// The files shipped in fixtures/ hold what fixtures/README.md says.
TEST(ShippedFixtures, HoldTheDocumentedValues) {
  const fs::path root = fs::path(CASEBOOK_SOURCE_DIR) / "fixtures";
  const at::Tensor logits =
      read_fixture(root / "cross_entropy/logits_4x5.npy", "");
  ASSERT_EQ(logits.sizes(), c10::IntArrayRef({4, 5}));
  EXPECT_EQ(logits[1][2].item<float>(), ((7 * 1 + 3 * 2) % 17 - 8) / 4.0f);
  const fs::path table = root / "embedding/table.safetensors";
  EXPECT_EQ(read_safetensors(table, "weight")[5][2].item<float>(), 5.25f);
  EXPECT_EQ(read_safetensors(table, "indices").scalar_type(), at::kLong);
  EXPECT_TRUE(at::equal(read_fixture(root / "layer_norm/weight.pt", ""),
                        at::tensor({0.5f, 1.0f, 1.5f, 2.0f})));
}

}  // namespace
}  // namespace casebook
