// A PyTorch checkout's declared options, from the option blocks of two pytorch/pytorch
// commits, reproduced in fixtures written for kiln (tests/fixtures/pytorch/*/README.md), and small synthetic checkouts.
#include <gtest/gtest.h>

#include "test_support.hpp"

#include <fstream>
#include <sstream>

#include "fakes/fs.hpp"
#include "read/checkout_options.hpp"
#include "read/pytorch_options.hpp"

using namespace kiln;

namespace {

std::string fixture(const std::string& rel) {
  std::ifstream in(kiln::testing::source_dir() + "/tests/fixtures/pytorch/" + rel);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Checkout {
  io::FakeFilesystem fs;
  explicit Checkout(const std::string& cmakelists) {
    fs.add_file("/pt/CMakeLists.txt", cmakelists);
    fs.add_file("/pt/setup.py", "");
    fs.add_dir("/pt/torchgen");
  }
  tl::expected<read::OptionResolution, read::OptionError> resolve(read::OptionRequest r = {}) const {
    return read::resolve_pytorch_options(fs, "/pt", r);
  }
};

const read::ResolvedOption& get(const read::OptionResolution& r, const std::string& name) {
  for (const auto& o : r.options)
    if (o.name == name) return o;
  ADD_FAILURE() << name << " not resolved";
  static read::ResolvedOption none;
  return none;
}

}  // namespace

TEST(CheckoutOptions, NewerCommitDeclaresEveryOption) {
  Checkout c(fixture("commit-00117da6/CMakeLists.txt"));
  read::OptionRequest req;
  req.user_set = {{"USE_DISTRIBUTED", "0"}};
  auto r = c.resolve(req);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->from_checkout);
  // Every option()/cmake_dependent_option() of the excerpt, once each.
  EXPECT_EQ(r->options.size(), 29u);
  for (const char* name :
       {"USE_C10D_NCCL", "USE_TENSORPIPE", "USE_C10D_GLOO", "USE_GLOO", "USE_MPI", "USE_C10D_MPI", "USE_UCC"}) {
    EXPECT_FALSE(get(*r, name).on) << name;
    EXPECT_EQ(to_string(get(*r, name).origin), "dependency") << name;
  }
  EXPECT_EQ(get(*r, "USE_C10D_NCCL").reason, "needs USE_DISTRIBUTED, which is off");
  EXPECT_EQ(get(*r, "USE_C10D_NCCL").condition, "USE_DISTRIBUTED;USE_NCCL");
  EXPECT_NE(get(*r, "USE_TENSORPIPE").reason.find("USE_DISTRIBUTED=OFF"), std::string::npos)
      << get(*r, "USE_TENSORPIPE").reason;
  EXPECT_EQ(to_string(get(*r, "USE_DISTRIBUTED").origin), "--set");
  // USE_NCCL does not depend on USE_DISTRIBUTED in this checkout (the old table said it did).
  EXPECT_TRUE(get(*r, "USE_NCCL").on);
  // Recent options, and where they are declared.
  for (const char* name : {"USE_CUDSS", "USE_CUFILE", "USE_NVSHMEM", "USE_FLASH_ATTENTION", "USE_MEM_EFF_ATTENTION"})
    EXPECT_TRUE(get(*r, name).on) << name;
  EXPECT_EQ(get(*r, "USE_NVSHMEM").declared_at, "CMakeLists.txt:45");
  EXPECT_FALSE(get(*r, "USE_KLEIDIAI").on);  // needs CPU_AARCH64; this is x86_64
  EXPECT_TRUE(get(*r, "USE_MKLDNN").on);     // default "${CPU_INTEL}"
  EXPECT_TRUE(get(*r, "USE_MKLDNN").default_on);
  EXPECT_FALSE(get(*r, "USE_MPS").on);
  EXPECT_FALSE(get(*r, "USE_VULKAN").on);       // inside if(NOT DEFINED USE_VULKAN), needs ANDROID
  EXPECT_FALSE(r->find_declared("USE_CUPTI"));  // not an option of this checkout
  EXPECT_NE(get(*r, "USE_ROCM").note.find("Dependencies.cmake"), std::string::npos);
}

TEST(CheckoutOptions, PlatformDecidesConditions) {
  Checkout c(fixture("commit-00117da6/CMakeLists.txt"));
  read::OptionRequest req;
  req.platform = {"Linux", "aarch64"};
  auto r = c.resolve(req);
  ASSERT_TRUE(r);
  EXPECT_TRUE(get(*r, "USE_KLEIDIAI").on);
  EXPECT_FALSE(get(*r, "USE_ITT").on);
  EXPECT_FALSE(get(*r, "USE_MKLDNN").on);  // declared with default "${CPU_INTEL}", which is OFF here
  req.platform = {"Darwin", "arm64"};
  auto mac = c.resolve(req);
  ASSERT_TRUE(mac);
  EXPECT_FALSE(get(*mac, "USE_NCCL").on);  // "...;NOT APPLE"
  EXPECT_FALSE(get(*mac, "USE_NUMA").on);
}

TEST(CheckoutOptions, OlderCommitBranchesOnTheEnvironment) {
  Checkout c(fixture("commit-0cbc3db7/CMakeLists.txt"));
  auto plain = c.resolve();
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->options.size(), 15u);
  EXPECT_EQ(get(*plain, "USE_CUFILE").declared_at, "CMakeLists.txt:25");  // the else() branch
  EXPECT_FALSE(get(*plain, "USE_CUFILE").on);
  EXPECT_FALSE(plain->find_declared("USE_NVSHMEM"));
  EXPECT_TRUE(get(*plain, "BUILD_EXECUTORCH").on);
  EXPECT_FALSE(get(*plain, "USE_SYSTEM_NVTX").on);  // declared as OPTION(...)
  read::OptionRequest req;
  req.environment = {{"TH_BINARY_BUILD", "1"}};
  req.user_set = {{"USE_CUFILE", "1"}};
  auto binary = c.resolve(req);
  ASSERT_TRUE(binary);
  const auto& cufile = get(*binary, "USE_CUFILE");
  EXPECT_EQ(cufile.declared_at, "CMakeLists.txt:22");
  EXPECT_FALSE(cufile.on);  // "NOT $ENV{TH_BINARY_BUILD}" fails: CMake forces it off whatever --set says
  EXPECT_NE(cufile.reason.find("CMake overrides USE_CUFILE=1"), std::string::npos) << cufile.reason;
}

TEST(CheckoutOptions, TyposAreRefusedWithTheNearestNames) {
  Checkout c(fixture("commit-00117da6/CMakeLists.txt"));
  read::OptionRequest req;
  req.user_set = {{"USE_CUDNNN", "0"}};
  auto r = c.resolve(req);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("nearest: USE_CUDNN"), std::string::npos) << r.error().message;
  req.set_unknown = true;
  auto forced = c.resolve(req);
  ASSERT_TRUE(forced);
  EXPECT_NE(forced->notes.back().find("--set-unknown"), std::string::npos);
  // Names setup.py does not forward as options are not checked (MAX_JOBS, TORCH_CUDA_ARCH_LIST).
  req = {};
  req.user_set = {{"MAX_JOBS", "4"}};
  EXPECT_TRUE(c.resolve(req));
}

TEST(CheckoutOptions, EnvironmentAndLibrariesAsSetupPyWouldPassThem) {
  Checkout c(fixture("commit-00117da6/CMakeLists.txt"));
  read::OptionRequest req;
  req.environment = {{"USE_CUDA", "0"}, {"USE_FOO", "1"}};
  req.profile_set = {{"USE_CUDA", "1"}};
  req.profile_name = "production";
  auto r = c.resolve(req);
  ASSERT_TRUE(r);
  EXPECT_FALSE(get(*r, "USE_CUDA").on);  // the environment beats the profile
  EXPECT_EQ(to_string(get(*r, "USE_CUDA").origin), "environment");
  EXPECT_FALSE(get(*r, "USE_CUDNN").on);
  EXPECT_EQ(to_string(get(*r, "USE_CUDNN").origin), "dependency");
  EXPECT_TRUE(get(*r, "USE_NCCL").on);  // USE_ROCM still holds its condition here
  req.environment = {};
  req.library_check = [](const std::string& lib) -> std::optional<bool> { return lib != "nccl"; };
  auto lib = c.resolve(req);
  ASSERT_TRUE(lib);
  EXPECT_FALSE(get(*lib, "USE_NCCL").on);
  EXPECT_EQ(to_string(get(*lib, "USE_NCCL").origin), "library");
  EXPECT_FALSE(get(*lib, "USE_C10D_NCCL").on);
  EXPECT_TRUE(read::option_is_passed(get(*lib, "USE_NCCL")));
  EXPECT_FALSE(read::option_is_passed(get(*lib, "USE_C10D_NCCL")));  // CMake derives it
}

TEST(CheckoutOptions, IncludesGuardsAndSetsInsideTheCheckout) {
  Checkout c(
      "include(CMakeDependentOption)\n"
      "include(${PROJECT_SOURCE_DIR}/cmake/Opts.cmake)\n"
      "if(SOMETHING_FOUND)\n  option(USE_MAYBE \"m\" ON)\nendif()\n"
      "if(WIN32)\n  option(USE_WINONLY \"w\" ON)\nelse()\n  option(USE_POSIX \"p\" ON)\nendif()\n"
      "function(f)\n  option(USE_IN_FUNCTION \"f\" ON)\nendfunction()\n"
      "foreach(x a b)\n  option(USE_IN_LOOP \"l\" ON)\nendforeach()\n"
      "include(cmake/Missing.cmake)\n");
  c.fs.add_file("/pt/cmake/Opts.cmake",
                "option(USE_INCLUDED \"i\" ON)\n"
                "set(USE_INCLUDED OFF)\n"
                "if(LINUX)\n  caffe2_update_option(USE_POSIX OFF)\nendif()\n"
                "set(SOMETHING_FOUND ${CMAKE_CXX_COMPILER_ID})\n");
  auto r = c.resolve();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->files, (std::vector<std::string>{"CMakeLists.txt", "cmake/Opts.cmake"}));
  EXPECT_FALSE(get(*r, "USE_INCLUDED").on);
  EXPECT_EQ(to_string(get(*r, "USE_INCLUDED").origin), "checkout");
  EXPECT_EQ(get(*r, "USE_INCLUDED").reason, "cmake/Opts.cmake:2 sets it to OFF");
  EXPECT_EQ(get(*r, "USE_MAYBE").guard, "if(SOMETHING_FOUND)");
  EXPECT_TRUE(get(*r, "USE_MAYBE").on);
  EXPECT_FALSE(get(*r, "USE_WINONLY").active);
  EXPECT_TRUE(get(*r, "USE_POSIX").active);
  EXPECT_FALSE(get(*r, "USE_POSIX").on);  // caffe2_update_option put it in the cache before option() ran
  EXPECT_EQ(to_string(get(*r, "USE_POSIX").origin), "checkout");
  EXPECT_EQ(get(*r, "USE_IN_LOOP").guard, "inside foreach(x a b)");
  EXPECT_FALSE(r->find_declared("USE_IN_FUNCTION"));
  ASSERT_FALSE(r->notes.empty());
  EXPECT_NE(r->notes.front().find("cmake/Missing.cmake"), std::string::npos);
}

TEST(CheckoutOptions, NothingReadableFallsBackToTheTable) {
  Checkout c("project(x)\n");
  auto r = c.resolve();
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->from_checkout);
  EXPECT_TRUE(get(*r, "USE_CUPTI").on);
  EXPECT_NE(r->notes.back().find("data/pytorch_options.toml"), std::string::npos);
}
