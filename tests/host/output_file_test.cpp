// The one rule for every file padtune writes (tuner/store/include/padtune/store/output_file.hpp): regular files and new
// paths replaced atomically, links followed, devices and FIFOs written in place, folders and
// unwritable places refused before any work, and a failed write that names the file and the OS
// error and leaves the old file whole and no temporary file behind.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "padtune/store/output_file.hpp"

namespace padtune::tuner {
namespace {

namespace fs = std::filesystem;

std::string contents(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

class OutputFile : public ::testing::Test {
 protected:
  fs::path dir;
  void SetUp() override {
    dir = fs::temp_directory_path() / ("padtune_output_test_" + std::to_string(::getpid())) /
          ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir.parent_path(), ec);
  }
};

TEST_F(OutputFile, ANewPathIsCreatedWithItsFoldersAndAFileReplacedKeepingItsMode) {
  const fs::path p = dir / "a" / "b" / "table.json";
  const output_target t = resolve_output(p);
  EXPECT_FALSE(t.stream);
  EXPECT_FALSE(t.exists);
  write_output(t, "first");
  EXPECT_EQ(contents(p), "first");
  ASSERT_EQ(::chmod(p.c_str(), 0640), 0);
  write_output(p, "second, longer");
  EXPECT_EQ(contents(p), "second, longer");
  struct stat st {};
  ASSERT_EQ(::stat(p.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
  EXPECT_EQ(names_in(p.parent_path()), std::vector<std::string>{"table.json"});
}

TEST_F(OutputFile, ASymlinkIsFollowedAndItsTargetReplaced) {
  fs::create_directories(dir / "real");
  const fs::path target = dir / "real" / "table.json", link = dir / "link.json";
  std::ofstream(target) << "old";
  fs::create_symlink(fs::path("real") / "table.json", link);
  const output_target t = resolve_output(link);
  EXPECT_EQ(t.target, fs::canonical(target));
  EXPECT_NE(t.name().find("->"), std::string::npos) << t.name();
  write_output(t, "new");
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(link)));
  EXPECT_EQ(contents(target), "new");
  // A link that points nowhere yet: its target is made.
  const fs::path dangling = dir / "dangling.json";
  fs::create_symlink(dir / "real" / "later.json", dangling);
  write_output(dangling, "made");
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(dangling)));
  EXPECT_EQ(contents(dir / "real" / "later.json"), "made");
}

TEST_F(OutputFile, ACharacterDeviceIsWrittenInPlace) {
  const output_target t = resolve_output("/dev/null");
  EXPECT_TRUE(t.stream);
  write_output(t, std::string(1 << 20, 'x'));
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  // /dev/full fails every write: the error names the file and the OS error.
  try {
    write_output("/dev/full", "text");
    ADD_FAILURE() << "a write to /dev/full succeeded";
  } catch (const io_error& e) {
    EXPECT_NE(std::string(e.what()).find("/dev/full: cannot be written: No space left on device"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::is_character_file("/dev/full"));
}

// Probe A51, A52: a name that fits was refused only at the rename, after the work, because the
// temporary name (the name with a prefix and suffix) did not fit NAME_MAX; and a short name in a
// folder near PATH_MAX, where a longer temporary name would not fit.
TEST_F(OutputFile, AnyNameThatFitsIsWrittenThoughItsTemporaryNameWouldNot) {
  const long name_max = ::pathconf(dir.c_str(), _PC_NAME_MAX);
  ASSERT_GT(name_max, 32);
  const fs::path longest = dir / std::string(std::size_t(name_max), 't');
  write_output(longest, "first");
  write_output(longest, "second");
  EXPECT_EQ(contents(longest), "second");
  // A 10-byte name in a folder of PATH_MAX - 12 bytes: the longest path, its NUL included.
  const std::size_t folder_length = PATH_MAX - 12;
  fs::path deep = dir;
  // Each step adds 200 bytes; stop with 2 to 201 left, so the last name has 1 to 200 bytes (an empty
  // one would only add a trailing separator, and the path came out a byte short where dir's length
  // left exactly 1).
  while (deep.string().size() + 201 < folder_length) deep /= std::string(199, 'd');
  deep /= std::string(folder_length - deep.string().size() - 1, 'e');
  fs::create_directories(deep);
  const fs::path near = deep / "near.jsonl";
  ASSERT_EQ(near.string().size(), std::size_t(PATH_MAX - 1));
  write_output(near, "near");
  EXPECT_EQ(contents(near), "near");
  EXPECT_EQ(names_in(dir).size(), 2u);  // no temporary file left beside them
}

TEST_F(OutputFile, StandardOutputIsItsOwnDescriptor) {
  const output_target t = resolve_output("/dev/stdout");
  EXPECT_TRUE(t.stream);
  EXPECT_EQ(t.descriptor, 1);
  EXPECT_TRUE(t.same_file(resolve_output("/proc/self/fd/1")));
  EXPECT_TRUE(is_standard_output(t));
  EXPECT_TRUE(is_standard_output(resolve_output("/proc/self/fd/1")));
  // Another descriptor of the same file, and a file that stdout is not: known by device and inode.
  const int copy = ::dup(1);
  ASSERT_GE(copy, 0);
  EXPECT_TRUE(is_standard_output(resolve_output("/dev/fd/" + std::to_string(copy))));
  ::close(copy);
  std::ofstream(dir / "f") << "x";
  EXPECT_FALSE(is_standard_output(resolve_output(dir / "f")));
  EXPECT_FALSE(is_standard_output(resolve_output(dir / "new")));
}

TEST_F(OutputFile, AFifoIsWrittenInPlaceOnceItsReaderComesAndItsWaitCanBeInterrupted) {
  const fs::path fifo = dir / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const output_target t = resolve_output(fifo);
  EXPECT_TRUE(t.stream);
  std::atomic<bool> stop{true};  // no reader and SIGINT: the wait ends, nothing is written
  EXPECT_THROW(write_output(t, "lost", &stop), interrupted_error);
  std::string read;
  std::thread reader([&] { read = contents(fifo); });
  write_output(t, "through the pipe");
  reader.join();
  EXPECT_EQ(read, "through the pipe");
  EXPECT_TRUE(fs::is_fifo(fifo));
}

TEST_F(OutputFile, AFolderOrAFileInTheWayIsRefusedBeforeAnyWrite) {
  fs::create_directories(dir / "folder");
  try {
    resolve_output(dir / "folder");
    ADD_FAILURE() << "a folder was taken as an output";
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("folder: is a folder, not a file"), std::string::npos) << e.what();
  }
  std::ofstream(dir / "file") << "x";
  try {
    resolve_output(dir / "file" / "table.json");
    ADD_FAILURE() << "a path below a file was taken as an output";
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("is not a folder"), std::string::npos) << e.what();
  }
}

TEST_F(OutputFile, AFolderThatCannotBeWrittenIsRefusedBeforeAnyWrite) {
  if (::geteuid() == 0) {
    GTEST_SKIP() << "running as root: permissions do not stop root, so the unwritable-folder case cannot be tested here";
  }
  fs::create_directories(dir / "locked");
  fs::permissions(dir / "locked", fs::perms::owner_read | fs::perms::owner_exec);
  EXPECT_THROW(resolve_output(dir / "locked" / "t.json"), usage_error);
  fs::permissions(dir / "locked", fs::perms::owner_all);
}

TEST_F(OutputFile, TwoNamesOfOneFileAreOneOutput) {
  std::ofstream(dir / "t.json") << "x";
  fs::create_symlink(dir / "t.json", dir / "alias.json");
  const output_target a = resolve_output(dir / "t.json"), b = resolve_output(dir / "alias.json");
  EXPECT_TRUE(a.same_file(b));
  EXPECT_THROW(refuse_same_file(a, "-o", b, "--cache-output"), usage_error);
  EXPECT_TRUE(resolve_output(dir / "new.json").same_file(resolve_output(dir / "sub" / ".." / "new.json")));
  EXPECT_FALSE(resolve_output(dir / "new.json").same_file(resolve_output(dir / "other.json")));
  EXPECT_NO_THROW(refuse_same_file(resolve_output(dir / "new.json"), "-o", resolve_output(dir / "other.json"), "--cache-output"));
}

TEST_F(OutputFile, AFailedWriteNamesTheFileLeavesTheOldOneAndNoTemporaryFile) {
  const fs::path p = dir / "table.json";
  std::ofstream(p) << "the old table";
  // In a child: a file-size limit of 1 KB (the CLI ignores SIGXFSZ the same way, so the write fails
  // with EFBIG instead of killing the process).
  EXPECT_EXIT(
      {
        std::signal(SIGXFSZ, SIG_IGN);
        rlimit small{};
        small.rlim_cur = small.rlim_max = 1024;
        ::setrlimit(RLIMIT_FSIZE, &small);
        try {
          write_output(p, std::string(4096, 'x'));
        } catch (const io_error& e) {
          const std::string m = e.what();
          std::_Exit(m.find(p.string()) != std::string::npos && m.find("File too large") != std::string::npos ? 0 : 2);
        }
        std::_Exit(1);
      },
      ::testing::ExitedWithCode(0), "");
  EXPECT_EQ(contents(p), "the old table");
  EXPECT_EQ(names_in(dir), std::vector<std::string>{"table.json"});
}

}  // namespace
}  // namespace padtune::tuner
