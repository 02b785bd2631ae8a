// TORCH_CUDA_ARCH_LIST in the grammar of the torch that reads it; the rest through kiln's launcher.
#include <gtest/gtest.h>

#include <sstream>

#include "core/arch_spec.hpp"
#include "io/clock.hpp"
#include "io/environment.hpp"
#include "io/fs.hpp"
#include "io/process.hpp"
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
  f.proc.on(std::string("/venv/bin/python3 -c ") + read::torch_find_spec_script(),
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
