// plan/ledger_place on the real filesystem: the governor's ledger folder is used only when it is
// private to this user (issue 34, case 4: a /tmp/kiln-UID made by another user, mode 0777).
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "binary_fixtures.hpp"
#include "fakes/environment.hpp"
#include "io/fs.hpp"
#include "io/private_folder.hpp"
#include "plan/ledger_place.hpp"

using namespace kiln;

TEST(LedgerPlace, AFolderOthersMayWriteOrOwnIsReplacedByAPrivateOneNamedInTheWarning) {
  kiln::testing::TempDir tmp;
  io::RealFilesystem fs;
  io::FakeEnvironment env;
  const auto shared = tmp / "shared";
  ::mkdir(shared.c_str(), 0777);
  ::chmod(shared.c_str(), 0777);
  env.set("KILN_LEDGER_DIR", shared);
  env.set("XDG_CACHE_HOME", tmp / "cache");
  const auto uid = static_cast<unsigned>(::getuid());
  auto place = plan::machine_ledger_place(fs, env, uid);
  const auto mine = tmp / "cache/kiln/ledger";
  EXPECT_EQ(place.path.rfind(mine + "/ledger-", 0), 0u) << place.path;
  EXPECT_NE(place.warning.find(shared + " is not private (group or others may write it (mode 0777))"),
            std::string::npos)
      << place.warning;
  EXPECT_NE(place.warning.find("using " + mine + " instead"), std::string::npos) << place.warning;
  EXPECT_EQ(io::private_folder_problem(mine, uid), "");

  // A private folder is used as it is; a missing one is made 0700.
  ::chmod(shared.c_str(), 0700);
  place = plan::machine_ledger_place(fs, env, uid);
  EXPECT_EQ(place.path.rfind(shared + "/ledger-", 0), 0u) << place.path;
  EXPECT_EQ(place.warning, "");
  const auto fresh = tmp / "fresh";
  EXPECT_EQ(io::private_folder_problem(fresh, uid), "");
  struct stat st {};
  ASSERT_EQ(::stat(fresh.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);

  // Owned by someone else: as root the test can make one.
  if (::geteuid() == 0) {
    ASSERT_EQ(::chown(shared.c_str(), 65534, 65534), 0);
    EXPECT_EQ(io::private_folder_problem(shared, uid), "owned by uid 65534, not this user (0)");
  }
  std::filesystem::create_symlink(fresh, tmp / "link");
  EXPECT_EQ(io::private_folder_problem(tmp / "link", uid), "a link");
}
