// FileUtil: whole-file reads, positioned reads and atomic replacement,
// including the write-failure injection that the checkpoint tests rely on.

#include "FileUtil.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include <sys/wait.h>
#include <unistd.h>

namespace odt {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class TempDir {
public:
  TempDir() {
    const auto *info = ::testing::UnitTest::GetInstance()->current_test_info();
    path = std::string(ODT_TEST_TMP_DIR) + "/" + info->test_suite_name() + "." + info->name() +
           "." + std::to_string(::getpid());
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
  std::string file(const std::string &name) const { return path + "/" + name; }
  std::set<std::string> entries() const {
    std::set<std::string> names;
    for (const auto &entry : fs::directory_iterator(path))
      names.insert(entry.path().filename().string());
    return names;
  }
  std::string path;
};

std::string readText(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(FileUtilTest, ReadWholeFile) {
  TempDir dir;
  std::string path = dir.file("data");
  std::string content(100000, 'x');
  content[5] = '\0';
  ASSERT_TRUE(writeFileAtomically(path, {{content.data(), content.size()}}).isOk());
  Result<std::vector<uint8_t>> bytes = readWholeFile(path);
  ASSERT_TRUE(bytes.isOk()) << bytes.getStatus().message();
  EXPECT_EQ(std::string(bytes->begin(), bytes->end()), content);

  Result<std::vector<uint8_t>> tooLarge = readWholeFile(path, "blob", 1000);
  ASSERT_FALSE(tooLarge.isOk());
  EXPECT_THAT(tooLarge.getStatus().message(), HasSubstr("blob '" + path + "' is too large"));

  Result<std::vector<uint8_t>> missing = readWholeFile(dir.file("nope"), "blob");
  ASSERT_FALSE(missing.isOk());
  EXPECT_THAT(missing.getStatus().message(), HasSubstr("cannot open blob '"));
  EXPECT_THAT(missing.getStatus().message(), HasSubstr("No such file or directory"));

  Result<std::vector<uint8_t>> folder = readWholeFile(dir.path, "blob");
  ASSERT_FALSE(folder.isOk());
  EXPECT_THAT(folder.getStatus().message(), HasSubstr("Is a directory"));
}

TEST(FileUtilTest, ReadOnlyFileBounds) {
  TempDir dir;
  std::string path = dir.file("data");
  ASSERT_TRUE(writeFileAtomically(path, {{"0123456789", 10}}).isOk());
  ReadOnlyFile file;
  ASSERT_TRUE(file.open(path).isOk());
  EXPECT_EQ(file.size(), 10u);
  char buffer[4] = {};
  ASSERT_TRUE(file.readAt(6, buffer, 4).isOk());
  EXPECT_EQ(std::string(buffer, 4), "6789");
  Status past = file.readAt(8, buffer, 4);
  ASSERT_FALSE(past.isOk());
  EXPECT_THAT(past.message(), HasSubstr("lie past its end"));
  EXPECT_FALSE(file.readAt(uint64_t(-1), buffer, 4).isOk());
  ReadOnlyFile folder;
  EXPECT_FALSE(folder.open(dir.path).isOk());
}

TEST(FileUtilTest, AtomicWriteReplacesAndLeavesNoTemporaryFile) {
  TempDir dir;
  std::string path = dir.file("target");
  ASSERT_TRUE(writeFileAtomically(path, {{"old", 3}}).isOk());
  ASSERT_TRUE(writeFileAtomically(path, {{"new ", 4}, {"contents", 8}}).isOk());
  EXPECT_EQ(readText(path), "new contents");
  EXPECT_EQ(dir.entries(), std::set<std::string>{"target"});
}

TEST(FileUtilTest, AbandonedWriterKeepsOldFile) {
  TempDir dir;
  std::string path = dir.file("target");
  ASSERT_TRUE(writeFileAtomically(path, {{"old", 3}}).isOk());
  {
    AtomicFileWriter writer;
    ASSERT_TRUE(writer.open(path).isOk());
    EXPECT_TRUE(fs::exists(writer.temporaryPath()));
    ASSERT_TRUE(writer.write("partial", 7).isOk());
    ASSERT_TRUE(writer.finish().isOk());
    // Destroyed without commit().
  }
  EXPECT_EQ(readText(path), "old");
  EXPECT_EQ(dir.entries(), std::set<std::string>{"target"});
}

TEST(FileUtilTest, StaleTemporariesOfKilledWritersAreRemovedOnTheNextSave) {
  TempDir dir;
  std::string path = dir.file("target.ckpt");
  ASSERT_TRUE(writeFileAtomically(path, {{"old", 3}}).isOk());
  // A writer killed mid-write (as by kill -9: no destructor runs) leaves its
  // temporary file, named after its process id.
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    AtomicFileWriter writer;
    if (!writer.open(path).isOk() || !writer.write("partial", 7).isOk())
      ::_exit(1);
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  std::string stale;
  for (const std::string &name : dir.entries())
    if (name.rfind(".target.ckpt.tmp-" + std::to_string(child) + "-", 0) == 0)
      stale = name;
  ASSERT_FALSE(stale.empty()) << "the killed writer left no temporary file";
  // Another live process's temporary (pid 1 always runs) is in progress.
  std::string live = ".target.ckpt.tmp-1-0";
  std::ofstream(dir.file(live)) << "in progress";
  ASSERT_EQ(dir.entries(),
            (std::set<std::string>{"target.ckpt", stale, live}));

  ASSERT_TRUE(writeFileAtomically(path, {{"new", 3}}).isOk());
  EXPECT_EQ(readText(path), "new");
  EXPECT_EQ(dir.entries(), (std::set<std::string>{"target.ckpt", live}));
}

TEST(FileUtilTest, InjectedWriteFailure) {
  TempDir dir;
  std::string path = dir.file("target");
  ASSERT_TRUE(writeFileAtomically(path, {{"old", 3}}).isOk());
  testing::setWriteFailureAfterBytes(5);
  Status status = writeFileAtomically(path, {{"abc", 3}, {"defgh", 5}}, "thing");
  testing::setWriteFailureAfterBytes(-1);
  ASSERT_FALSE(status.isOk());
  EXPECT_THAT(status.message(), HasSubstr("cannot write thing '" + path + "'"));
  EXPECT_THAT(status.message(), HasSubstr("No space left on device"));
  EXPECT_EQ(readText(path), "old");
  EXPECT_EQ(dir.entries(), std::set<std::string>{"target"});
  // Disarmed again.
  ASSERT_TRUE(writeFileAtomically(path, {{"abcdefgh", 8}}).isOk());
  EXPECT_EQ(readText(path), "abcdefgh");
}

TEST(FileUtilTest, WriteErrors) {
  TempDir dir;
  Status missing = writeFileAtomically(dir.file("no/such/dir/file"), {{"x", 1}}, "thing");
  ASSERT_FALSE(missing.isOk());
  EXPECT_THAT(missing.message(), HasSubstr("No such file or directory"));
  Status noName = writeFileAtomically(dir.path + "/", {{"x", 1}}, "thing");
  ASSERT_FALSE(noName.isOk());
  EXPECT_THAT(noName.message(), HasSubstr("not a file name"));
  // Renaming a file over a non-empty folder fails; the temporary file goes.
  fs::create_directories(dir.file("folder/inner"));
  Status overFolder = writeFileAtomically(dir.file("folder"), {{"x", 1}}, "thing");
  ASSERT_FALSE(overFolder.isOk());
  EXPECT_THAT(overFolder.message(), HasSubstr("rename"));
  EXPECT_EQ(dir.entries(), std::set<std::string>{"folder"});
  EXPECT_EQ(parentDirectory("a/b/c"), "a/b");
  EXPECT_EQ(parentDirectory("c"), ".");
  EXPECT_EQ(parentDirectory("/c"), "/");
}

} // namespace
} // namespace odt
