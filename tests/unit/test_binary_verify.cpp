#include <gtest/gtest.h>

#include <sstream>

#include "binary/verify.hpp"
#include "binary_fixtures.hpp"
#include "core/gpu_table.hpp"

using namespace kiln;
using namespace kiln::binary;
using kiln::testing::FakeEntry;
using kiln::testing::make_fatbin;

namespace {

struct Real {
  io::RealFilesystem fs;
  io::RealProcessRunner proc;
  io::RealClock clock;
  io::FakeEnvironment env;
  std::ostringstream out, err;
  io::Seams seams{fs, proc, clock, env, out, err};
};

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
  EXPECT_EQ(p.kind, "no-kernel");
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
  EXPECT_EQ(r2.problems[0].kind, "unreadable");
  EXPECT_NE(r2.problems[0].why.find("offset 0x"), std::string::npos);
}

TEST(Verify, NoCudaAnywhereIsAProblem) {
  Real s;
  kiln::testing::TempDir dir;
  auto txt = dir.write("readme.txt", "hello");
  auto r = verify_files({txt}, gpus({"h100"}), VerifyOptions{}, s.seams);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0].kind, "no-cuda");
  EXPECT_EQ(rebuild_arch_list(core::TargetSet{}, 120), "12.0");
}
