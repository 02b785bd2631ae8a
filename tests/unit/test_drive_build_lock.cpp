// One build per build folder: the lock is exclusive, names its holder, and frees on release.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "drive/build_lock.hpp"

using kiln::drive::BuildLock;

TEST(BuildLock, SecondRunIsRefusedWithTheHolderNamed) {
  auto dir = std::filesystem::temp_directory_path() / ("kiln-lock-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  {
    auto first = BuildLock::acquire(dir.string(), "kiln build /src/proj --gpu h100");
    ASSERT_TRUE(first) << first.error();
    // flock locks belong to an open file description: a second open, even in this process, is refused.
    auto second = BuildLock::acquire(dir.string(), "kiln build again");
    ASSERT_FALSE(second);
    EXPECT_NE(second.error().find("pid " + std::to_string(::getpid())), std::string::npos) << second.error();
    EXPECT_NE(second.error().find("kiln build /src/proj --gpu h100"), std::string::npos) << second.error();
    EXPECT_NE(second.error().find("running since 20"), std::string::npos) << second.error();
    EXPECT_NE(second.error().find("--build-dir"), std::string::npos);
  }
  // Released with the first: the folder is free again.
  auto third = BuildLock::acquire(dir.string(), "kiln build");
  EXPECT_TRUE(third);
  std::filesystem::remove_all(dir);
}

TEST(BuildLock, UnwritableFolderIsAnErrorNotACrash) {
  auto r = BuildLock::acquire("/proc/kiln-no-such-dir", "kiln build");
  ASSERT_FALSE(r);
  // The folder that could not be made is named with why, not the lock's "No such file" after it.
  EXPECT_NE(r.error().find("cannot create /proc/kiln-no-such-dir/.kiln: "), std::string::npos) << r.error();
  EXPECT_NE(r.error().find("--build-dir"), std::string::npos) << r.error();
}
