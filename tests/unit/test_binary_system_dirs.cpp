// The system library folders: one table, two orders. This pins the decision that the doctor does not
// search ld.so's whole list (see binary/system_dirs.hpp): changing either order changes what
// `kiln doctor` or `kiln verify` reports, so it must be done here, on purpose.
#include <gtest/gtest.h>

#include <algorithm>

#include "binary/system_dirs.hpp"

using namespace kiln;

TEST(SystemDirs, LdSoOrderIsTheMultiarchThenLib64ThenLibUnion) {
  EXPECT_EQ(binary::ld_so_default_dirs(),
            (std::vector<std::string>{"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64",
                                      "/lib", "/usr/lib"}));
}

TEST(SystemDirs, TheDoctorSearchesUsrFirstAndNotTheMergedUsrLinks) {
  const auto& doctor = binary::doctor_library_dirs();
  EXPECT_EQ(doctor, (std::vector<std::string>{"/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/lib",
                                              "/lib/x86_64-linux-gnu"}));
  for (const char* link : {"/lib64", "/lib"}) EXPECT_EQ(std::count(doctor.begin(), doctor.end(), link), 0) << link;
}
