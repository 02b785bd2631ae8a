// Files that change under the reader: a FIFO is never opened for reading (it would block), a file
// truncated while mapped is an error, not a SIGBUS.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <numeric>

#include "binary/file_walk.hpp"
#include "binary/inspect.hpp"
#include "binary/mapped_file.hpp"
#include "binary_fixtures.hpp"

using namespace kiln;

TEST(MappedFile, TruncatedWhileMappedReadsZerosAndSaysSo) {
  kiln::testing::TempDir dir;
  auto path = dir.write("big.so", std::string(1 << 20, 'x'));
  auto blob = binary::map_file(path);
  ASSERT_TRUE(blob) << blob.error();
  EXPECT_FALSE((*blob)->changed_while_read());
  ASSERT_EQ(::truncate(path.c_str(), 4096), 0);
  // Without the guard this read past the new end kills the process with SIGBUS.
  const auto b = (*blob)->bytes();
  const auto sum = std::accumulate(b.data(), b.data() + b.size(), std::uint64_t{0});
  EXPECT_EQ(sum, std::uint64_t{'x'} * 4096);  // the rest reads as zeros
  EXPECT_TRUE((*blob)->changed_while_read());
}

TEST(MappedFile, SpecialFilesAreNotOpened) {
  kiln::testing::TempDir dir;
  const std::string fifo = dir / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Opening a FIFO for reading with no writer blocks forever; this must return at once.
  auto blob = binary::map_file(fifo);
  ASSERT_FALSE(blob);
  EXPECT_NE(blob.error().find("FIFO"), std::string::npos) << blob.error();
  auto r = binary::inspect_file(fifo, {});
  ASSERT_TRUE(r.error);
  EXPECT_EQ(binary::special_file_kind(fifo), "a FIFO (named pipe)");
  EXPECT_EQ(binary::special_file_kind("/dev/null"), "a character device");
  EXPECT_EQ(binary::special_file_kind(dir.path()), "");
}

TEST(FileWalk, SpecialFilesInFoldersAreSetAsideWithWhatTheyAre) {
  kiln::testing::TempDir dir;
  dir.write("lib/a.so", "x");
  const std::string fifo = dir / "lib/pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  io::RealFilesystem fs;
  auto w = binary::walk_paths({dir.path()}, fs);
  ASSERT_EQ(w.files.size(), 1u);
  ASSERT_EQ(w.special.size(), 1u);
  EXPECT_EQ(w.special[0].first, fifo);
  EXPECT_EQ(w.special[0].second, "a FIFO (named pipe)");
}
