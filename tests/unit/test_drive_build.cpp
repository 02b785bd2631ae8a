// The build drivers through the seams: the step runner's log, progress and failures, and each
// project kind's steps (CMake project, PyTorch checkout, torch extension) with fake tools.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <sstream>

#include "core/arch_spec.hpp"
#include "drive/build.hpp"
#include "drive/cmake_build.hpp"
#include "drive/pytorch_build.hpp"
#include "drive/stale_step.hpp"
#include "drive/step_runner.hpp"
#include "drive/torch_extension_build.hpp"
#include "drive/wheel_build.hpp"
#include "plan/install_command.hpp"
#include "io/clock.hpp"
#include "io/environment.hpp"
#include "fakes/fs.hpp"
#include "fakes/process.hpp"
#include "launch/wheel_cache.hpp"
#include "test_support.hpp"

using namespace kiln;

namespace {

const std::string kElf = std::string(
                             "\x7f"
                             "ELF",
                             4) +
                         "rest of a shared library";

std::string joined(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

// The fake runner, plus what a tool leaves on disk when it runs (the backend writes the wheel).
struct ToolRunner final : io::ProcessRunner {
  io::FakeProcessRunner fake;
  std::map<std::string, std::function<void()>> effects;
  io::ProcessResult run(const io::ProcessSpec& spec) override {
    if (auto it = effects.find(joined(spec.argv)); it != effects.end()) it->second();
    return fake.run(spec);
  }
  void on(const std::string& line, io::ProcessResult r) { fake.on(line, std::move(r)); }
  const std::vector<io::ProcessSpec>& calls() const { return fake.calls(); }
};

struct Rig : kiln::testing::SeamsOf<io::FakeFilesystem, ToolRunner> {
  std::ostringstream log;
  drive::BuildOutcome o;
  drive::ProgressSink progress;
  std::vector<std::string> statuses, outputs, steps;
  plan::Plan plan;
  drive::StepRunner runner{seams, {}, "/p", log, progress, o};

  explicit Rig(read::ProjectKind kind) {
    env.set("PATH", "/usr/bin");
    env.set("HOME", "/home/u");
    plan.kind = kind;
    plan.project_dir = "/p";
    plan.build_dir = "/p/build-kiln";
    plan.cmake = "/usr/bin/cmake";
    plan.ninja = "/usr/bin/ninja";
    plan.nvcc = "/usr/local/cuda/bin/nvcc";
    plan.python = "/venv/bin/python3";
    plan.build_type = "Release";
    plan.jobs.jobs = 4;
    plan.targets = *core::parse_cmake("90-real", {});
    plan.config.cmake_dir = plan.build_dir;
    progress.on_status = [this](const drive::NinjaStatus& st, std::chrono::milliseconds) {
      statuses.push_back(std::to_string(st.done) + "/" + std::to_string(st.total));
    };
    progress.on_output = [this](std::string_view l) { outputs.emplace_back(l); };
    progress.on_step = [this](std::string_view n, bool begin) {
      steps.push_back(std::string(n) + (begin ? "+" : "-"));
    };
  }
  void answer(const std::vector<std::string>& argv, io::ProcessResult r) { proc.on(joined(argv), std::move(r)); }
  void build(drive::BuildDriver& d) {
    drive::BuildContext ctx{plan, seams, runner, log, o};
    d.build(ctx);
  }
  std::vector<std::string> called() const {
    std::vector<std::string> v;
    for (const auto& c : proc.calls()) v.push_back(joined(c.argv));
    return v;
  }
};

}  // namespace

TEST(StepRunner, LogsTheCommandAndItsOutputAndFeedsNinjaStatusToProgress) {
  Rig r(read::ProjectKind::cmake);
  auto res = io::ran("[1/2] Building CXX object a.o\nwarning: unused x\n[2/2] Linking CXX shared library liba.so\n");
  res.peak_rss_kib = 900;
  r.answer({"/usr/bin/ninja", "-C", "/b"}, res);
  auto step = r.runner.run("build", {"/usr/bin/ninja", "-C", "/b"}, true);
  EXPECT_TRUE(step.ok);
  EXPECT_EQ(r.statuses, (std::vector<std::string>{"1/2", "2/2"}));
  EXPECT_EQ(r.outputs, std::vector<std::string>{"warning: unused x"});
  EXPECT_EQ(r.steps, (std::vector<std::string>{"build+", "build-"}));
  EXPECT_EQ(r.o.steps_run, 2);
  EXPECT_EQ(r.o.build_peak_rss_kib, 900);
  EXPECT_NE(r.log.str().find("kiln: build: /usr/bin/ninja -C /b\n[1/2] Building"), std::string::npos) << r.log.str();
  ASSERT_EQ(r.proc.calls().size(), 1u);
  EXPECT_EQ(r.proc.calls()[0].cwd, "/p");
  EXPECT_TRUE(r.proc.calls()[0].new_process_group);
}

TEST(StepRunner, AFailedStepNamesItselfAndItsExitInTheOutcomeAndTheLog) {
  Rig r(read::ProjectKind::cmake);
  r.answer({"cmake", "-S", "."}, io::ran("CMake Error: no\n", 1));
  auto step = r.runner.run("configure", {"cmake", "-S", "."}, false);
  EXPECT_FALSE(step.ok);
  EXPECT_EQ(r.o.failed_step, "configure");
  EXPECT_EQ(r.o.exit_code, 1);
  EXPECT_NE(r.log.str().find("kiln: configure failed (exit 1)"), std::string::npos);
  // A tool that does not start: exit 127 and the reason, as a shell would say.
  auto missing = r.runner.run("build", {"/no/ninja"}, true);
  EXPECT_FALSE(missing.ok);
  EXPECT_EQ(r.o.exit_code, 127);
  EXPECT_NE(r.log.str().find("kiln: could not start /no/ninja"), std::string::npos);
}

TEST(StepRunner, WatchSeesEveryLineOfTheRunningStepOnly) {
  Rig r(read::ProjectKind::extension);
  r.answer({"py"}, io::ran("a\nb\n"));
  std::vector<std::string> seen;
  r.runner.watch([&](std::string_view l) { seen.emplace_back(l); });
  r.runner.run("build", {"py"}, false);
  r.runner.watch(nullptr);
  r.runner.run("install", {"py"}, false);
  EXPECT_EQ(seen, (std::vector<std::string>{"a", "b"}));
}

TEST(CMakeProjectDriver, ConfiguresBuildsAndFindsWhatTheLinkStepsWrote) {
  Rig r(read::ProjectKind::cmake);
  r.answer(r.plan.configure_argv(), io::ran("-- Configuring done\n"));
  r.answer(r.plan.build_argv(), io::ran("[1/1] Linking CXX shared library libk.so\n"));
  r.fs.add_file("/p/build-kiln/libk.so", kElf);
  r.fs.add_file("/p/build-kiln/CMakeFiles/scratch.so", kElf);  // CMake's own scratch: not an artifact
  r.fs.add_file("/p/build-kiln/notes.so.txt", "text");
  drive::CMakeProjectDriver d;
  r.build(d);
  EXPECT_TRUE(r.o.ok) << r.log.str();
  EXPECT_EQ(r.called(), (std::vector<std::string>{joined(r.plan.configure_argv()), joined(r.plan.build_argv())}));
  EXPECT_EQ(r.o.artifacts, std::vector<std::string>{"/p/build-kiln/libk.so"});
  EXPECT_TRUE(r.fs.exists(r.plan.config.stamp_path()));  // what this configure passed, for the next check
  EXPECT_EQ(r.fs.read("/p/build-kiln/.kiln/configure-stamp"), drive::configure_stamp(r.plan, r.plan.child_env(r.env)));
}

TEST(CMakeProjectDriver, AFolderConfiguredWithTheSameArgumentsIsNotConfiguredAgain) {
  Rig r(read::ProjectKind::cmake);
  r.fs.add_file("/p/build-kiln/build.ninja", "");
  r.fs.add_file("/p/build-kiln/CMakeCache.txt", "");
  r.fs.add_file("/p/build-kiln/.kiln/configure-stamp", drive::configure_stamp(r.plan, r.plan.child_env(r.env)));
  r.answer(r.plan.build_argv(), io::ran("ninja: no work to do.\n"));
  drive::CMakeProjectDriver d;
  r.build(d);
  EXPECT_TRUE(r.o.ok);
  EXPECT_TRUE(r.o.configure_skipped);
  EXPECT_EQ(r.called(), std::vector<std::string>{joined(r.plan.build_argv())});
}

TEST(CMakeProjectDriver, AFailedConfigureStopsBeforeNinjaAndClearsTheStamp) {
  Rig r(read::ProjectKind::cmake);
  r.fs.add_file("/p/build-kiln/.kiln/configure-stamp", "an older stamp");
  r.answer(r.plan.configure_argv(), io::ran("CMake Error\n", 1));
  drive::CMakeProjectDriver d;
  r.build(d);
  EXPECT_FALSE(r.o.ok);
  EXPECT_EQ(r.o.failed_step, "configure");
  EXPECT_EQ(r.called().size(), 1u);
  EXPECT_EQ(r.fs.read("/p/build-kiln/.kiln/configure-stamp"), "");
}

TEST(CMakeProjectDriver, AStaleCacheIsSaidAndRemovedBeforeCMakeConfiguresAgain) {
  Rig r(read::ProjectKind::cmake);
  r.plan.config.reconfigure = true;
  r.plan.config.how = "removing CMakeCache.txt";
  r.plan.config.changed.push_back({"CMAKE_BUILD_TYPE", "Debug", "Release", "CMakeCache.txt"});
  r.fs.add_file(r.plan.config.cache_path(), "CMAKE_BUILD_TYPE:STRING=Debug\n");
  r.answer(r.plan.configure_argv(), io::ran(""));
  r.answer(r.plan.build_argv(), io::ran(""));
  drive::CMakeProjectDriver d;
  r.build(d);
  EXPECT_TRUE(r.o.ok);
  EXPECT_FALSE(r.fs.exists(r.plan.config.cache_path()));
  EXPECT_EQ(r.called().size(), 2u);
  EXPECT_NE(r.log.str().find("kiln: configuration: CMAKE_BUILD_TYPE was Debug (CMakeCache.txt), now Release"),
            std::string::npos)
      << r.log.str();
}

TEST(PyTorchCheckoutDriver, AFreshConfigureThroughCmakeFreshLeavesTheCacheToSetupPy) {
  Rig r(read::ProjectKind::pytorch);
  r.plan.config.cmake_dir = "/p/build";
  r.plan.config.reconfigure = true;
  r.plan.config.fresh = plan::FreshConfigure::cmake_fresh;
  r.plan.config.how = "words for people, whatever they say";
  r.fs.add_file(r.plan.config.cache_path(), "USE_CUDA:BOOL=OFF\n");
  drive::BuildContext ctx{r.plan, r.seams, r.runner, r.log, r.o};
  EXPECT_TRUE(drive::apply_config_check(ctx));
  EXPECT_TRUE(r.fs.exists(r.plan.config.cache_path())) << "CMAKE_FRESH=1 makes setup.py start afresh";
  r.plan.config.fresh = plan::FreshConfigure::remove_cache;
  EXPECT_TRUE(drive::apply_config_check(ctx));
  EXPECT_FALSE(r.fs.exists(r.plan.config.cache_path()));
}

TEST(PyTorchCheckoutDriver, RunsTheSetupBuildAndFindsLibrariesUnderBuildAndTorchLib) {
  Rig r(read::ProjectKind::pytorch);
  r.answer(r.plan.build_argv(), io::ran("[10/10] Linking CXX shared library lib/libc10.so\n"));
  r.fs.add_file("/p/build/lib/libc10.so", kElf);
  r.fs.add_file("/p/torch/lib/libtorch.so", kElf);
  drive::PyTorchCheckoutDriver d;
  r.build(d);
  EXPECT_TRUE(r.o.ok);
  EXPECT_EQ(r.called(), (std::vector<std::string>{"/venv/bin/python3 setup.py develop"}));
  EXPECT_EQ(r.o.artifacts, (std::vector<std::string>{"/p/build/lib/libc10.so", "/p/torch/lib/libtorch.so"}));
  EXPECT_EQ(r.o.steps_run, 10);
}

TEST(TorchExtensionDriver, TheBackendBuildsTheWheelThatPipInstalls) {
  Rig r(read::ProjectKind::extension);
  r.fs.add_file("/p/build-kiln/wheel/old-0.1-py3-none-any.whl", "left by an earlier build");
  r.proc.effects[joined(r.plan.build_argv())] = [&] {
    r.fs.add_file("/p/build-kiln/wheel/ext-1.0-cp311-linux_x86_64.whl", "the built wheel");
  };
  r.answer(r.plan.build_argv(), io::ran("[1/1] c++ k.o\nKILN-WHEEL ext-1.0-cp311-linux_x86_64.whl\n"));
  const std::string wheel = "/p/build-kiln/wheel/ext-1.0-cp311-linux_x86_64.whl";
  r.answer(plan::wheel_install_argv(r.plan.python, wheel), io::ran("Successfully installed ext\n"));
  const auto check = drive::wheel_unpack_argv(r.plan.python, wheel, "/p/build-kiln/wheel/contents");
  r.answer(check, io::ran(""));
  r.fs.add_file("/p/build/lib.linux/ext.so", kElf);  // setuptools' own copy: not what is installed
  r.fs.add_file("/p/build-kiln/wheel/contents/ext/ext.so", kElf);
  drive::TorchExtensionDriver d;
  r.build(d);
  EXPECT_TRUE(r.o.ok) << r.log.str();
  EXPECT_EQ(r.o.wheel, wheel);
  EXPECT_FALSE(r.fs.exists("/p/build-kiln/wheel/old-0.1-py3-none-any.whl"));
  EXPECT_EQ(r.fs.read(r.plan.wheel_script_path()), std::string(drive::wheel_build_script()));
  // The wheel's own libraries are verified, and it is checked before pip installs it.
  EXPECT_EQ(r.o.artifacts, std::vector<std::string>{"/p/build-kiln/wheel/contents/ext/ext.so"});
  EXPECT_EQ(r.called(), (std::vector<std::string>{joined(r.plan.build_argv()), joined(check),
                                                  joined(plan::wheel_install_argv(r.plan.python, wheel))}));
}

// Issue 34, case 1: a wheel with a broken member (three builds sharing setuptools' folder cached a
// 0-byte _C.so) is neither kept in the cache nor installed, and the build fails at the check.
TEST(TorchExtensionDriver, AWheelThatFailsTheCheckIsNeitherKeptNorInstalled) {
  Rig r(read::ProjectKind::extension);
  r.plan.wheel_cache = true;
  r.plan.cache_dir = "/cache";
  r.fs.add_file("/p/setup.py", "from torch.utils.cpp_extension import CppExtension\n");
  const std::string wheel = "/p/build-kiln/wheel/ext-1.0-cp311-linux_x86_64.whl";
  r.proc.effects[joined(r.plan.build_argv())] = [&] { r.fs.add_file(wheel, "a wheel with a 0-byte _C.so"); };
  r.answer(r.plan.build_argv(), io::ran("KILN-WHEEL ext-1.0-cp311-linux_x86_64.whl\n"));
  const auto check = drive::wheel_unpack_argv(r.plan.python, wheel, "/p/build-kiln/wheel/contents");
  r.answer(check, io::ran("kiln: wheel check: ext/_C.so: 0 bytes and not an ELF shared library\n", 1));
  drive::TorchExtensionDriver d;
  r.build(d);
  EXPECT_FALSE(r.o.ok);
  EXPECT_EQ(r.o.failed_step, "check");
  EXPECT_FALSE(r.o.wheel_cache.stored);
  EXPECT_FALSE(launch::find_cached_wheel(r.fs, launch::wheel_cache_root(r.plan.cache_dir, r.env),
                                         launch::wheel_key(drive::wheel_inputs(r.plan), r.seams)));
  EXPECT_EQ(r.called(), (std::vector<std::string>{joined(r.plan.build_argv()), joined(check)}));  // no pip
  EXPECT_NE(r.log.str().find("failed the check: it is neither kept nor installed"), std::string::npos) << r.log.str();
}

TEST(TorchExtensionDriver, ABackendThatNamesNoWheelFailsTheBuildWithoutInstalling) {
  Rig r(read::ProjectKind::extension);
  r.answer(r.plan.build_argv(), io::ran("built, but said nothing\n"));
  drive::TorchExtensionDriver d;
  r.build(d);
  EXPECT_FALSE(r.o.ok);
  EXPECT_EQ(r.o.failed_step, "build");
  EXPECT_EQ(r.o.exit_code, 1);
  EXPECT_EQ(r.called().size(), 1u);
  EXPECT_NE(r.log.str().find("the backend reported no wheel"), std::string::npos);
}

// A torch extension whose wheel the cache already keeps ("wheel bytes"), for the kept-wheel tests.
struct KeptWheelRig : Rig {
  launch::WheelKey key;
  std::string root;
  KeptWheelRig() : Rig(read::ProjectKind::extension) {
    plan.wheel_cache = true;
    plan.cache_dir = "/cache";
    fs.add_file("/p/setup.py", "from torch.utils.cpp_extension import CppExtension\n");
    fs.add_file("/tmp/ext-1.0-cp311-linux_x86_64.whl", "wheel bytes");
    key = launch::wheel_key(drive::wheel_inputs(plan), seams);
    root = launch::wheel_cache_root(plan.cache_dir, env);
    stored = launch::store_wheel(fs, root, key, "/tmp/ext-1.0-cp311-linux_x86_64.whl");
  }
  bool stored = false;
};

TEST(TorchExtensionDriver, AKeptWheelIsInstalledAndUnpackedWithoutRunningTheBackend) {
  KeptWheelRig r;
  ASSERT_TRUE(r.stored);
  const std::string wheel = "/p/build-kiln/wheel/ext-1.0-cp311-linux_x86_64.whl";
  r.answer(plan::wheel_install_argv(r.plan.python, wheel), io::ran(""));
  const auto unpack = drive::wheel_unpack_argv(r.plan.python, wheel, "/p/build-kiln/wheel/contents");
  r.answer(unpack, io::ran(""));
  r.fs.add_file("/p/build-kiln/wheel/contents/ext.so", kElf);
  drive::TorchExtensionDriver d;
  r.build(d);
  EXPECT_TRUE(r.o.ok) << r.log.str();
  EXPECT_TRUE(r.o.wheel_cache.hit);
  EXPECT_EQ(r.fs.read(wheel), "wheel bytes");
  EXPECT_EQ(r.called(),
            (std::vector<std::string>{joined(unpack), joined(plan::wheel_install_argv(r.plan.python, wheel))}));
  EXPECT_EQ(r.o.artifacts, std::vector<std::string>{"/p/build-kiln/wheel/contents/ext.so"});
}

// Issue 23: pip failed on a kept wheel ("Bad CRC-32") and the diagnosis never named the cache.
// The log says which kept wheel pip refused, the entry is dropped, and the next build misses.
TEST(TorchExtensionDriver, PipFailingOnAKeptWheelNamesTheCacheAndDropsTheEntry) {
  KeptWheelRig r;
  ASSERT_TRUE(r.stored);
  const auto& key = r.key;
  const auto& root = r.root;
  const auto kept = launch::find_cached_wheel(r.fs, root, key);
  ASSERT_TRUE(kept);
  const std::string wheel = "/p/build-kiln/wheel/ext-1.0-cp311-linux_x86_64.whl";
  r.answer(plan::wheel_install_argv(r.plan.python, wheel),
           io::ran("ERROR: Wheel 'ext' located at " + wheel + " is invalid.\n", 1));
  r.answer(drive::wheel_unpack_argv(r.plan.python, wheel, "/p/build-kiln/wheel/contents"), io::ran(""));
  drive::TorchExtensionDriver d;
  r.build(d);
  EXPECT_FALSE(r.o.ok);
  EXPECT_EQ(r.o.failed_step, "install");
  EXPECT_NE(r.log.str().find("kiln: wheel cache: pip could not install the kept wheel " + kept->path +
                             "; it is dropped from the cache"),
            std::string::npos)
      << r.log.str();
  EXPECT_FALSE(launch::find_cached_wheel(r.fs, root, key));  // the next build runs the backend
  EXPECT_EQ(r.called().size(), 2u);                          // the check and pip: the backend never ran
}

TEST(DriverFor, EachProjectKindHasItsDriver) {
  EXPECT_NE(dynamic_cast<drive::CMakeProjectDriver*>(drive::driver_for(read::ProjectKind::cmake).get()), nullptr);
  EXPECT_NE(dynamic_cast<drive::PyTorchCheckoutDriver*>(drive::driver_for(read::ProjectKind::pytorch).get()), nullptr);
  EXPECT_NE(dynamic_cast<drive::TorchExtensionDriver*>(drive::driver_for(read::ProjectKind::extension).get()), nullptr);
}
