// drive::finish_build over the seams: a failed step's diagnosis (with the plan's terms and the
// full-disk line it adds to the log), and a finished build's verification, the project's own
// architectures in the fix, and the CUDA gate of a project that compiled no CUDA code.
#include <gtest/gtest.h>

#include "binary_fixtures.hpp"
#include "fakes/disk.hpp"
#include "core/arch_spec.hpp"
#include "core/gpu_table.hpp"
#include "drive/build_verdict.hpp"
#include "probe/disk.hpp"
#include "test_support.hpp"

using namespace kiln;
using kiln::testing::FakeEntry;
using kiln::testing::make_fatbin;

namespace {

// Real files (verification reads the built files, the diagnosis the log), a scripted environment
// and disk.
struct Rig : kiln::testing::SeamsOf<io::RealFilesystem, io::FakeProcessRunner, io::FakeClock, io::FakeEnvironment> {
  kiln::testing::TempDir dir;
  probe::FakeDiskQuery disk;
  plan::Plan plan;
  drive::BuildOutcome outcome;

  Rig() {
    plan.kind = read::ProjectKind::cmake;
    plan.project_dir = dir.path();
    plan.build_dir = dir.path() + "/build-kiln";
    plan.targets = *core::parse_cmake("90-real", {});
    plan.gpus = {*core::GpuTable::get().lookup("h100")};
    plan.jobs.jobs = 8;
    plan.jobs.by_memory = 3;
    plan.jobs.budget_gib = 16;
    plan.nvcc_version = "13.0.48";
    disk.set(plan.build_dir, {std::uint64_t{64} << 30, std::uint64_t{128} << 30});
  }
  void failed(const std::string& log) {
    dir.write("build-kiln/kiln-build.log", log);
    outcome.ok = false;
    outcome.failed_step = "build";
    outcome.exit_code = 1;
  }
  void built(const std::string& name, const std::string& content) {
    outcome.ok = true;
    outcome.artifacts.push_back(dir.write("build-kiln/" + name, content));
  }
  drive::BuildVerdict verdict() { return drive::finish_build(plan, outcome, -1, seams, disk); }
};

}  // namespace

TEST(BuildVerdict, AFailedStepIsDiagnosedInThePlansTerms) {
  Rig r;
  r.failed("[3/9] Building CUDA object k.cu.o\nvirtual memory exhausted: Cannot allocate memory\n");
  const auto v = r.verdict();
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.failed_step, "build");
  EXPECT_EQ(v.exit_code, 1);
  EXPECT_FALSE(v.full_disk);
  EXPECT_TRUE(v.verified.files.empty() && v.verified.problems.empty()) << "nothing built, nothing verified";
  const auto* root = v.diagnosis.root_cause();
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->signature->id, "resources.compiler-out-of-memory");
  EXPECT_EQ(root->first_line, 2u);
  // The fix speaks of this plan: 8 jobs now, what memory allows (3) next time.
  EXPECT_NE(root->fix.find("-j8"), std::string::npos) << root->fix;
  EXPECT_NE(root->fix.find("--jobs 3"), std::string::npos) << root->fix;
}

TEST(BuildVerdict, AFullDiskIsWrittenToTheLogAndDiagnosed) {
  Rig r;
  r.disk.set(r.plan.build_dir, {4096, std::uint64_t{128} << 30});
  r.failed("CMake Error: Unknown extension \".cmake\"\n");
  const auto v = r.verdict();
  ASSERT_TRUE(v.full_disk);
  EXPECT_EQ(*v.full_disk, "kiln: disk full: " + r.plan.build_dir + " has 4 KiB free");
  EXPECT_EQ(kiln::testing::slurp(r.plan.log_path()),
            "CMake Error: Unknown extension \".cmake\"\n" + *v.full_disk + "\n");
  ASSERT_NE(v.diagnosis.root_cause(), nullptr);
  EXPECT_EQ(v.diagnosis.root_cause()->signature->id, "resources.no-space");
}

TEST(BuildVerdict, ALogWithNoKnownSignatureHasNoRootCause) {
  Rig r;
  r.failed("something went wrong\n");
  const auto v = r.verdict();
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.diagnosis.root_cause(), nullptr);
  EXPECT_EQ(kiln::testing::slurp(r.plan.log_path()), "something went wrong\n") << "the log is left alone";
}

TEST(BuildVerdict, BuiltFilesThatRunOnThePlannedGpusPass) {
  Rig r;
  r.built("k.fatbin", make_fatbin({FakeEntry{2, 90}}));
  const auto v = r.verdict();
  EXPECT_TRUE(v.ok);
  EXPECT_EQ(v.failed_step, "");
  EXPECT_EQ(v.exit_code, 0);
  ASSERT_EQ(v.verified.files.size(), 1u);
  EXPECT_EQ(v.verified.files[0].gpus[0].coverage.verdict, core::Verdict::native);
  EXPECT_FALSE(v.no_cuda);
  EXPECT_TRUE(v.diagnosis.findings.empty()) << "a build that passed is not diagnosed";
}

TEST(BuildVerdict, NoKernelForAPlannedGpuFailsVerifyNamingTheProjectsOwnArchitectures) {
  Rig r;
  r.built("k.fatbin", make_fatbin({FakeEntry{2, 80}}));
  r.plan.gpus = {*core::GpuTable::get().lookup("b200")};
  r.plan.targets = *core::parse_cmake("100-real", {});
  auto plain = r.verdict();
  EXPECT_FALSE(plain.ok);
  EXPECT_EQ(plain.failed_step, "verify");
  EXPECT_EQ(plain.exit_code, 1);
  ASSERT_EQ(plain.verified.problems.size(), 1u);
  EXPECT_EQ(plain.verified.problems[0].kind, binary::ProblemKind::no_kernel);
  EXPECT_EQ(plain.verified.problems[0].fix.find("the project sets its own"), std::string::npos);

  r.plan.knobs.cmake_archs = "80";
  const auto own = r.verdict();
  ASSERT_EQ(own.verified.problems.size(), 1u);
  EXPECT_EQ(own.verified.problems[0].fix,
            "the project sets its own architectures (80), which override the planned 100-real: change them to "
            "100-real or remove them");
}

TEST(BuildVerdict, AProjectWithoutCudaCodeMayBuildNone) {
  Rig r;
  r.built("libplain.so", "not a binary kiln reads");
  const auto v = r.verdict();
  EXPECT_TRUE(v.ok) << "no-cuda is a note in the summary, not a problem";
  EXPECT_TRUE(v.verified.problems.empty());
  EXPECT_TRUE(v.verified.files.empty());
  EXPECT_FALSE(v.no_cuda);
}

TEST(BuildVerdict, AProjectWithCudaCodeThatBuiltNoneNamesItsGate) {
  Rig r;
  r.built("libplain.so", "not a binary kiln reads");
  r.plan.knobs.cuda_evidence = "csrc/k.cu";
  auto unknown = r.verdict();
  EXPECT_FALSE(unknown.ok);
  EXPECT_EQ(unknown.failed_step, "no-cuda");
  EXPECT_EQ(unknown.exit_code, 0) << "the outcome's: the steps themselves succeeded";
  ASSERT_TRUE(unknown.no_cuda);
  EXPECT_EQ(*unknown.no_cuda, r.plan.project_dir +
                                  " has CUDA code (csrc/k.cu) but the build compiled none for 90-real: kiln found no "
                                  "switch in setup.py or CMakeLists.txt that gates it; read the log for what the "
                                  "build skipped");

  read::Knob gate;
  gate.name = "WITH_CUDA";
  gate.role = std::string(read::knob_roles::kCudaEnable);
  gate.on_value = "1";
  gate.where = "setup.py:12";
  r.plan.knobs.knobs.push_back(gate);
  r.env.set("WITH_CUDA", "0");
  const auto gated = r.verdict();
  ASSERT_TRUE(gated.no_cuda);
  EXPECT_NE(gated.no_cuda->find("WITH_CUDA was '0' (from the environment, setup.py:12): the CUDA code is compiled "
                                "only with WITH_CUDA=1"),
            std::string::npos)
      << *gated.no_cuda;
}
