// kiln build's JSON from the outcome and the verdict: the diagnosis each failure gives, and the
// verification report in kiln verify's one shape (kiln.build/2).
#include <gtest/gtest.h>

#include "cli/build_render.hpp"
#include "cli/json_out.hpp"
#include "cli/verify_json.hpp"
#include "core/arch_spec.hpp"
#include "core/gpu_table.hpp"

using namespace kiln;

namespace {

binary::VerifyReport one_file_report() {
  binary::VerifyReport r;
  binary::FileVerdict f;
  f.file = "/b/libk.so";
  f.targets = *core::parse_cmake("90-real", {});
  binary::GpuVerdict g;
  g.gpu = "h100";
  g.model = *core::GpuTable::get().lookup("h100");
  g.coverage.verdict = core::Verdict::native;
  f.gpus.push_back(g);
  r.files.push_back(f);
  r.files_checked = 1;
  return r;
}

}  // namespace

TEST(BuildJson, TheVerifyReportHasKilnVerifysShape) {
  EXPECT_EQ(cli::schema_for("build"), "kiln.build/2");
  plan::Plan p;
  drive::BuildOutcome o;
  o.ok = true;
  drive::BuildVerdict v;
  v.ok = true;
  v.verified = one_file_report();
  const auto j = cli::build_json(p, o, v, std::nullopt);
  const auto& verify = j["outcome"]["verify"];
  EXPECT_EQ(verify, cli::verify_report_json(v.verified, 5));
  EXPECT_EQ(verify["files"][0]["path"], "/b/libk.so");
  EXPECT_EQ(verify["files"][0]["targets"][0]["arch"], "sm_90");
  EXPECT_EQ(verify["files"][0]["gpus"][0]["verdict"], "native");
  EXPECT_TRUE(j["outcome"]["ok"].get<bool>());
  EXPECT_TRUE(j["outcome"]["diagnosis"].is_null());

  v.ok = false;
  v.failed_step = "verify";
  v.exit_code = 1;
  v.verified.problems.push_back(
      {"/b/libk.so", "B200 (cc 10.0)", binary::ProblemKind::no_kernel, "no kernel image runs here", "rebuild"});
  const auto bad = cli::build_json(p, o, v, std::nullopt);
  EXPECT_EQ(bad["outcome"]["verify"]["problems"][0], (nlohmann::ordered_json{{"file", "/b/libk.so"},
                                                                             {"gpu", "B200 (cc 10.0)"},
                                                                             {"kind", "no-kernel"},
                                                                             {"why", "no kernel image runs here"},
                                                                             {"fix", "rebuild"}}));
  EXPECT_EQ(bad["outcome"]["failed_step"], "verify");
  EXPECT_EQ(bad["outcome"]["exit_code"], 1);
  EXPECT_EQ(bad["outcome"]["diagnosis"],
            (nlohmann::ordered_json{
                {"id", "kiln.verify-failed"}, {"cause", "no kernel image runs here"}, {"fix", "rebuild"}}));
}

TEST(BuildJson, EachFailureGivesItsDiagnosis) {
  plan::Plan p;
  drive::BuildOutcome o;
  o.ok = true;
  drive::BuildVerdict v;
  v.failed_step = "no-cuda";
  v.no_cuda = "/p has CUDA code (k.cu) but the build compiled none for 90-real: WITH_CUDA was '0'";
  auto j = cli::build_json(p, o, v, std::nullopt);
  EXPECT_EQ(j["outcome"]["diagnosis"]["id"], "kiln.no-cuda-built");
  EXPECT_EQ(j["outcome"]["diagnosis"]["cause"], *v.no_cuda);
  EXPECT_TRUE(j["outcome"]["diagnosis"]["fix"].is_null());
  EXPECT_EQ(j["outcome"]["exit_code"], 0) << "the outcome's";

  o.ok = false;
  o.failed_step = "configure";
  o.exit_code = 1;
  drive::BuildVerdict failed;
  failed.failed_step = "configure";
  failed.exit_code = 1;
  j = cli::build_json(p, o, failed, std::nullopt);
  EXPECT_FALSE(j["outcome"].contains("verify")) << "nothing built, nothing verified";
  EXPECT_TRUE(j["outcome"]["diagnosis"]["id"].is_null());
  EXPECT_EQ(j["outcome"]["diagnosis"]["cause"], "no known signature matched; see the log");

  failed.full_disk = "kiln: disk full: /b has 4 KiB free";
  j = cli::build_json(p, o, failed, std::nullopt);
  EXPECT_EQ(j["outcome"]["diagnosis"],
            (nlohmann::ordered_json{{"id", "resources.no-space"}, {"cause", "kiln: disk full: /b has 4 KiB free"}}));
}
