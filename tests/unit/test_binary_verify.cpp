#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "binary/elf.hpp"
#include "binary/verify.hpp"
#include "binary_fixtures.hpp"
#include "core/gpu_table.hpp"
#include "test_support.hpp"

using namespace kiln;
using namespace kiln::binary;
using kiln::testing::FakeEntry;
using kiln::testing::make_fatbin;

namespace {

using Real = kiln::testing::RealSeams;

std::vector<std::pair<std::string, core::GpuModel>> gpus(std::initializer_list<const char*> names) {
  std::vector<std::pair<std::string, core::GpuModel>> out;
  for (auto n : names) out.emplace_back(n, *core::GpuTable::get().lookup(n));
  return out;
}

}  // namespace

TEST(Verify, CoverageVerdictsAndRebuildAdvice) {
  Real s;
  kiln::testing::TempDir dir;
  // sm_80 and sm_90a SASS, no PTX: runs on A100, L4 (8.9 via sm_80), H100; not on B200.
  auto path = dir.write("k.fatbin", make_fatbin({FakeEntry{2, 80}, FakeEntry{2, 90, 0x11 | 0x100000}}));
  auto ok = verify_files({path}, gpus({"a100", "l4", "h100"}), VerifyOptions{}, s.seams);
  EXPECT_TRUE(ok.ok()) << (ok.problems.empty() ? "" : ok.problems[0].line());
  ASSERT_EQ(ok.files.size(), 1u);
  EXPECT_EQ(ok.files[0].gpus[1].coverage.verdict, core::Verdict::compatible);
  EXPECT_EQ(ok.files[0].gpus[2].coverage.via->arch.sm(), "sm_90a");

  auto bad = verify_files({path}, gpus({"h100", "b200"}), VerifyOptions{}, s.seams);
  ASSERT_EQ(bad.problems.size(), 1u);
  const auto& p = bad.problems[0];
  EXPECT_EQ(p.kind, ProblemKind::no_kernel);
  EXPECT_NE(p.gpu.find("B200"), std::string::npos);
  EXPECT_NE(p.fix.find("TORCH_CUDA_ARCH_LIST=\"8.0;9.0a;10.0\""), std::string::npos) << p.fix;
  EXPECT_NE(p.line().find(path), std::string::npos);
}

TEST(Verify, PtxJitCountsAsRunningAndCorruptFilesAreProblems) {
  Real s;
  kiln::testing::TempDir dir;
  auto ptx = dir.write("p.fatbin", make_fatbin({FakeEntry{1, 80}}));
  auto r = verify_files({ptx}, gpus({"h100"}), VerifyOptions{}, s.seams);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.files[0].gpus[0].coverage.verdict, core::Verdict::ptx_jit);

  auto broken = make_fatbin({FakeEntry{2, 80}});
  broken.resize(broken.size() - 3);
  auto bad = dir.write("bad.fatbin", broken);
  auto r2 = verify_files({bad, ptx}, gpus({"h100"}), VerifyOptions{}, s.seams);
  ASSERT_FALSE(r2.ok());
  EXPECT_EQ(r2.problems[0].kind, ProblemKind::unreadable);
  EXPECT_NE(r2.problems[0].why.find("offset 0x"), std::string::npos);
}

TEST(Verify, NoCudaAnywhereIsAProblem) {
  Real s;
  kiln::testing::TempDir dir;
  auto txt = dir.write("readme.txt", "hello");
  auto r = verify_files({txt}, gpus({"h100"}), VerifyOptions{}, s.seams);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0].kind, ProblemKind::no_cuda);
  EXPECT_EQ(rebuild_arch_list(core::TargetSet{}, 120), "12.0");
}

namespace {

using kiln::testing::make_elf;

// A library laid out as cuFFT 12 is (CUDA 13.0's libcufft.so.12): one sm_75 cubin in .nv_fatbin,
// the real kernels in containers inside .ldata.
std::string cufft_like(std::uint32_t ldata_sm) {
  std::string ldata(48, '\x5a');
  ldata += make_fatbin({FakeEntry{2, ldata_sm}, FakeEntry{1, 75}});
  return make_elf({{".nv_fatbin", make_fatbin({FakeEntry{2, 75}})}, {".ldata", ldata, 3}});
}

}  // namespace

TEST(Verify, KernelsOutsideNvFatbinCount) {
  Real s;
  kiln::testing::TempDir dir;
  auto lib = dir.write("site-packages/nvidia/cufft/lib/libcufft.so.12", cufft_like(90));
  auto r = verify_files({lib}, gpus({"h100"}), VerifyOptions{}, s.seams);
  EXPECT_TRUE(r.ok()) << (r.problems.empty() ? "" : r.problems[0].line());
  ASSERT_EQ(r.files.size(), 1u);
  EXPECT_EQ(r.files[0].gpus[0].coverage.verdict, core::Verdict::native);
}

TEST(Verify, NvidiaLibrariesGetNoRebuildAdvice) {
  Real s;
  kiln::testing::TempDir dir;
  // Only sm_75 SASS and compute_75 PTX: nothing runs on a compute capability 7.0 GPU.
  auto wheel = dir.write("site-packages/nvidia/cufft/lib/libcufft.so.12", cufft_like(75));
  auto toolkit = dir.write("cuda/lib64/libcublasLt.so.13", cufft_like(75));
  auto mine = dir.write("build/libmine.so", cufft_like(75));
  auto r = verify_files({wheel, toolkit, mine}, gpus({"7.0"}), VerifyOptions{}, s.seams);
  ASSERT_EQ(r.problems.size(), 3u);
  for (const auto& p : r.problems) EXPECT_EQ(p.kind, ProblemKind::no_kernel) << p.line();
  EXPECT_EQ(r.problems[0].fix.find("TORCH_CUDA_ARCH_LIST"), std::string::npos) << r.problems[0].fix;
  EXPECT_NE(r.problems[0].fix.find("libcufft is NVIDIA's library"), std::string::npos) << r.problems[0].fix;
  EXPECT_NE(r.problems[0].fix.find("nvidia-cufft"), std::string::npos) << r.problems[0].fix;
  EXPECT_NE(r.problems[1].fix.find("libcublasLt is NVIDIA's library"), std::string::npos) << r.problems[1].fix;
  EXPECT_NE(r.problems[2].fix.find("TORCH_CUDA_ARCH_LIST"), std::string::npos) << r.problems[2].fix;
}

TEST(Verify, X86CodeForAJetsonIsTheWrongCpu) {
  Real s;
  kiln::testing::TempDir dir;
  const std::string fatbin = make_fatbin({FakeEntry{2, 87}});
  auto x86 = dir.write("x86/libk.so", make_elf({{".nv_fatbin", fatbin}}, 62));
  auto arm = dir.write("arm/libk.so", make_elf({{".nv_fatbin", fatbin}}, 183));
  auto r = verify_files({x86, arm}, gpus({"orin"}), VerifyOptions{}, s.seams);
  ASSERT_EQ(r.problems.size(), 1u) << r.problems[0].line();
  EXPECT_EQ(r.problems[0].kind, ProblemKind::wrong_cpu);
  EXPECT_EQ(r.problems[0].file, x86);
  EXPECT_NE(r.problems[0].why.find("x86-64 code cannot load on Jetson AGX Orin"), std::string::npos)
      << r.problems[0].why;
  EXPECT_NE(r.problems[0].fix.find("build it on or for aarch64"), std::string::npos) << r.problems[0].fix;
  auto vendor = dir.write("x86/libcufft.so.12", make_elf({{".nv_fatbin", fatbin}}, 62));
  auto rv = verify_files({vendor}, gpus({"orin"}), VerifyOptions{}, s.seams);
  ASSERT_EQ(rv.problems.size(), 1u);
  EXPECT_NE(rv.problems[0].fix.find("NVIDIA's aarch64 build"), std::string::npos) << rv.problems[0].fix;
  // The same x86-64 file on an x86-64 machine's GPU of the same architecture is fine.
  EXPECT_TRUE(verify_files({x86}, gpus({"8.7"}), VerifyOptions{}, s.seams).ok());
}

TEST(Verify, FixLinesKeepPtx) {
  core::TargetSet have;
  have.add(core::Target{core::Arch{90}, core::CodeKind::sass});
  have.add(core::Target{core::Arch{90}, core::CodeKind::ptx});
  EXPECT_EQ(rebuild_arch_list(have, 80), "8.0;9.0+PTX");
  core::TargetSet ptx_only;
  ptx_only.add(core::Target{core::Arch{80}, core::CodeKind::sass});
  ptx_only.add(core::Target{core::Arch{86}, core::CodeKind::ptx});
  EXPECT_EQ(rebuild_arch_list(ptx_only, 75), "7.5;8.0;8.6+PTX");
}

TEST(Verify, ImagesWithoutKernelsLaunchNothingAndFailNowhere) {
  Real s;
  kiln::testing::TempDir dir;
  // libcufftw.so.12 of CUDA 13.0: one sm_75 cubin with no __global__ function in it.
  const std::string empty_cubin = make_elf({}, kEmCuda, 2);
  auto lib =
      dir.write("libcufftw.so.12", make_elf({{".nv_fatbin", make_fatbin({FakeEntry{2, 75, 0x11, empty_cubin}})}}));
  auto r = verify_files({lib}, gpus({"h100"}), VerifyOptions{}, s.seams);
  EXPECT_TRUE(r.ok()) << (r.problems.empty() ? "" : r.problems[0].line());
  ASSERT_EQ(r.files.size(), 1u);
  EXPECT_TRUE(r.files[0].gpus[0].no_kernels);
  // Judged by the union only, the sm_75 image is all there is: no verdict can say otherwise.
  VerifyOptions by_union;
  by_union.per_kernel = false;
  EXPECT_FALSE(verify_files({lib}, gpus({"h100"}), by_union, s.seams).ok());
}

TEST(Verify, EachProblemKindHasOneSpelling) {
  std::set<std::string_view> names;
  for (auto k : kProblemKinds) {
    EXPECT_EQ(problem_kind_from(to_string(k)), k) << to_string(k);
    names.insert(to_string(k));
  }
  EXPECT_EQ(names.size(), std::size(kProblemKinds));
  EXPECT_EQ(to_string(ProblemKind::no_kernel), "no-kernel");
  EXPECT_FALSE(problem_kind_from("no_kernel"));
}
