// Which project a command works on when no DIR is given, and why.
#include <gtest/gtest.h>

#include <sstream>

#include "fakes/process.hpp"
#include "cli/command.hpp"
#include "cli/project_dir.hpp"
#include "core/data.hpp"
#include "test_support.hpp"

using namespace kiln;

namespace {

using Harness = kiln::testing::FakeSeams;

TEST(ProjectDir, TheCurrentFolderWhenItIsAProject) {
  Harness h;
  h.fs.add_file("/work/proj/setup.py", "from torch.utils.cpp_extension import CUDAExtension\n");
  auto r = cli::resolve_project_dir("", h.seams, false, "/work/proj");
  EXPECT_EQ(r.dir, "/work/proj");
  EXPECT_EQ(r.reason, "the current folder (no DIR given)");
}

TEST(ProjectDir, TheCurrentFolderIsReadAsANamedDirIs) {
  // A setup.py whose extensions come from its own op-builder package names no torch word: with no
  // DIR, the folder is still found by the ast reading (the interpreter's answer is faked here).
  Harness h;
  h.env.set("PATH", "/usr/bin");
  h.fs.add_file("/usr/bin/python3", "", true);
  h.fs.add_file("/work/ds/setup.py", "from op_builder.all_ops import ALL_OPS\n");
  const std::string reader(*kiln::data::file("read_setup.py"));
  h.proc.on("/usr/bin/python3 -I -S -c " + reader + " /work/ds",
            io::ran(R"({"version": 1, "files": ["setup.py", "op_builder/fused_adam.py"],
                        "ops": [{"name": "fused_adam", "var": "DS_BUILD_FUSED_ADAM", "cuda": true,
                                 "where": "op_builder/fused_adam.py:6"}]})"));
  auto r = cli::resolve_project_dir("", h.seams, false, "/work/ds");
  EXPECT_EQ(r.dir, "/work/ds");
  ASSERT_EQ(h.proc.calls().size(), 1u);  // the reader ran, on this folder
  // Without a reading (the interpreter said nothing kiln can use), the words decide: none here.
  h.proc.on("/usr/bin/python3 -I -S -c " + reader + " /work/ds", io::ran("not json"));
  try {
    cli::resolve_project_dir("", h.seams, false, "/work/ds");
    FAIL() << "expected a usage error";
  } catch (const cli::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("found setup.py, which names no torch extension"), std::string::npos)
        << e.what();
  }
}

TEST(ProjectDir, TheBundledExampleFromTheKilnRepository) {
  Harness h;
  h.fs.add_file("/src/kiln/CMakeLists.txt", "project(kiln CXX)\n");
  h.fs.add_file("/src/kiln/data/project_knobs.toml", "");
  h.fs.add_file("/src/kiln/examples/minitorch/CMakeLists.txt", "");
  auto r = cli::resolve_project_dir("", h.seams, false, "/src/kiln");
  EXPECT_EQ(r.dir, "/src/kiln/examples/minitorch");
  EXPECT_NE(r.reason.find("kiln repository"), std::string::npos);
}

TEST(ProjectDir, NotAProjectIsAUsageErrorSayingWhatToPass) {
  Harness h;
  h.fs.add_dir("/tmp/empty");
  try {
    cli::resolve_project_dir("", h.seams, false, "/tmp/empty");
    FAIL() << "expected a usage error";
  } catch (const cli::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("/tmp/empty is not a project"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--example"), std::string::npos) << e.what();
  }
}

TEST(ProjectDir, DirArgumentWinsAndExampleWithDirIsAUsageError) {
  Harness h;
  h.fs.add_dir("/p");
  EXPECT_EQ(cli::resolve_project_dir("/p", h.seams).reason, "the DIR argument");
  EXPECT_THROW(cli::resolve_project_dir("/p", h.seams, true), cli::UsageError);
  EXPECT_THROW(cli::resolve_project_dir("/nope", h.seams), cli::UsageError);
}

}  // namespace

// Issue 21: run from a package folder of a project, kiln points at the project.
TEST(ProjectDir, AFolderInsideAProjectNamesTheProject) {
  Harness h;
  h.fs.add_file("/work/proj/setup.py", "from torch.utils.cpp_extension import CUDAExtension\n");
  h.fs.add_file("/work/proj/pkg/__init__.py", "");
  try {
    cli::resolve_project_dir("", h.seams, false, "/work/proj/pkg");
    FAIL() << "a package folder was taken for a project";
  } catch (const cli::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("inside /work/proj (setup.py): pass that folder"), std::string::npos)
        << e.what();
  }
}
