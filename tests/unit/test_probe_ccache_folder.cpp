// An unusable ccache folder, found before a build (issue 23: every compile failed with a generic
// diagnosis while the doctor said 0 errors).
#include <gtest/gtest.h>

#include "fakes/fs.hpp"
#include "fakes/process.hpp"
#include "probe/ccache_folder.hpp"

using namespace kiln;
using probe::ccache_folder_problem;

TEST(CcacheFolder, UnusableFoldersAreNamedUsableOnesAreNot) {
  io::FakeFilesystem fs;
  fs.add_dir("/home/u/.cache/ccache/tmp");
  EXPECT_EQ(ccache_folder_problem(fs, "/home/u/.cache/ccache"), std::nullopt);
  EXPECT_EQ(ccache_folder_problem(fs, "/home/u/.cache/other/ccache"), std::nullopt);  // ccache makes it
  EXPECT_EQ(ccache_folder_problem(fs, ""), std::nullopt);                             // not known: nothing said

  fs.add_file("/c/file", "not a folder");
  EXPECT_EQ(ccache_folder_problem(fs, "/c/file"), "is a file, not a folder");
  EXPECT_EQ(ccache_folder_problem(fs, "/c/file/sub"), "does not exist and cannot be made: /c/file is a file");

  fs.set_read_only("/shared/ccache");  // made by root with sudo, used by a user
  EXPECT_EQ(ccache_folder_problem(fs, "/shared/ccache"), "cannot be written by this user");
  EXPECT_EQ(ccache_folder_problem(fs, "/shared/ccache/a/b"),
            "does not exist and cannot be made in /shared/ccache by this user");

  fs.add_dir("/d/ccache");
  fs.set_read_only("/d/ccache/tmp");  // where ccache 4 writes on every miss
  EXPECT_EQ(ccache_folder_problem(fs, "/d/ccache"), "has a tmp/ this user cannot write in");
}

TEST(CcacheFolder, TheFolderComesFromCcacheItself) {
  io::FakeProcessRunner proc;
  proc.on("/usr/bin/ccache --get-config cache_dir", io::ran("/home/u/.cache/ccache\n"));
  EXPECT_EQ(probe::ccache_folder_of(proc, "/usr/bin/ccache"), "/home/u/.cache/ccache");
  EXPECT_EQ(probe::ccache_folder_of(proc, "/old/ccache"), std::nullopt);  // ccache 3 has no --get-config
}
