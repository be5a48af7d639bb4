// Issues 26 and 35: .pt fixtures from a merge request, each crafted with one
// claim that does not hold, refused by casebook's own reader
// (tensors/pt_archive.h) with the reason, before any of them reaches the
// run's heap, its stack or its memory limit. Most are built here, byte by
// byte (tests/support/pt_bytes.h), one per attack class of issue 35; the
// files of tests/data/hostile/pt (make_hostile_pt.py) are the older ones.
// The sound controls, and files saved by torch 1.13 and 2.13, load with
// their values.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "pt_bytes.h"
#include "run_command.h"
#include "tensors/fixtures.h"
#include "tensors/pt_archive.h"

namespace casebook {
namespace {
namespace fs = std::filesystem;
using testing_support::patch;
using testing_support::PickleWriter;
using testing_support::pt_bytes;
using testing_support::sound_pt;
using testing_support::two_floats;
using testing_support::zip_bytes;
using testing_support::ZipLayout;
using namespace std::string_literals;

const fs::path kFolder = fs::path(CASEBOOK_TEST_DATA) / "hostile" / "pt";

struct HostilePt {
  const char* file;
  const char* refusal;  // a part of the FixtureError's text
};

TEST(HostilePt, EachCraftedFileIsRefusedSayingWhatIsWrong) {
  const std::vector<HostilePt> table = {
      {"storage_claims_more.pt", "claims 1000 elements of float32"},
      {"view_past_storage.pt", "reaches element 999 of a storage of 2"},
      {"offset_past_storage.pt", "reaches element 5 of a storage of 2"},
      {"negative_stride.pt", "negative stride (-1 in dim 0)"},
      {"stride0_huge.pt", "a tensor of 2147483647 elements"},
      {"nested_tuples.pt", "nests containers deeper than 64 levels"},
      {"memo_index_huge.pt", "stores memo index 2356568833 after 0"},
      {"duplicate_records.pt", "`archive/data.pkl` appears twice"},
  };
  for (const HostilePt& hostile : table) {
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

// Files torch.save wrote (make_saved_by.py, run by /usr/bin/python3 with
// torch 1.13 and by a torch 2.13 venv): each loads with its values; the
// legacy format (_use_new_zipfile_serialization=False) is refused by name.
TEST(HostilePt, FilesSavedByTorch113And213Load) {
  const at::Tensor six = at::arange(6, at::kFloat).reshape({2, 3});
  for (const std::string version : {"1.13", "2.13"}) {
    SCOPED_TRACE(version);
    const fs::path folder = kFolder / "saved_by" / version;
    EXPECT_TRUE(at::equal(read_pt(folder / "single.pt", ""), six));
    EXPECT_TRUE(at::equal(read_pt(folder / "dict.pt", "w"), six));
    EXPECT_TRUE(
        at::equal(read_pt(folder / "dict.pt", "v"), at::tensor({1.0F, 4.0F})));
    EXPECT_TRUE(at::equal(read_pt(folder / "dict.pt", "b"),
                          at::tensor({int64_t{1}, int64_t{2}})));
    EXPECT_TRUE(
        at::equal(read_pt(folder / "ordered.pt", "a"), six.to(at::kHalf)));
    EXPECT_TRUE(at::equal(read_pt(folder / "ordered.pt", "c"),
                          at::tensor({1, 0}).to(at::kBool)));
    EXPECT_TRUE(at::equal(read_pt(folder / "parameter.pt", ""), six));
    EXPECT_TRUE(at::equal(read_pt(folder / "misc.pt", "x"),
                          at::tensor({1.5F}).to(at::kBFloat16)));
    EXPECT_EQ(read_pt(folder / "misc.pt", "z").scalar_type(),
              at::kComplexFloat);
    const c10::IValue list = load_checked_pt(folder / "list.pt");
    ASSERT_TRUE(list.isList());
    EXPECT_TRUE(at::equal(list.toListRef()[1].toTensor(), six.t()));
    try {
      read_pt(folder / "legacy.pt", "");
      ADD_FAILURE() << "legacy.pt read";
    } catch (const FixtureError& error) {
      EXPECT_NE(std::string(error.what())
                    .find("a legacy torch.save pickle (PyTorch before 1.6, or "
                          "_use_new_zipfile_serialization=False)"),
                std::string::npos)
          << error.what();
    }
  }
}

// The reason `bytes` is refused, or "" when it is read.
std::string refusal_of(const std::string& bytes) {
  try {
    read_pt_contents(bytes);
    return "";
  } catch (const PtRefusal& refusal) {
    return refusal.what();
  }
}

struct Attack {
  const char* what;
  std::function<std::string()> bytes;
  const char* refusal;
};

std::string with_pickle(const std::string& pickle) {
  return pt_bytes(pickle, {{"0", two_floats()}}).bytes;
}

std::string one_tensor(int64_t offset, const std::vector<int64_t>& sizes,
                       const std::vector<int64_t>& strides,
                       int64_t elements = 2) {
  return with_pickle(
      PickleWriter().tensor("0", elements, offset, sizes, strides).done());
}

// The zip layer (issue 35, part 1).
const std::vector<Attack> kZipAttacks = {
    {"two names that differ only by case",
     [] {
       return zip_bytes({{"archive/data.pkl", "x"}, {"archive/DATA.PKL", "y"}})
           .bytes;
     },
     "`archive/DATA.PKL` and another differ only by case"},
    {"a name given twice",
     [] {
       return zip_bytes({{"archive/data/a", "1"}, {"archive/data/a", "2"}})
           .bytes;
     },
     "record `archive/data/a` appears twice"},
    {"a ZIP64 record count that disagrees",
     [] {
       ZipLayout zip = sound_pt();
       patch(zip.bytes, zip.zip64_end + 32, 2, 8);
       return zip.bytes;
     },
     "the ZIP64 end record's record count (2) disagrees"},
    {"a ZIP64 end record naming another directory",
     [] {
       ZipLayout zip = sound_pt();
       patch(zip.bytes, zip.zip64_end + 48, 0, 8);
       return zip.bytes;
     },
     "the ZIP64 end record's directory offset (0) disagrees"},
    {"a locator naming a second ZIP64 end record",
     [] {
       ZipLayout zip = sound_pt();
       // A second end record, placed inside the first record's bytes.
       patch(zip.bytes, zip.locator + 8, zip.local[0] + 40, 8);
       return zip.bytes;
     },
     "the ZIP64 locator names an end record at byte 40, not the one "
     "before it"},
    {"a record past the end of the file",
     [] {
       ZipLayout zip = sound_pt();
       patch(zip.bytes, zip.central[1] + 42, 1 << 30, 4);
       return zip.bytes;
     },
     "record `archive/data/0`: no local header at byte 1073741824"},
    {"a record that claims more bytes than the file has",
     [] {
       ZipLayout zip = sound_pt();
       patch(zip.bytes, zip.central[1] + 20, 1 << 20, 4);
       patch(zip.bytes, zip.central[1] + 24, 1 << 20, 4);
       return zip.bytes;
     },
     "record `archive/data/0` claims 1048576 bytes, past the end"},
    {"a compressed tensor record",
     [] { return zip_bytes({{"archive/data.pkl", "x"}}, /*method=*/8).bytes; },
     "record `archive/data.pkl` is compressed (method 8)"},
    {"two records over the same bytes",
     [] {
       // a's bytes hold a copy of b's local header, bytes and data
       // descriptor, and the directory's b points there, inside a.
       const std::string inner =
           zip_bytes({{"archive/b", "2"}}).bytes.substr(0, 30 + 9 + 1 + 16);
       ZipLayout zip = zip_bytes({{"archive/a", inner}, {"archive/b", "2"}});
       patch(zip.bytes, zip.central[1] + 42, zip.local[0] + 30 + 9, 4);
       return zip.bytes;
     },
     "overlaps record `archive/a`"},
    {"bytes after the end record", [] { return sound_pt().bytes + "garbage"; },
     "7 bytes follow the end record"},
    {"bytes before the first record",
     [] { return "prefix" + sound_pt().bytes; },
     "the ZIP64 locator names an end record at byte"},
    {"bytes between two records",
     [] {
       ZipLayout zip = sound_pt();
       // The second record moved on by 4 bytes, and every offset after
       // it: only the gap is wrong.
       zip.bytes.insert(zip.local[1], "gap!");
       patch(zip.bytes, zip.central[1] + 4 + 42, zip.local[1] + 4, 4);
       patch(zip.bytes, zip.central[2] + 4 + 42, zip.local[2] + 4, 4);
       patch(zip.bytes, zip.zip64_end + 4 + 48, zip.directory + 4, 8);
       patch(zip.bytes, zip.locator + 4 + 8, zip.zip64_end + 4, 8);
       patch(zip.bytes, zip.end + 4 + 16, zip.directory + 4, 4);
       return zip.bytes;
     },
     "4 bytes between record `archive/data.pkl` and record "
     "`archive/data/0`"},
    {"a record whose CRC is wrong",
     [] {
       ZipLayout zip = sound_pt();
       const uint64_t data = zip.local[1] + 30 + 14;  // "archive/data/0"
       zip.bytes[data] = static_cast<char>(zip.bytes[data] ^ 1);
       return zip.bytes;
     },
     "record `archive/data/0`: its CRC does not match its bytes"},
    {"a record outside the archive's folder",
     [] {
       return zip_bytes({{"archive/data.pkl",
                          PickleWriter().tensor("0", 2, 0, {2}, {1}).done()},
                         {"other/data/0", two_floats()}})
           .bytes;
     },
     "record `other/data/0` is outside the archive's folder `archive/`"},
    {"not a zip at all", [] { return std::string(64, 'z'); },
     "not a zip archive (torch.save's format since PyTorch 1.6)"},
    {"the legacy pickle format",
     [] {
       return std::string(
           "\x80\x02\x8a\x0al\xfc\x9c"
           "F\xf9 j\xa8P\x19.",
           15);
     },
     "a legacy torch.save pickle (PyTorch before 1.6, or "
     "_use_new_zipfile_serialization=False)"},
    {"the legacy tar format",
     [] {
       std::string tar(1024, '\0');
       tar.replace(257, 5, "ustar");
       return tar;
     },
     "a legacy torch.save tar archive"},
    {"big-endian data",
     [] {
       return zip_bytes({{"archive/data.pkl",
                          PickleWriter().tensor("0", 2, 0, {2}, {1}).done()},
                         {"archive/byteorder", "big"},
                         {"archive/data/0", two_floats()}})
           .bytes;
     },
     "its tensors are stored big-endian (the byteorder record)"},
};

PickleWriter nested_lists(int depth) {
  PickleWriter pickle;
  for (int i = 0; i < depth; ++i) pickle.op(']');
  for (int i = 0; i < depth - 1; ++i) pickle.op('a');
  return pickle;
}

// The restricted unpickler and the views' checks (issue 35, part 2).
const std::vector<Attack> kPickleAttacks = {
    {"a storage offset of minus 1", [] { return one_tensor(-1, {1}, {1}); },
     "a negative storage offset (-1)"},
    {"a storage offset of minus 65536",
     [] { return one_tensor(-65536, {1}, {1}); },
     "a negative storage offset (-65536)"},
    {"a storage offset of minus 2^28",
     [] { return one_tensor(-(int64_t{1} << 28), {1}, {1}); },
     "a negative storage offset (-268435456)"},
    {"a negative size hidden by a 0",
     [] { return one_tensor(0, {0, -5}, {1, 1}); },
     "a negative size (-5 in dim 1)"},
    {"a negative stride", [] { return one_tensor(1, {2}, {-1}); },
     "a negative stride (-1 in dim 0)"},
    {"strides whose reach overflows 64 bits",
     [] { return one_tensor(0, {5, 2}, {int64_t{1} << 62, 1}); },
     "strides overflow 64 bits"},
    {"a view past its storage", [] { return one_tensor(0, {3}, {1}); },
     "a tensor of shape [3] at offset 0 reaches element 2 of a storage of 2"},
    {"a storage that claims more than its record",
     [] { return one_tensor(0, {2}, {1}, 1000); },
     "storage `0` claims 1000 elements of float32; its record holds 8 bytes"},
    {"a storage with no record",
     [] {
       return with_pickle(PickleWriter().tensor("7", 2, 0, {2}, {1}).done());
     },
     "storage `7` has no record data/7"},
    {"a global that is not allowed",
     [] {
       return with_pickle(PickleWriter()
                              .global("os", "system")
                              .text("id")
                              .op('\x85')
                              .op('R')
                              .done());
     },
     "the global `os.system` is not one a saved tensor needs"},
    {"an opcode a tensor does not need (INST)",
     [] { return with_pickle(PickleWriter().raw("(ios\nsystem\n").done()); },
     "opcode 105 is not one that a saved tensor needs"},
    {"an unknown opcode",
     [] { return with_pickle(PickleWriter().raw("\xff").done()); },
     "opcode 255 is not one that a saved tensor needs"},
    {"100,000 nested lists",
     [] { return with_pickle(nested_lists(100000).done()); },
     "nests containers deeper than 64 levels"},
    {"100,000 nested tuples",
     [] {
       PickleWriter pickle;
       pickle.op(')');
       for (int i = 0; i < 100000; ++i) pickle.op('\x85');
       return with_pickle(pickle.done());
     },
     "nests containers deeper than 64 levels"},
    {"a list that holds itself",
     [] {
       return with_pickle(PickleWriter()
                              .raw("]q\x00h\x00"
                                   "a"s)
                              .done());
     },
     "a container that holds itself"},
    {"two lists that hold each other",
     [] {
       // a = []; b = [a]; a.append(b)
       return with_pickle(PickleWriter()
                              .raw("]q\x00]q\x01h\x00"
                                   "aa"s)
                              .done());
     },
     "a container that holds itself"},
    {"shared lists that expand past the limit",
     [] {
       // l0 = [0, 0]; l(i+1) = [l(i), l(i)]: 2^40 values from 40 lists.
       PickleWriter pickle;
       pickle.raw(
           "](K\x00K\x00"
           "e"s);
       for (int i = 0; i < 40; ++i)
         pickle.raw(
             "q\x00"
             "0](h\x00h\x00"
             "e"s);
       return with_pickle(pickle.done());
     },
     "holds more than 100000 values once its shared containers"},
    {"more memo entries than the limit",
     [] {
       PickleWriter pickle;
       pickle.op('N');
       for (uint32_t i = 0; i <= 500000; ++i) {
         pickle.raw("r" + testing_support::le_bytes(i, 4));
       }
       return with_pickle(pickle.done());
     },
     "stores more than 500000 memo entries"},
    {"a memo index far past the entries",
     [] {
       return with_pickle(PickleWriter().raw("Nr\x01\x63\x76\x8c").done());
     },
     "stores memo index 2356568833 after 0 entries"},
    {"more values than the limit",
     [] {
       PickleWriter pickle;
       pickle.op(']').op('(');
       for (int i = 0; i < 500001; ++i) pickle.op('N');
       return with_pickle(pickle.op('e').done());
     },
     "makes more than 500000 values"},
    {"a type tag of 100,000 nested List[",
     [] {
       std::string type;
       for (int i = 0; i < 100000; ++i) type += "List[";
       return with_pickle(PickleWriter()
                              .global("torch.jit._pickle", "restore_type_tag")
                              .op(']')
                              .text(type)
                              .op('\x86')
                              .op('R')
                              .done());
     },
     "a string of 500000 bytes (the limit is 65536)"},
    {"a string claiming 4 GB",
     [] { return with_pickle(PickleWriter().raw("X\xff\xff\xff\xff").done()); },
     "a string of 4294967295 bytes"},
    {"a pickle without STOP",
     [] { return with_pickle(std::string("\x80\x02N", 3)); },
     "the pickle ends without its STOP"},
    {"a storage named as two dtypes",
     [] {
       PickleWriter pickle;
       pickle.op('(').tensor("0", 2, 0, {2}, {1});
       pickle.tensor("0", 1, 0, {1}, {1}, "DoubleStorage").op('t');
       return with_pickle(pickle.done());
     },
     "storage `0` is named as two dtypes"},
};

void expect_each_refused(const std::vector<Attack>& attacks) {
  for (const Attack& attack : attacks) {
    const std::string why = refusal_of(attack.bytes());
    EXPECT_NE(why.find(attack.refusal), std::string::npos)
        << attack.what << ": " << (why.empty() ? "read" : why);
  }
}

// The file name of an attack's seed: `attack_` and its words joined by `_`.
std::string seed_name(const Attack& attack) {
  std::string name = "attack_";
  for (const char c : std::string(attack.what)) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      name.push_back(static_cast<char>(std::tolower(c)));
    } else if (name.back() != '_') {
      name.push_back('_');
    }
  }
  while (name.back() == '_') name.pop_back();
  return name + ".pt";
}

// One file of each attack class under 256 KiB is kept in
// tests/data/hostile/pt, as the fuzzers' seeds and for the hostile memory
// and run tests: the same bytes as here. CASEBOOK_WRITE_PT_SEEDS=1 rewrites
// them after a change to an attack.
TEST(HostilePt, TheSeedCorpusHoldsEachAttack) {
  const bool rewrite = std::getenv("CASEBOOK_WRITE_PT_SEEDS") != nullptr;
  for (const auto* attacks : {&kZipAttacks, &kPickleAttacks}) {
    for (const Attack& attack : *attacks) {
      const std::string bytes = attack.bytes();
      if (bytes.size() > (256 << 10)) continue;
      const fs::path file = kFolder / seed_name(attack);
      if (rewrite) std::ofstream(file, std::ios::binary) << bytes;
      std::ifstream in(file, std::ios::binary);
      const std::string kept((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
      EXPECT_TRUE(kept == bytes) << file << " differs from `" << attack.what
                                 << "`: CASEBOOK_WRITE_PT_SEEDS=1 rewrites it";
    }
  }
}

TEST(HostilePt, EachZipAttackIsRefusedWithItsReason) {
  expect_each_refused(kZipAttacks);
}

TEST(HostilePt, EachPickleAttackIsRefusedWithItsReason) {
  expect_each_refused(kPickleAttacks);
}

// The writer's own output reads (so that each attack above breaks one rule
// only), with an empty tensor at its storage's end and a zero-size dim.
TEST(HostilePt, TheSoundBytesOfTheTestWriterLoad) {
  EXPECT_EQ(refusal_of(sound_pt().bytes), "");
  EXPECT_EQ(refusal_of(one_tensor(2, {0}, {1})), "");
  EXPECT_EQ(refusal_of(one_tensor(0, {0, 5}, {1, 1})), "");
  EXPECT_EQ(refusal_of(one_tensor(0, {2, 1}, {1, 0})), "");
  EXPECT_EQ(crc32_of("123456789"), 0xCBF43926U);
}

// A refusal through the fixture reader names the file first.
TEST(HostilePt, ARefusalNamesTheFile) {
  testing_support::TempFolder folder;
  const fs::path file = folder.path() / "x.pt";
  std::ofstream(file, std::ios::binary) << one_tensor(-1, {1}, {1});
  try {
    read_fixture(file, "");
    ADD_FAILURE() << "read";
  } catch (const FixtureError& error) {
    const std::string text = error.what();
    EXPECT_EQ(text.rfind(file.string() + ": not a .pt file casebook reads: "
                                         "data.pkl byte ",
                         0),
              0u)
        << text;
    EXPECT_NE(text.find("a tensor with a negative storage offset (-1)"),
              std::string::npos)
        << text;
  }
}

}  // namespace
}  // namespace casebook

namespace casebook {
namespace {

// Issue 35 part 3: each command that reads a fixture refuses a hostile .pt
// as invalid_case (or its own error) naming the file and the reason, and
// exits normally; the casebook process itself never dies of one.
class HostilePtCommands : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(root() / "cases");
    fs::create_directories(root() / "fixtures");
    const std::vector<std::pair<std::string, std::string>> files = {
        {"negative_offset", one_tensor(-1, {1}, {1})},
        {"hidden_negative_size", one_tensor(0, {0, -5}, {1, 1})},
        {"case_twins",
         zip_bytes({{"archive/data.pkl",
                     PickleWriter().tensor("0", 2, 0, {2}, {1}).done()},
                    {"archive/data/0", two_floats()},
                    {"archive/DATA/0", std::string(4096, 'x')}})
             .bytes},
        {"holds_itself", with_pickle(PickleWriter()
                                         .raw("]q\x00h\x00"
                                              "a"s)
                                         .done())},
        {"deep_lists", with_pickle(nested_lists(100000).done())},
    };
    for (const auto& [name, bytes] : files) {
      std::ofstream(root() / "fixtures" / (name + ".pt"), std::ios::binary)
          << bytes;
      std::ofstream(root() / "cases" / (name + ".yaml"))
          << "casebook: 1\nsummary: a hostile fixture\nop: torch.neg\n"
             "inputs:\n  input:\n"
             "    dtype: float32\n    shape: [2]\n    file: "
          << name << ".pt\noutputs:\n  0: {dtype: float32, values: [-1, -2]}\n";
      names_.push_back(name);
    }
  }
  const fs::path& root() const { return folder_.path(); }

  testing_support::TempFolder folder_;
  std::vector<std::string> names_;
};

const char* const kReasons[] = {
    "a negative storage offset (-1)", "a negative size (-5 in dim 1)",
    "differ only by case", "a container that holds itself",
    "nests containers deeper than 64 levels"};

TEST_F(HostilePtCommands, RunGivesInvalidCaseAtTheLineForEach) {
  const auto run = testing_support::run_casebook(
      "run --verbose '" + (root() / "cases").string() + "' --backend cpu");
  EXPECT_EQ(run.status, 1) << run.output;
  for (size_t i = 0; i < names_.size(); ++i) {
    EXPECT_TRUE(testing_support::has_line(
        run.output, "^ERROR +" + names_[i] + " +cpu +invalid_case: .*" +
                        names_[i] + "\\.yaml:[0-9]+:[0-9]+: .*fixtures/" +
                        names_[i] + "\\.pt.*" +
                        std::string(kReasons[i]).substr(0, 12)))
        << names_[i] << "\n"
        << run.output;
  }
  EXPECT_EQ(run.output.find("PASS"), std::string::npos) << run.output;
}

TEST_F(HostilePtCommands, ShowRefusesEachAndExitsNormally) {
  for (size_t i = 0; i < names_.size(); ++i) {
    const std::string file =
        (root() / "cases" / (names_[i] + ".yaml")).string();
    const auto show = testing_support::run_casebook("show '" + file + "'");
    EXPECT_EQ(show.status, 1) << names_[i] << "\n" << show.output;
    EXPECT_NE(show.output.find("error (invalid_case): " + file),
              std::string::npos)
        << names_[i] << "\n"
        << show.output;
    EXPECT_NE(show.output.find(kReasons[i]), std::string::npos)
        << names_[i] << "\n"
        << show.output;
    // `check` reads each fixture through the same reader as a run: the file
    // is invalid, with the same reason, and check exits normally (1).
    const auto check = testing_support::run_casebook("check '" + file + "'");
    EXPECT_EQ(check.status, 1) << names_[i] << "\n" << check.output;
    EXPECT_NE(check.output.find(kReasons[i]), std::string::npos)
        << names_[i] << "\n"
        << check.output;
  }
}

TEST_F(HostilePtCommands, DiagnoseAndReportNameTheReasonAndExitNormally) {
  const std::string file = (root() / "cases" / "negative_offset.yaml").string();
  const auto diagnose =
      testing_support::run_casebook("diagnose '" + file + "'");
  EXPECT_EQ(diagnose.status, 0) << diagnose.output;
  EXPECT_NE(diagnose.output.find(kReasons[0]), std::string::npos)
      << diagnose.output;
  const auto report = testing_support::run_shell(
      "cd '" + root().string() + "' && '" + CASEBOOK_EXECUTABLE +
      "' report cases/negative_offset.yaml");
  EXPECT_EQ(report.status, 0) << report.output;
  EXPECT_NE(report.output.find(kReasons[0]), std::string::npos)
      << report.output;
}

TEST_F(HostilePtCommands, CaptureRefusesEachAndWritesNoCase) {
  for (size_t i = 0; i < names_.size(); ++i) {
    const fs::path out = root() / ("captured_" + names_[i]);
    const auto run = testing_support::run_casebook(
        "capture --op torch.neg --tensor input='" +
        (root() / "fixtures" / (names_[i] + ".pt")).string() +
        "' --name x --cases '" + out.string() + "'");
    EXPECT_TRUE(run.status == 1 || run.status == 2)
        << names_[i] << ": " << run.status << "\n"
        << run.output;
    EXPECT_NE(run.output.find(kReasons[i]), std::string::npos)
        << names_[i] << "\n"
        << run.output;
    if (fs::exists(out)) {
      for (const auto& item : fs::recursive_directory_iterator(out)) {
        EXPECT_NE(item.path().extension(), ".yaml") << item.path();
      }
    }
  }
}

}  // namespace
}  // namespace casebook
