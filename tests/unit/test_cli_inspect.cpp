// kiln inspect / kiln verify through the command line parser: exit codes and the JSON schema that
// docs/cli/inspect.md and docs/cli/verify.md promise.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include <nlohmann/json.hpp>

#include "binary_fixtures.hpp"
#include "cli/command.hpp"
#include "cli/inspect_render.hpp"
#include "test_support.hpp"

using namespace kiln;
using kiln::testing::FakeEntry;
using kiln::testing::make_fatbin;

namespace {

using Cli = kiln::testing::CliRig;

}  // namespace

TEST(CliInspect, JsonSchema) {
  kiln::testing::TempDir dir;
  auto path = dir.write("k.fatbin", make_fatbin({FakeEntry{2, 90, 0x11 | 0x100000}, FakeEntry{1, 120}}));
  Cli c;
  ASSERT_EQ(c.run({"inspect", "--json", path}), 0) << c.err.str();
  auto j = nlohmann::json::parse(c.out.str());
  ASSERT_EQ(j["files"].size(), 1u);
  const auto& f = j["files"][0];
  EXPECT_EQ(f["path"], path);
  EXPECT_EQ(f["format"], "fatbin");
  EXPECT_EQ(f["cuda"], true);
  ASSERT_EQ(f["entries"].size(), 2u);
  const auto& e = f["entries"][0];
  EXPECT_EQ(e["kind"], "sass");
  EXPECT_EQ(e["arch"], "sm_90a");
  EXPECT_EQ(e["size_bytes"], 32);
  EXPECT_EQ(e["compressed"], false);
  EXPECT_EQ(f["entries"][1]["kind"], "ptx");
  EXPECT_EQ(f["entries"][1]["arch"], "sm_120");
  EXPECT_EQ(f["totals"]["sass_count"], 1);
  EXPECT_EQ(f["totals"]["ptx_count"], 1);
  EXPECT_EQ(f["archs"].size(), 2u);
  EXPECT_TRUE(f["error"].is_null());
}

TEST(CliInspect, CorruptFilesExitOneMissingOnesTwo) {
  kiln::testing::TempDir dir;
  auto good = make_fatbin({FakeEntry{2, 80}});
  auto bad = dir.write("bad.fatbin", good.substr(0, good.size() - 1));
  Cli c;
  EXPECT_EQ(c.run({"inspect", bad}), 1);
  EXPECT_NE(c.out.str().find("bad.fatbin: error: offset 0x"), std::string::npos) << c.out.str();
  Cli c2;
  EXPECT_EQ(c2.run({"inspect", dir / "nope.so"}), 2);  // a usage error, as every command's (issue 33)
  EXPECT_NE(c2.err.str().find("nope.so': no such file or folder"), std::string::npos) << c2.err.str();
}

TEST(CliInspect, FolderRecursionSkipsNonBinaries) {
  kiln::testing::TempDir dir;
  dir.write("a/k.fatbin", make_fatbin({FakeEntry{2, 80}}));
  dir.write("a/b/readme.md", "# hi\n");
  Cli c;
  ASSERT_EQ(c.run({"inspect", "--json", dir.path()}), 0);
  auto j = nlohmann::json::parse(c.out.str());
  EXPECT_EQ(j["files"].size(), 1u);
  EXPECT_EQ(j["skipped"], 1);
}

TEST(CliVerify, ExitCodesAndJson) {
  kiln::testing::TempDir dir;
  auto path = dir.write("k.fatbin", make_fatbin({FakeEntry{2, 80}, FakeEntry{2, 90}}));
  Cli ok;
  EXPECT_EQ(ok.run({"verify", path, "--gpu", "a100", "--gpu", "h100"}), 0) << ok.out.str();
  Cli fail;
  EXPECT_EQ(fail.run({"verify", "--json", path, "--gpu", "b200"}), 1);
  auto j = nlohmann::json::parse(fail.out.str());
  EXPECT_EQ(j["ok"], false);
  ASSERT_EQ(j["problems"].size(), 1u);
  EXPECT_EQ(j["problems"][0]["kind"], "no-kernel");
  EXPECT_EQ(j["files"][0]["gpus"][0]["verdict"], "none");
  Cli usage;
  EXPECT_EQ(usage.run({"verify", path}), 2);
  Cli unknown;
  EXPECT_EQ(unknown.run({"verify", path, "--gpu", "h1000000"}), 2);
  Cli archs;
  EXPECT_EQ(archs.run({"verify", path, "--archs", "8.0;9.0"}), 0) << archs.out.str();
  Cli archs_bad;
  EXPECT_EQ(archs_bad.run({"verify", path, "--archs", "8.0;10.0"}), 1);
}

TEST(CliInspect, SkipsCMakeProbesInsideFoldersAsVerifyDoes) {
  kiln::testing::TempDir dir;
  dir.write("build/libk.fatbin", make_fatbin({FakeEntry{2, 90}}));
  const auto probe = dir.write("build/CMakeFiles/3.28.3/CompilerIdCUDA/a.fatbin", make_fatbin({FakeEntry{2, 52}}));
  Cli c;
  ASSERT_EQ(c.run({"inspect", "--json", dir / "build"}), 0);
  auto j = nlohmann::json::parse(c.out.str());
  ASSERT_EQ(j["files"].size(), 1u);
  EXPECT_EQ(j["build_system_files"], nlohmann::json::array({probe}));
  Cli named;  // named on the command line, it is read
  ASSERT_EQ(named.run({"inspect", "--json", probe}), 0);
  EXPECT_EQ(nlohmann::json::parse(named.out.str())["files"].size(), 1u);
}

TEST(CliInspect, SizeSharesAddUpToAHundred) {
  // Three parts of 1/3 each: rounded alone they give 33.3% three times.
  EXPECT_EQ(cli::tenths_of_percent({1, 1, 1}), (std::vector<int>{334, 333, 333}));
  EXPECT_EQ(cli::tenths_of_percent({0, 0}), (std::vector<int>{0, 0}));
  kiln::testing::TempDir dir;
  const auto lib =
      dir.write("libk.fatbin", make_fatbin({FakeEntry{2, 80}, FakeEntry{2, 90}, FakeEntry{1, 90}, FakeEntry{2, 100}}));
  Cli c;
  ASSERT_EQ(c.run({"inspect", "--sizes", lib}), 0);
  // Every row's share, the architectures' and the lines after them, in tenths of a percent.
  std::istringstream lines(c.out.str());
  int rows = 0, total = -1;
  std::string line;
  while (std::getline(lines, line)) {
    const auto pct = line.find('%');
    if (pct == std::string::npos || line.find("% file") != std::string::npos) continue;
    const auto start = line.find_last_of(" (", pct) + 1;
    const int tenths = static_cast<int>(std::lround(std::stod(line.substr(start, pct - start)) * 10));
    if (line.rfind("  total", 0) == 0)
      total = tenths;
    else
      rows += tenths;
  }
  EXPECT_EQ(rows, 1000) << c.out.str();
  EXPECT_GT(total, 0);
}
