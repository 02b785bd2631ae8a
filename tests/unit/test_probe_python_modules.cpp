// probe/python_modules: whether the build's interpreter finds a module, without importing it.
#include <gtest/gtest.h>

#include "io/isolated_python.hpp"
#include "test_support.hpp"

#include "fakes/process.hpp"
#include "probe/python_modules.hpp"

using namespace kiln;

namespace {

TEST(PythonModules, AnswersAreReadAndBadNamesNeverReachTheInterpreter) {
  kiln::testing::FakeSeams seams;
  seams.proc.on(io::isolated_python_line("py", probe::find_python_modules_script(), io::PythonSite::needed,
                                         {"triton", "cutlass"}),
                io::ran("triton 0\ncutlass 1\n"));
  auto found = probe::find_python_modules(seams.seams, "py", {"triton", "cutlass", "a;b", "9x", ""});
  EXPECT_EQ(found, (std::map<std::string, bool>{{"triton", false}, {"cutlass", true}}));
  ASSERT_EQ(seams.proc.calls().size(), 1u);
  EXPECT_EQ(seams.proc.calls()[0].cwd, "/");  // not the project's folder: its own modules are not found

  // No answer: nothing is known, and nothing is guessed.
  kiln::testing::FakeSeams silent;
  silent.proc.on(
      io::isolated_python_line("py", probe::find_python_modules_script(), io::PythonSite::needed, {"triton"}),
      io::ran("", 1));
  EXPECT_TRUE(probe::find_python_modules(silent.seams, "py", {"triton"}).empty());
  EXPECT_TRUE(probe::find_python_modules(silent.seams, "py", {"not a name"}).empty());
}

TEST(PythonModules, TheRealInterpreterFindsWithoutImporting) {
  kiln::testing::RealSeams real;
  auto found = probe::find_python_modules(real.seams, "/usr/bin/python3", {"json", "kiln_no_such_module_x"});
  EXPECT_EQ(found, (std::map<std::string, bool>{{"json", true}, {"kiln_no_such_module_x", false}}));
}

}  // namespace
