// The one flock helper (the build folder's lock, the governor's ledger, the wheel index): held for
// the object's life, a busy lock waited for a bounded time, links refused, the folder made.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "doctor_test_util.hpp"
#include "io/file_lock.hpp"

using namespace kiln;
using namespace std::chrono_literals;

TEST(FileLock, HeldForItsLifeAndABusyOneIsWaitedForABoundedTime) {
  doctest::TempDir d;
  const std::string path = d.path() + "/lock";
  {
    io::FileLock a(path, {});
    ASSERT_TRUE(a.held()) << a.error();
    const auto t0 = std::chrono::steady_clock::now();
    io::FileLock b(path, {.wait = 50ms});  // another open file: flock says busy even in one process
    EXPECT_GE(std::chrono::steady_clock::now() - t0, 50ms);
    EXPECT_FALSE(b.held());
    EXPECT_TRUE(b.busy());
    EXPECT_EQ(b.error(), "the lock on " + path + " was held for more than 50 ms");
    io::FileLock once(path, {});
    EXPECT_TRUE(once.busy());
    EXPECT_EQ(once.error(), path + " is locked by another process");
  }
  io::FileLock again(path, {});
  EXPECT_TRUE(again.held());
  // Handed over: the lock is the caller's until it closes the descriptor.
  const int fd = again.release();
  EXPECT_FALSE(io::FileLock(path, {}).held());
  ::close(fd);
  EXPECT_TRUE(io::FileLock(path, {}).held());
}

TEST(FileLock, ALinkIsNotFollowedAndTheFolderIsMadePrivate) {
  doctest::TempDir d;
  const std::string target = d.write("elsewhere", "precious");
  std::filesystem::create_symlink(target, d.path() + "/link");
  io::FileLock l(d.path() + "/link", {});
  EXPECT_FALSE(l.held());
  EXPECT_FALSE(l.busy());
  EXPECT_NE(l.error().find("cannot open " + d.path() + "/link"), std::string::npos) << l.error();

  EXPECT_FALSE(io::FileLock(d.path() + "/new/ledger", {}).held());
  io::FileLock made(d.path() + "/new/ledger", {.mode = 0600, .make_folder = true});
  ASSERT_TRUE(made.held()) << made.error();
  struct stat st {};
  ASSERT_EQ(::stat((d.path() + "/new").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  ASSERT_EQ(::stat((d.path() + "/new/ledger").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}
