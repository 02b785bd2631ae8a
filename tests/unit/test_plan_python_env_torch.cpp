// TORCH_CUDA_ARCH_LIST in the grammar of the torch that reads it; the rest through kiln's launcher.
#include <gtest/gtest.h>

#include <sstream>

#include "io/isolated_python.hpp"
#include "core/arch_spec.hpp"
#include "io/clock.hpp"
#include "io/environment.hpp"
#include "io/fs.hpp"
#include "fakes/process.hpp"
#include "io/seams.hpp"
#include "plan/python_env.hpp"
#include "read/torch_package.hpp"
#include "test_support.hpp"

using namespace kiln;

namespace {
using Fakes = kiln::testing::FakeSeams;
}  // namespace

TEST(PythonEnvTorch, VersionFromTheCheckoutOrTheInstalledPackageWithoutImport) {
  Fakes f;
  plan::Plan p;
  p.kind = read::ProjectKind::pytorch;
  p.project_dir = "/src/pytorch";
  f.fs.add_file("/src/pytorch/version.txt", "2.11.0a0\n");
  EXPECT_EQ(plan::torch_version_for(p, f.seams), "2.11.0a0");

  p.kind = read::ProjectKind::extension;
  p.python = "/venv/bin/python3";
  f.proc.on(io::isolated_python_line("/venv/bin/python3", read::torch_find_spec_script(), io::PythonSite::needed),
            io::ran("/venv/lib/site-packages/torch\n"));
  f.fs.add_file("/venv/lib/site-packages/torch/version.py",
                "__version__ = '2.11.0+cu130'\ncuda: Optional[str] = '13.0'\n");
  p.torch_package = plan::torch_package_dir(p, f.seams);
  EXPECT_EQ(p.torch_package, "/venv/lib/site-packages/torch");
  EXPECT_EQ(plan::torch_version_for(p, f.seams), "2.11.0+cu130");
}

TEST(PythonEnvTorch, UnspellableTargetsGoToTheLauncher) {
  plan::Plan p;
  p.kind = read::ProjectKind::extension;
  p.nvcc = "/usr/local/cuda/bin/nvcc";
  p.kiln_exe = "/usr/bin/kiln";
  p.targets = *core::parse_cmake("90-real;100f-real", {});
  auto env = plan::python_build_env(p, {});
  if (!p.wraps_compilers()) {
    ASSERT_FALSE(env);  // nothing would build sm_100f: refused, naming it
    EXPECT_NE(env.error().find("100f"), std::string::npos);
    return;
  }
  ASSERT_TRUE(env) << env.error();
  EXPECT_EQ(env->at("TORCH_CUDA_ARCH_LIST"), "9.0");
  EXPECT_EQ(env->at("KILN_EXTRA_ARCHS"), "100f-real");
}

namespace {

// DeepSpeed's op builders (op_builder/builder.py:742) int() each part of a TORCH_CUDA_ARCH_LIST
// entry after cutting "+PTX" off: 9.0a crashed its build on the H100 host, where the variable was preset.
read::ArchParser int_parser(bool plus_ok) {
  read::ArchParser a;
  a.var = "TORCH_CUDA_ARCH_LIST";
  a.read = "op_builder/builder.py:689";
  a.sites = {"op_builder/builder.py:739", "op_builder/builder.py:742"};
  a.text = "minor = int(minor_part.split('+')[0])";
  a.plus_ok = plus_ok;
  return a;
}

TEST(PythonEnvTorch, ArchSuffixesLeaveAListTheProjectParsesWithInt) {
  auto fitted = plan::fit_to_parser(*core::parse_cmake("80-real;90a-real;90a-virtual", {}), int_parser(true));
  EXPECT_EQ(core::format_torch(fitted.passed).value_or("?"), "8.0;9.0+PTX");
  EXPECT_EQ(core::format_cmake(fitted.extra), "90a");
  // A parser that does not cut '+' off gets no +PTX either: PTX goes to the launcher.
  auto strict = plan::fit_to_parser(*core::parse_cmake("80-real;90", {}), int_parser(false));
  EXPECT_EQ(core::format_torch(strict.passed).value_or("?"), "8.0;9.0");
  EXPECT_EQ(core::format_cmake(strict.extra), "90-virtual");
}

TEST(PythonEnvTorch, ThePlanPassesWhatTheProjectParsesAndSaysWhy) {
  plan::Plan p;
  p.kind = read::ProjectKind::extension;
  p.nvcc = "/usr/local/cuda/bin/nvcc";
  p.kiln_exe = "/usr/bin/kiln";
  p.targets = *core::parse_cmake("90a-real", {});
  const auto parser = int_parser(true);
  std::vector<std::string> notes;
  auto env = plan::python_build_env(p, {}, &parser, &notes);
  ASSERT_TRUE(env) << env.error();
  EXPECT_EQ(env->at("TORCH_CUDA_ARCH_LIST"), "9.0");
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("op_builder/builder.py:742"), std::string::npos) << notes[0];
  EXPECT_NE(notes[0].find("cannot read 9.0a"), std::string::npos) << notes[0];
  if (p.wraps_compilers()) EXPECT_EQ(env->at("KILN_EXTRA_ARCHS"), "90a-real");
  // The user's --set TORCH_CUDA_ARCH_LIST wins over the fit; without a parser nothing changes.
  notes.clear();
  auto set = plan::python_build_env(p, {{"TORCH_CUDA_ARCH_LIST", "9.0a"}}, &parser, &notes);
  ASSERT_TRUE(set);
  EXPECT_EQ(set->at("TORCH_CUDA_ARCH_LIST"), "9.0a");
  EXPECT_TRUE(notes.empty());
  EXPECT_EQ(plan::python_build_env(p, {})->at("TORCH_CUDA_ARCH_LIST"), "9.0a");
}

}  // namespace
