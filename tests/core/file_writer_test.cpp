// The one way to write a file (files/file_writer.h, issue 49): a link a merge
// request plants, at a folder, at the target or at the lock, never receives
// data; "never overwrites" holds against a dangling link; a second writer
// is refused; a full disk is an error; names a user gives stay inside their
// folder; removing a tree never follows a link out of it.
#include "files/file_writer.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace casebook {
namespace {

namespace fs = std::filesystem;

class FileWriter : public testing::Test {
 protected:
  void SetUp() override {
    std::string pattern =
        (fs::temp_directory_path() / "casebook_writer_XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    root_ = pattern;
    fs::create_directories(root_ / "repo");
    fs::create_directories(root_ / "outside");
    outside_ = root_ / "outside" / "victim.txt";
    std::ofstream(outside_) << "untouched";
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(root_, ignored);
  }
  static std::string read(const fs::path& file) {
    std::ifstream in(file);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }
  // The message of the WriteError that `write` throws; "" when none.
  template <typename Write>
  static std::string refusal(Write write) {
    try {
      write();
    } catch (const WriteError& error) {
      return error.what();
    }
    return "";
  }
  fs::path root_;
  fs::path outside_;
};

TEST_F(FileWriter, WritesAWholeFileAndReplacesOnlyWhereAsked) {
  const fs::path file = root_ / "repo" / "a" / "b" / "x.txt";
  write_file(file, "one", OnExisting::kRefuse);
  EXPECT_EQ(read(file), "one");
  EXPECT_NE(refusal([&] {
              write_file(file, "two", OnExisting::kRefuse);
            }).find("exists"),
            std::string::npos);
  EXPECT_EQ(read(file), "one");
  write_file(file, "three", OnExisting::kReplace);
  EXPECT_EQ(read(file), "three");
  EXPECT_FALSE(fs::exists(file.string() + ".lock"));
}

TEST_F(FileWriter, ALinkedFolderIsNeverWrittenThrough) {
  fs::create_directory_symlink(root_ / "outside", root_ / "repo" / "evidence");
  const std::string why = refusal([&] {
    write_file(root_ / "repo" / "evidence" / "victim.txt", "planted",
               OnExisting::kReplace);
  });
  EXPECT_NE(why.find("a link"), std::string::npos) << why;
  EXPECT_EQ(read(outside_), "untouched");
}

TEST_F(FileWriter, ADanglingLinkAtTheTargetExists) {
  const fs::path target = root_ / "outside" / "created.txt";
  fs::create_symlink(target, root_ / "repo" / "new.yaml");
  const std::string why = refusal([&] {
    write_file(root_ / "repo" / "new.yaml", "case", OnExisting::kRefuse);
  });
  EXPECT_NE(why.find("exists"), std::string::npos) << why;
  EXPECT_FALSE(fs::exists(target));
  EXPECT_TRUE(fs::is_symlink(root_ / "repo" / "new.yaml"));
}

TEST_F(FileWriter, ReplacingALinkReplacesTheLinkNotItsTarget) {
  fs::create_symlink(outside_, root_ / "repo" / "summary.md");
  write_file(root_ / "repo" / "summary.md", "summary", OnExisting::kReplace);
  EXPECT_EQ(read(outside_), "untouched");
  EXPECT_FALSE(fs::is_symlink(root_ / "repo" / "summary.md"));
  EXPECT_EQ(read(root_ / "repo" / "summary.md"), "summary");
}

TEST_F(FileWriter, APlantedLockIsRefusedAndNotWrittenThrough) {
  fs::create_symlink(outside_, root_ / "repo" / "case.yaml.lock");
  std::ofstream(root_ / "repo" / "case.yaml") << "original";
  const std::string why = refusal([&] {
    write_file(root_ / "repo" / "case.yaml", "accepted", OnExisting::kReplace);
  });
  EXPECT_NE(why.find("case.yaml.lock: exists"), std::string::npos) << why;
  EXPECT_EQ(read(outside_), "untouched");
  EXPECT_EQ(read(root_ / "repo" / "case.yaml"), "original");
  EXPECT_TRUE(fs::is_symlink(root_ / "repo" / "case.yaml.lock"));
}

TEST_F(FileWriter, ASecondWriterOfOneFileIsRefused) {
  const OpenFolder folder = OpenFolder::open(root_ / "repo", false);
  FileBeingWritten first(folder, "case.yaml");
  first.write("first");
  EXPECT_NE(refusal([&] {
              FileBeingWritten second(folder, "case.yaml");
            }).find("another casebook is writing case.yaml"),
            std::string::npos);
  first.commit(OnExisting::kReplace);
  EXPECT_EQ(read(root_ / "repo" / "case.yaml"), "first");
}

TEST_F(FileWriter, AFullDiskIsAnError) {
  const std::string why = refusal(
      [&] { write_file("/dev/full", "a table", OnExisting::kReplace); });
  EXPECT_NE(why.find("/dev/full: cannot write"), std::string::npos) << why;
}

TEST_F(FileWriter, RemovingATreeRemovesALinkNeverWhatItPointsTo) {
  fs::create_directories(root_ / "repo" / "old" / "inner");
  fs::create_directory_symlink(root_ / "outside",
                               root_ / "repo" / "old" / "inner" / "out");
  std::ofstream(root_ / "repo" / "old" / "x.npy") << "x";
  const OpenFolder folder = OpenFolder::open(root_ / "repo", false);
  remove_tree_in(folder, "old");
  EXPECT_FALSE(fs::exists(root_ / "repo" / "old"));
  EXPECT_EQ(read(outside_), "untouched");
  remove_tree_in(folder, "old");  // nothing there: nothing done
}

TEST(FileNames, AUsersNameStaysInsideItsFolder) {
  EXPECT_EQ(name_problem("cross_entropy/label_4", true), "");
  EXPECT_EQ(name_problem("label_4", false), "");
  for (const char* bad :
       {"../outside/escaped", "a/../../b", "/etc/passwd", "a//b", "a/",
        "a\nPASS forged", "a\x1b[2J", "a\\b", "line\xE2\x80\xA8sep", ""}) {
    EXPECT_NE(name_problem(bad, true), "") << bad;
  }
  EXPECT_NE(name_problem("a/b", false), "");
}

TEST(FileNames, EscapedNamesAreDistinctAndPlain) {
  EXPECT_EQ(escaped_file_name("cross_entropy/label-4"),
            "cross_entropy%2Flabel-4");
  EXPECT_NE(escaped_file_name("a/b"), escaped_file_name("a_b"));
  EXPECT_NE(escaped_file_name("a%2Fb"), escaped_file_name("a/b"));
  EXPECT_EQ(escaped_file_name(".."), "%2E.");
  EXPECT_EQ(escaped_file_name("x\ny").find('\n'), std::string::npos);
}

}  // namespace
}  // namespace casebook
