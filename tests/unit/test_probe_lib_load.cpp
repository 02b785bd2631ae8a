// The library load check, for real: kiln (kiln::testing::kiln_binary()) runs as the child and dlopens libraries
// built here — one that loads, a file that is not an ELF, one with an undefined symbol (fails only
// under RTLD_NOW), and one whose constructor aborts (the child dies, kiln does not, and the next
// library is still checked).
#include <gtest/gtest.h>

#include "fakes/process.hpp"
#include "test_support.hpp"

#include "doctor_test_util.hpp"
#include "probe/lib_load.hpp"

using namespace kiln;
using namespace kiln::probe;

TEST(LibLoad, RealChildReportsLoadsFailuresAndCrashes) {
  doctest::TempDir dir;
  auto good_c = dir.write("good.c", "int good_fn(void) { return 1; }\n");
  auto undef_c = dir.write(
      "undef.c", "extern int kiln_missing_symbol_xyz(void);\nint u(void) { return kiln_missing_symbol_xyz(); }\n");
  auto crash_c =
      dir.write("crash.c", "#include <stdlib.h>\n__attribute__((constructor)) static void boom(void) { abort(); }\n");
  const std::string good = dir.path() + "/libgood.so", undef = dir.path() + "/libundef.so",
                    crash = dir.path() + "/libcrash.so";
  if (!doctest::build_shared_library(good_c, good, {"-Wl,-soname,libgood.so.1"})) GTEST_SKIP() << "no C compiler";
  ASSERT_TRUE(doctest::build_shared_library(undef_c, undef));
  ASSERT_TRUE(doctest::build_shared_library(crash_c, crash));
  const std::string text = dir.write("libtext.so", "this is not a shared library\n");

  io::RealProcessRunner proc;
  auto r = check_loads(proc, kiln::testing::kiln_binary(), {good, text, undef, crash, good});
  ASSERT_EQ(r.size(), 5u);
  EXPECT_TRUE(r[0].checked);
  EXPECT_TRUE(r[0].loaded) << r[0].error;
  EXPECT_EQ(r[0].soname, "libgood.so.1");

  EXPECT_TRUE(r[1].checked);
  EXPECT_FALSE(r[1].loaded);
  EXPECT_FALSE(r[1].error.empty());
  EXPECT_EQ(r[1].elf_error, "not an ELF file (no \\x7fELF magic)");

  EXPECT_FALSE(r[2].loaded);
  EXPECT_NE(r[2].error.find("kiln_missing_symbol_xyz"), std::string::npos) << r[2].error;

  EXPECT_TRUE(r[3].checked);
  EXPECT_FALSE(r[3].loaded);
  EXPECT_NE(r[3].error.find("signal 6"), std::string::npos) << r[3].error;

  EXPECT_TRUE(r[4].checked);  // after the crash, a fresh child went on
  EXPECT_TRUE(r[4].loaded) << r[4].error;
}

TEST(LibLoad, ParsesTheChildProtocolAndIgnoresStrayOutput) {
  io::FakeProcessRunner proc;
  io::ProcessResult res = io::ran(
      "KILN-LOAD {\"start\":\"/a.so\"}\nhello from a constructor\n"
      "KILN-LOAD {\"path\":\"/a.so\",\"loaded\":true,\"error\":\"\",\"soname\":\"liba.so.1\",\"elf_error\":\"\"}\n"
      "KILN-LOAD {\"start\":\"/b.so\"}\n");
  res.exit_code = 0;
  res.term_signal = 11;  // died inside /b.so
  proc.on("/kiln doctor --internal-load /a.so --internal-load /b.so --internal-load /c.so", res);
  proc.on("/kiln doctor --internal-load /c.so",
          io::ran("KILN-LOAD {\"path\":\"/c.so\",\"loaded\":false,\"error\":\"/c.so: cannot open shared object file\","
                  "\"soname\":\"\",\"elf_error\":\"cannot open: No such file or directory\"}\n"));
  auto r = check_loads(proc, "/kiln", {"/a.so", "/b.so", "/c.so"});
  ASSERT_EQ(r.size(), 3u);
  EXPECT_TRUE(r[0].loaded);
  EXPECT_EQ(r[0].soname, "liba.so.1");
  EXPECT_FALSE(r[1].loaded);
  EXPECT_NE(r[1].error.find("signal 11"), std::string::npos) << r[1].error;
  EXPECT_FALSE(r[2].loaded);
  EXPECT_NE(r[2].error.find("cannot open"), std::string::npos);
  EXPECT_EQ(proc.calls().size(), 2u);
}

TEST(LibLoad, AChildThatCannotStartIsSaid) {
  io::FakeProcessRunner proc;  // no answers: "No such file or directory"
  auto r = check_loads(proc, "/missing/kiln", {"/a.so"});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_FALSE(r[0].checked);
  EXPECT_NE(r[0].error.find("could not start"), std::string::npos);
}
