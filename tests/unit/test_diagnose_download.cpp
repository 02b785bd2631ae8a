// A failed prebuilt-wheel download names the project's own force-build switch when kiln knows it.
#include <gtest/gtest.h>

#include "diagnose/diagnoser.hpp"

using namespace kiln::diagnose;

namespace {
const char* kLog =
    "  Guessing wheel URL:  https://github.com/o/p/releases/download/v1/p-1+cu13-cp312-linux_x86_64.whl\n"
    "  error: <urlopen error [Errno -3] Temporary failure in name resolution>\n"
    "  error: subprocess-exited-with-error\n";
}

TEST(DiagnoseDownload, FixNamesTheProjectsForceBuildSwitch) {
  Options o;
  PlanContext pc;
  pc.force_build = "PROJ_FORCE_BUILD=TRUE";
  o.plan = pc;
  auto d = diagnose_text(kLog, o);
  ASSERT_TRUE(d.failed());
  EXPECT_EQ(d.root_cause()->signature->id, "python.prebuilt-wheel-download-failed");
  EXPECT_NE(d.root_cause()->fix.find("set PROJ_FORCE_BUILD=TRUE"), std::string::npos) << d.root_cause()->fix;
}

TEST(DiagnoseDownload, WithoutAProjectTheFixListsTheCommonSwitches) {
  auto d = diagnose_text(kLog);
  ASSERT_TRUE(d.failed());
  EXPECT_NE(d.root_cause()->fix.find("CAUSAL_CONV1D_FORCE_BUILD=TRUE"), std::string::npos);
  EXPECT_EQ(d.root_cause()->fix.find("{plan."), std::string::npos);
}
