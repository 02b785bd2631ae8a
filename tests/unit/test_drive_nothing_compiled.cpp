// A torch extension build that compiled nothing though the project has C/C++/CUDA sources fails,
// naming the sources and the switch left off (issue 33); a wheel-cache hit of a wheel with a library, a build that
// compiled, an up-to-date CMake folder and a project without native sources do not.
#include <gtest/gtest.h>

#include "drive/nothing_compiled.hpp"
#include "read/native_sources.hpp"
#include "test_support.hpp"

using namespace kiln;

namespace {

struct World : kiln::testing::FakeSeams {
  plan::Plan plan;
  drive::BuildOutcome o;
  World() {
    plan.kind = read::ProjectKind::extension;
    plan.project_dir = "/p";
    plan.build_dir = "/p/build-kiln";
    fs.add_file("/p/setup.py", "...");
    fs.add_file("/p/csrc/ops.cpp", "int f();");
    fs.add_file("/p/csrc/kernel.cu", "__global__ void k() {}");
    o.ok = true;
    o.has_cache_stats = true;  // ccache ran, recorded nothing
    // pytorch_scatter-like opt-in (a switch kiln's reader followed to the if that makes ext_modules).
    read::Knob k;
    k.name = "GX_BUILD_EXT";
    k.role = "build-opt-in";
    k.effect = "ext";
    k.where = "setup.py:5";
    k.gate_at = "setup.py:6 if os.getenv('GX_BUILD_EXT') == '1':";
    k.gate_value = "1";
    k.gate_match = true;
    k.proposed = "1";
    plan.knobs.knobs.push_back(k);
  }
  std::optional<std::string> verdict(int exec_units = -1) {
    return drive::nothing_compiled_failure(plan, o, exec_units, seams);
  }
};

}  // namespace

TEST(NothingCompiled, AnExtensionBuildThatCompiledNothingFailsNamingSourcesAndSwitch) {
  World w;
  auto why = w.verdict();
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("nothing was compiled"), std::string::npos) << *why;
  EXPECT_NE(why->find("2 files (csrc/kernel.cu, csrc/ops.cpp; 1 CUDA)"), std::string::npos) << *why;
  EXPECT_NE(why->find("GX_BUILD_EXT was '' (unset, setup.py:5)"), std::string::npos) << *why;
  EXPECT_NE(why->find("--knob GX_BUILD_EXT=1"), std::string::npos) << *why;
}

TEST(NothingCompiled, ASwitchKilnCouldNotReadIsListedAsLeftUnset) {
  World w;
  w.plan.knobs.knobs.front().effect = "";
  w.plan.knobs.knobs.front().role = "unknown";
  auto why = w.verdict();
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("the project reads GX_BUILD_EXT (setup.py:5), left unset"), std::string::npos) << *why;
  w.plan.knobs.knobs.clear();
  why = w.verdict();
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("kiln found no switch"), std::string::npos) << *why;
}

TEST(NothingCompiled, ANoOpOrABuildThatCompiledIsNotOne) {
  {
    World w;
    w.o.wheel_cache.hit = true;  // installed from kiln's wheel cache: nothing to compile
    w.o.artifacts = {"/p/build-kiln/wheel/contents/gx/_C.so"};
    EXPECT_FALSE(w.verdict());
    // A kept wheel that holds no library was built with nothing compiled: the same failure.
    w.o.artifacts.clear();
    auto why = w.verdict();
    ASSERT_TRUE(why);
    EXPECT_NE(why->find("the wheel installed from kiln's wheel cache"), std::string::npos) << *why;
  }
  {
    World w;
    w.o.artifacts = {"/p/build-kiln/wheel/contents/gx/_C.so"};
    EXPECT_FALSE(w.verdict());
  }
  {
    World w;
    w.o.cache.misses = 2;
    EXPECT_FALSE(w.verdict());
  }
  {
    World w;
    EXPECT_FALSE(w.verdict(3));  // kiln exec recorded compiles
    w.o.steps_run = 2;
    EXPECT_FALSE(w.verdict());
  }
  {
    World w;
    w.plan.kind = read::ProjectKind::cmake;  // 0 steps: an up-to-date Ninja folder
    EXPECT_FALSE(w.verdict());
  }
  {
    World w;
    w.o.ok = false;  // a failed step has its own diagnosis
    EXPECT_FALSE(w.verdict());
  }
}

TEST(NothingCompiled, SourcesInBuildOutputsAndEnvironmentsAreNotTheProjects) {
  kiln::testing::FakeSeams w;
  w.fs.add_file("/p/setup.py", "...");
  w.fs.add_file("/p/build/temp.linux/a.cpp", "");
  w.fs.add_file("/p/.git/x.c", "");
  w.fs.add_file("/p/venv/pyvenv.cfg", "");
  w.fs.add_file("/p/venv/lib/m.c", "");
  w.fs.add_file("/p/gx.egg-info/SOURCES.cpp", "");
  EXPECT_EQ(read::find_native_sources(w.fs, "/p").count, 0);
  w.fs.add_file("/p/src/gx/a.cc", "");
  const auto found = read::find_native_sources(w.fs, "/p");
  EXPECT_EQ(found.count, 1);
  EXPECT_EQ(found.summary(), "1 file (src/gx/a.cc)");
}
