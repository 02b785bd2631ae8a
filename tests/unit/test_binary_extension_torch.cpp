// Which torch an extension module is checked against: the torch of the interpreter that imports it
// (binary/extension_torch). Fakes for the choice; a forked child for the bare-name case, which once
// looped forever (issue 33).
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "binary/extension_torch.hpp"
#include "binary_fixtures.hpp"
#include "io/isolated_python.hpp"
#include "test_support.hpp"

using namespace kiln;
using namespace kiln::binary;

namespace {

const std::string kModule = "m.cpython-311-x86_64-linux-gnu.so";

std::string spec_call(const std::string& python) {
  return io::isolated_python_line(python, torch_find_spec_script(), io::PythonSite::needed);
}

// Runs `f` in a forked child; true when it returned within `limit` (a loop fails, never hangs).
template <typename F>
bool ends_within(F f, std::chrono::seconds limit) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    f();
    ::_exit(0);
  }
  const auto deadline = std::chrono::steady_clock::now() + limit;
  int status = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    if (::waitpid(pid, &status, WNOHANG) == pid) return WIFEXITED(status) && WEXITSTATUS(status) == 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, &status, 0);
  return false;
}

}  // namespace

TEST(ExtensionTorch, OnlyPythonModulesAreExtensions) {
  EXPECT_TRUE(python_extension_module("/a/_C.cpython-312-x86_64-linux-gnu.so"));
  EXPECT_TRUE(python_extension_module("ops.abi3.so"));
  EXPECT_FALSE(python_extension_module("/a/libtorch_python.so"));
  kiln::testing::FakeSeams f;
  ExtensionTorchFinder finder(f.seams, "");
  EXPECT_FALSE(finder.find("/a/libfoo.so"));
  EXPECT_TRUE(f.proc.calls().empty());
}

// `kiln verify NAME.so` from inside site-packages looped in the search for the enclosing
// site-packages (the dirname of a bare name is itself); every spelling must end.
TEST(ExtensionTorch, EveryPathSpellingEnds) {
  kiln::testing::TempDir dir;
  const std::filesystem::path site = dir / "lib/python3.11/site-packages";
  std::filesystem::create_directories(site / "torch/lib");
  std::filesystem::create_directories(site / "pkg");
  const auto here = std::filesystem::current_path();
  std::filesystem::current_path(site);
  for (const std::string p : {kModule, "./" + kModule, "pkg/" + kModule, "pkg/../" + kModule})
    EXPECT_TRUE(ends_within(
        [&] {
          kiln::testing::RealSeams s;
          ExtensionTorchFinder finder(s.seams, "");
          auto t = finder.find(p);
          // Relative spellings are read from the cwd: torch beside the module is found.
          if (!t || t->torch_dir != site.string() + "/torch") ::_exit(3);
        },
        std::chrono::seconds(10)))
        << p;
  std::filesystem::current_path(here);
  EXPECT_EQ(enclosing_site_packages("/x/site-packages/a/b.so"), "/x/site-packages");
  EXPECT_EQ(enclosing_site_packages("/x/b.so"), "");
}

TEST(ExtensionTorch, TorchBesideTheModuleNeedsNoInterpreter) {
  kiln::testing::FakeSeams f;
  f.fs.add_dir("/sp/site-packages/torch/lib");
  f.fs.add_file("/sp/site-packages/ext/" + kModule, "x");
  ExtensionTorchFinder finder(f.seams, "");
  auto t = finder.find("/sp/site-packages/ext/" + kModule);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->torch_dir, "/sp/site-packages/torch");
  EXPECT_EQ(t->how, "the site-packages it sits in");
  EXPECT_TRUE(f.proc.calls().empty());
}

// A --system-site-packages venv holds no torch of its own: its interpreter finds the base's.
TEST(ExtensionTorch, AVenvsOwnInterpreterIsAsked) {
  kiln::testing::FakeSeams f;
  f.fs.add_file("/v/pyvenv.cfg", "home = /usr/bin\ninclude-system-site-packages = true\nversion = 3.11.2\n");
  f.fs.add_file("/v/bin/python3", "", true);
  f.fs.add_file("/v/lib/python3.11/site-packages/" + kModule, "x");
  f.fs.add_dir("/usr/lib/python3/dist-packages/torch/lib");
  f.proc.on(spec_call("/v/bin/python3"), io::ran("/usr/lib/python3/dist-packages/torch\n"));
  ExtensionTorchFinder finder(f.seams, "");
  auto t = finder.find("/v/lib/python3.11/site-packages/" + kModule);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->torch_dir, "/usr/lib/python3/dist-packages/torch");
  EXPECT_EQ(t->how, "the interpreter of the venv at /v");
  // Asked once for any number of modules.
  finder.find("/v/lib/python3.11/site-packages/other." + kModule);
  EXPECT_EQ(f.proc.calls().size(), 1u);
}

// The venv's bin/ is gone (copied site-packages): its pyvenv.cfg names the base interpreter.
TEST(ExtensionTorch, AVenvWithoutItsInterpreterFallsBackToItsBase) {
  kiln::testing::FakeSeams f;
  f.fs.add_file("/v/pyvenv.cfg",
                "home = /usr/bin\ninclude-system-site-packages = true\nexecutable = /usr/bin/python3.11\n");
  f.proc.on(spec_call("/usr/bin/python3.11"), io::ran("/base/torch\n"));
  ExtensionTorchFinder finder(f.seams, "");
  auto t = finder.find("/v/lib/python3.11/site-packages/" + kModule);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->torch_dir, "/base/torch");
  EXPECT_EQ(t->how, "the base interpreter of the venv at /v");
}

TEST(ExtensionTorch, PythonNamedWinsAndAModuleOutsideSitePackagesUsesPathsPython) {
  kiln::testing::FakeSeams f;
  f.fs.add_dir("/sp/site-packages/torch/lib");
  f.fs.add_file("/opt/py/bin/python", "", true);
  f.fs.add_file("/usr/bin/python3", "", true);
  f.env.set("PATH", "/usr/bin");
  f.proc.on(spec_call("/opt/py/bin/python"), io::ran("/opt/torch\n"));
  f.proc.on(spec_call("/usr/bin/python3"), io::ran("\n"));
  {
    ExtensionTorchFinder finder(f.seams, "/opt/py/bin/python");
    auto t = finder.find("/sp/site-packages/" + kModule);
    ASSERT_TRUE(t);
    EXPECT_EQ(t->torch_dir, "/opt/torch");
    EXPECT_EQ(t->how, "--python /opt/py/bin/python");
  }
  ExtensionTorchFinder finder(f.seams, "");
  auto t = finder.find("/build/" + kModule);  // a build folder: the user's python imports it
  ASSERT_TRUE(t);
  EXPECT_EQ(t->torch_dir, "");
  EXPECT_NE(t->how.find("python3 on PATH"), std::string::npos) << t->how;
  EXPECT_NE(t->how.find("finds no torch"), std::string::npos) << t->how;
  ASSERT_EQ(finder.used().size(), 1u);
  // The interpreter a site-packages' lib/pythonX.Y names.
  f.fs.add_file("/usr/bin/python3.12", "", true);
  f.proc.on(spec_call("/usr/bin/python3.12"), io::ran("/usr/local/lib/python3.12/dist-packages/torch\n"));
  t = finder.find("/home/u/.local/lib/python3.12/site-packages/" + kModule);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->torch_dir, "/usr/local/lib/python3.12/dist-packages/torch");
  EXPECT_EQ(t->how, "python3.12, whose site-packages it sits in");
}
