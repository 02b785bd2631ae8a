// The filesystem seam's write probe: tried by creating a file, for the real folder and the fake.
#include <gtest/gtest.h>

#include <filesystem>

#include "doctor_test_util.hpp"
#include "fakes/fs.hpp"

using namespace kiln;

TEST(Filesystem, CanCreateInIsTriedAndLeavesNothingBehind) {
  doctest::TempDir d;
  io::RealFilesystem fs;
  EXPECT_TRUE(fs.can_create_in(d.path()));
  EXPECT_TRUE(fs.list(d.path()).empty());  // the probe file is gone
  EXPECT_FALSE(fs.can_create_in(d.write("file", "x")));
  EXPECT_FALSE(fs.can_create_in(d.path() + "/missing"));
  EXPECT_FALSE(fs.can_create_in("/proc"));  // no file can be made there, root or not
}

TEST(Filesystem, TheFakeHasReadOnlyFolders) {
  io::FakeFilesystem fs;
  fs.add_file("/a/b/f", "x");
  EXPECT_TRUE(fs.can_create_in("/a/b"));
  EXPECT_TRUE(fs.can_create_in("/"));
  EXPECT_FALSE(fs.can_create_in("/a/b/f"));
  EXPECT_FALSE(fs.can_create_in("/missing"));
  fs.set_read_only("/a/b");
  EXPECT_FALSE(fs.can_create_in("/a/b"));
  EXPECT_FALSE(fs.write("/a/b/g", "y"));
  fs.add_file("/a/b/c/h", "z");  // adding beneath it keeps it read-only
  EXPECT_FALSE(fs.can_create_in("/a/b"));
  EXPECT_TRUE(fs.can_create_in("/a/b/c"));
}
