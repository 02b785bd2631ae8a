// Readers of a project's or a build folder's files refuse what is not a regular file and bound
// what they read (issue 34, case 6: a FIFO as setup.py hung `kiln plan`; a link to /dev/zero as a
// build folder's log read 3.7 GB into `kiln report`, then bad_alloc).
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>

#include "binary_fixtures.hpp"
#include "io/fs.hpp"
#include "test_support.hpp"

using namespace kiln;

namespace {

using Cli = kiln::testing::CliRig;
using kiln::testing::TempDir;

// Runs `body` in a child that must end within `seconds`: a read that blocks fails the test
// instead of hanging the suite. The child's exit code is the body's (0 when it passed).
int within(int seconds, const std::function<bool()>& body) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::alarm(static_cast<unsigned>(seconds));
    ::_exit(body() ? 0 : 1);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

}  // namespace

TEST(ReadBounds, TheRealFilesystemReadsNoFifoAndNoDevice) {
  TempDir tmp;
  const auto fifo = tmp / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::filesystem::create_symlink("/dev/zero", tmp / "zero");
  io::RealFilesystem fs;
  EXPECT_EQ(within(5, [&] { return !fs.read(fifo) && !fs.read_head(fifo, 10); }), 0) << "a FIFO blocked the read";
  EXPECT_EQ(within(5, [&] { return !fs.read(tmp / "zero"); }), 0) << "/dev/zero was read";
  EXPECT_EQ(fs.special_kind(fifo), "a FIFO (named pipe)");
  EXPECT_EQ(fs.special_kind(tmp / "zero"), "a character device");
  EXPECT_EQ(*io::read_refusal(fs, fifo, 100), fifo + ": a FIFO (named pipe), not a file kiln reads");
  const auto big = tmp.write("big", std::string((2 << 20) + 1, 'x'));
  EXPECT_EQ(*io::read_refusal(fs, big, 2 << 20),
            big + ": 2097153 bytes, more than the 2 MiB kiln reads of such a file");
  EXPECT_FALSE(io::read_refusal(fs, tmp / "absent", 100));
  EXPECT_EQ(fs.read(tmp.write("ok", "text")), "text");
  EXPECT_EQ(fs.read_head(big, 3), "xxx");
}

TEST(ReadBounds, PlanRefusesAProjectFileThatIsAFifoOrADevice) {
  TempDir tmp;
  const std::filesystem::path dir = tmp / "p";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "CMakeLists.txt") << "project(p LANGUAGES CXX CUDA)\n";
  ASSERT_EQ(::mkfifo((dir / "setup.py").c_str(), 0600), 0);
  EXPECT_EQ(within(20,
                   [&] {
                     Cli c;
                     return c.run({"plan", dir.string(), "--gpu", "h100"}) == 2 &&
                            c.err.str().find("setup.py: a FIFO (named pipe), not a file kiln reads") !=
                                std::string::npos;
                   }),
            0);
  std::filesystem::remove(dir / "setup.py");
  std::filesystem::remove(dir / "CMakeLists.txt");
  std::filesystem::create_symlink("/dev/zero", dir / "CMakeLists.txt");
  EXPECT_EQ(within(20,
                   [&] {
                     Cli c;
                     return c.run({"plan", dir.string(), "--gpu", "h100"}) == 2 &&
                            c.err.str().find("CMakeLists.txt: a character device") != std::string::npos;
                   }),
            0);
}

TEST(ReadBounds, ReportReadsNoFifoOrDeviceInABuildFolder) {
  TempDir tmp;
  const std::filesystem::path build = tmp / "b";
  std::filesystem::create_directories(build);
  std::filesystem::create_symlink("/dev/zero", build / "kiln-exec.jsonl");
  ASSERT_EQ(::mkfifo((build / "kiln-build.json").c_str(), 0600), 0);
  std::ofstream(build / ".ninja_log") << "# ninja log v5\n0\t10\t0\ta.o\t1\n";
  EXPECT_EQ(within(20,
                   [&] {
                     Cli c;
                     c.run({"report", build.string()});
                     return c.out.str().find("kiln-exec.jsonl: a character device, not a file kiln reads") !=
                                std::string::npos ||
                            c.err.str().find("kiln-exec.jsonl: a character device, not a file kiln reads") !=
                                std::string::npos;
                   }),
            0);
  std::filesystem::remove(build / ".ninja_log");
  ASSERT_EQ(::mkfifo((build / ".ninja_log").c_str(), 0600), 0);
  EXPECT_EQ(within(20,
                   [&] {
                     Cli c;
                     return c.run({"report", build.string()}) == 1 &&
                            c.err.str().find(".ninja_log: a FIFO (named pipe)") != std::string::npos;
                   }),
            0);
}
