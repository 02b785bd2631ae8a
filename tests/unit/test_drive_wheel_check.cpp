// data/wheel_unpack.py run for real: the check a wheel passes before kiln keeps or installs it
// (issue 34, case 1: a wheel whose _C.so was 0 bytes was cached and installed with exit 0).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "binary_fixtures.hpp"
#include "drive/wheel_build.hpp"
#include "test_support.hpp"

using namespace kiln;

namespace {

// Writes WHEEL with the members given as python literals, RECORD computed from `record_from`
// (the members RECORD describes: the build's race wrote RECORD for one .so and zipped another).
void make_wheel(const std::string& wheel, const std::string& members, const std::string& record_from) {
  const std::string script =
      "import base64, hashlib, sys, zipfile\n"
      "m = " +
      members + "\nr = " + record_from +
      "\n"
      "rows = []\n"
      "for n, b in r.items():\n"
      "    h = base64.urlsafe_b64encode(hashlib.sha256(b).digest()).rstrip(b'=').decode()\n"
      "    rows.append('%s,sha256=%s,%d' % (n, h, len(b)))\n"
      "rows.append('ext-1.0.dist-info/RECORD,,')\n"
      "with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:\n"
      "    for n, b in m.items(): z.writestr(n, b)\n"
      "    z.writestr('ext-1.0.dist-info/RECORD', '\\n'.join(rows) + '\\n')\n";
  kiln::testing::RealSeams real;
  auto r = real.proc.run({.argv = {"/usr/bin/python3", "-c", script, wheel}});
  ASSERT_TRUE(r.ok()) << r.err;
}

io::ProcessResult check(const std::string& wheel, const std::string& dest) {
  io::RealProcessRunner proc;
  return proc.run({.argv = drive::wheel_unpack_argv("/usr/bin/python3", wheel, dest)});
}

}  // namespace

TEST(WheelCheck, AGoodWheelIsUnpackedAndBrokenOnesAreRefusedNamingTheMember) {
  if (::access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/python3";
  kiln::testing::TempDir tmp;
  const std::string so = "b'\\x7fELF' + b'\\x02' * 200";
  const std::string good = "{'ext/__init__.py': b'', 'ext/_C.so': " + so + "}";
  const auto w = tmp / "good.whl", dest = tmp / "contents";
  make_wheel(w, good, good);
  auto r = check(w, dest);
  EXPECT_TRUE(r.ok()) << r.err;
  EXPECT_EQ(std::filesystem::file_size(dest + "/ext/_C.so"), 204u);

  // The race: RECORD agrees with a 0-byte _C.so, which does not load.
  const std::string empty = "{'ext/__init__.py': b'', 'ext/_C.so': b''}";
  make_wheel(w, empty, empty);
  r = check(w, dest);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("ext/_C.so: 0 bytes and not an ELF shared library"), std::string::npos) << r.err;

  // A member that is not what RECORD says.
  make_wheel(w, empty, good);
  r = check(w, dest);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("ext/_C.so: its sha256 is not RECORD's"), std::string::npos) << r.err;

  // A member RECORD does not list, and one it lists that is missing.
  make_wheel(w, good, "{'ext/__init__.py': b''}");
  r = check(w, dest);
  EXPECT_NE(r.err.find("ext/_C.so is not in RECORD"), std::string::npos) << r.err;
  make_wheel(w, "{'ext/__init__.py': b''}", good);
  r = check(w, dest);
  EXPECT_NE(r.err.find("RECORD lists ext/_C.so, which the wheel lacks"), std::string::npos) << r.err;

  // Not a zip at all.
  std::ofstream(w) << "not a zip";
  r = check(w, dest);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("not a readable zip"), std::string::npos) << r.err;
}
