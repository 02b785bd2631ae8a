// Settings from the config file and the environment (issue 23): a bad value names its source and
// fails only the command that reads it; a config file that is not a regular file is refused
// without reading it; a forced job count says who forced it.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "fakes/environment.hpp"
#include "binary_fixtures.hpp"
#include "cli/command.hpp"
#include "cli/config_file.hpp"
#include "cli/project_config.hpp"
#include "cli/setting_source.hpp"
#include "test_support.hpp"

using namespace kiln;

namespace {

using Cli = kiln::testing::CliRig;
using kiln::testing::TempDir;  // each test's files in a folder of its own, removed at its end

// CLI11 reads an option's variable with getenv: set it for real, and in the seam, for one test.
struct ScopedEnv {
  std::string name;
  ScopedEnv(Cli& c, const std::string& n, const std::string& v) : name(n) {
    ::setenv(n.c_str(), v.c_str(), 1);
    c.env.set(n, v);
  }
  ~ScopedEnv() { ::unsetenv(name.c_str()); }
};

}  // namespace

TEST(Settings, ABadJobsVariableBreaksOnlyTheCommandsThatReadIt) {
  Cli c;
  ScopedEnv e(c, "KILN_JOBS", "0");
  EXPECT_EQ(c.run({"--version"}), 0) << c.err.str();
  EXPECT_EQ(c.run({"archs", "9.0"}), 0) << c.err.str();
  EXPECT_EQ(c.run({"plan", "--example"}), 2);
  EXPECT_NE(c.err.str().find("(from KILN_JOBS)"), std::string::npos) << c.err.str();
}

TEST(Settings, ABadJobsLineInTheConfigBreaksOnlyItsCommandAndNamesFileAndLine) {
  Cli c;
  TempDir tmp;
  const auto cfg = tmp.write("jobs0.toml", "# kiln settings\n[plan]\njobs = 0\n");
  EXPECT_EQ(c.run({"--config", cfg, "--version"}), 0) << c.err.str();
  EXPECT_EQ(c.run({"--config", cfg, "archs", "9.0"}), 0) << c.err.str();
  EXPECT_EQ(c.run({"--config", cfg, "plan", "--example"}), 2);
  EXPECT_NE(c.err.str().find("(from " + cfg + ":3)"), std::string::npos) << c.err.str();
}

TEST(Settings, AFlagVariableThatIsNotABooleanBreaksOnlyItsCommand) {
  Cli c;
  ScopedEnv e(c, "KILN_NO_SPLIT", "maybe");
  EXPECT_EQ(c.run({"--version"}), 0) << c.err.str();
  EXPECT_EQ(c.run({"plan", "--example"}), 2);
  EXPECT_NE(c.err.str().find("KILN_NO_SPLIT"), std::string::npos) << c.err.str();
}

TEST(Settings, SpecialFilesAsConfigAreRefusedWithoutReadingThem) {
  Cli c;
  EXPECT_EQ(c.run({"--config", "/dev/zero", "--version"}), 2);
  EXPECT_NE(c.err.str().find("not a regular file"), std::string::npos) << c.err.str();
  TempDir tmp;
  const std::filesystem::path fifo = tmp / "config.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(c.run({"--config", fifo, "--version"}), 2);  // a read would block here for ever
  EXPECT_NE(c.err.str().find("not a regular file"), std::string::npos) << c.err.str();
  const auto huge = tmp.write("huge.toml", std::string(cli::kConfigMaxBytes + 1, '#'));
  EXPECT_EQ(c.run({"--config", huge, "--version"}), 2);
  EXPECT_NE(c.err.str().find("more than a config file's"), std::string::npos) << c.err.str();
}

TEST(Settings, ForcedJobsSayWhereTheyCameFrom) {
  Cli c;
  TempDir tmp;
  const auto cfg = tmp.write("jobs1.toml", "[plan]\n\njobs = 1\n");
  ASSERT_EQ(c.run({"--config", cfg, "plan", "--example"}), 0) << c.err.str();
  EXPECT_NE(c.out.str().find("forced by " + cfg + ":3"), std::string::npos) << c.out.str();
  EXPECT_EQ(c.out.str().find("forced by --jobs"), std::string::npos) << c.out.str();
  ASSERT_EQ(c.run({"--config", cfg, "plan", "--example", "-j2"}), 0) << c.err.str();
  EXPECT_NE(c.out.str().find("forced by -j"), std::string::npos) << c.out.str();
  {
    ScopedEnv e(c, "KILN_JOBS", "1");
    ASSERT_EQ(c.run({"plan", "--example"}), 0) << c.err.str();
    EXPECT_NE(c.out.str().find("forced by KILN_JOBS"), std::string::npos) << c.out.str();
  }
}

TEST(Settings, SourceOrderIsCommandLineThenConfigThenEnvironment) {
  io::FakeEnvironment env;
  env.set("KILN_JOBS", "4");
  cli::SettingOrigins o;
  o.section = "build";
  EXPECT_EQ(cli::setting_source(o, env, {"-j", "--jobs"}, "KILN_JOBS"), "KILN_JOBS");
  o.config_path = "ci.toml";
  o.config_text = "[plan]\njobs = 2\n[build]\n\njobs = 3\n";
  EXPECT_EQ(cli::setting_source(o, env, {"-j", "--jobs"}, "KILN_JOBS"), "ci.toml:5");
  o.args = {"build", "-j8"};
  EXPECT_EQ(cli::setting_source(o, env, {"-j", "--jobs"}, "KILN_JOBS"), "-j");
  o.args = {"build", "--jobs=8"};
  EXPECT_EQ(cli::setting_source(o, env, {"-j", "--jobs"}, "KILN_JOBS"), "--jobs");
  o.args = {"build", "--", "-j8"};  // after `--`: not kiln's
  EXPECT_EQ(cli::setting_source(o, env, {"-j", "--jobs"}, "KILN_JOBS"), "ci.toml:5");
}

TEST(Settings, ReportRefusesAnOptionAsItsHtmlFile) {
  Cli c;
  TempDir tmp;
  const std::filesystem::path dir = tmp.path();
  const auto was = std::filesystem::current_path();
  std::filesystem::current_path(dir);  // where a page named "--json" would land
  EXPECT_EQ(c.run({"report", dir.string(), "--html", "--json"}), 2);
  std::filesystem::current_path(was);
  EXPECT_FALSE(std::filesystem::exists(dir / "--json"));
  EXPECT_NE(c.err.str().find("is an option, not a FILE"), std::string::npos) << c.err.str();
}

// Issue 21: plan and build read the project's kiln.toml (DIR/kiln.toml), not the current folder's,
// and plan reads [build] (its own [plan] winning), so that `kiln plan DIR` shows what `kiln build DIR` does.
TEST(Settings, PlanReadsTheProjectsKilnTomlAndItsBuildSection) {
  Cli c;
  TempDir tmp;
  const std::filesystem::path dir = tmp / "proj21";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "CMakeLists.txt") << "cmake_minimum_required(VERSION 3.20)\nproject(p LANGUAGES CXX CUDA)\n";
  const auto toml = (dir / "kiln.toml").string();
  std::ofstream(toml) << "[build]\njobs = 3\nkeep-project-archs = true\n";
  ASSERT_EQ(c.run({"plan", dir.string(), "--gpu", "h100", "--json"}), 0) << c.err.str();
  EXPECT_NE(c.out.str().find("\"forced_by\": \"" + toml + ":2\""), std::string::npos) << c.out.str();
  EXPECT_NE(c.out.str().find("\"prune_archs\": false"), std::string::npos) << c.out.str();
  std::ofstream(toml, std::ios::app) << "[plan]\njobs = 5\n";
  ASSERT_EQ(c.run({"plan", dir.string(), "--gpu", "h100", "--json"}), 0) << c.err.str();
  EXPECT_NE(c.out.str().find("\"forced_by\": \"" + toml + ":5\""), std::string::npos) << c.out.str();
  // A bad [build] value fails plan too, naming the line.
  std::ofstream(toml) << "[build]\nbuild-type = \"Fast\"\n";
  EXPECT_EQ(c.run({"plan", dir.string(), "--gpu", "h100"}), 2);
  EXPECT_NE(c.err.str().find("Fast"), std::string::npos) << c.err.str();
}

// bench reads the project's kiln.toml as plan and build do, and report the kiln.toml of the project
// whose build folder it profiles (kiln-build.json names it, even outside the project): one owner,
// cli/project_config (issue 21: both read ./kiln.toml). A bad value shows which file was read.
TEST(Settings, BenchAndReportReadTheProjectsKilnToml) {
  Cli c;
  TempDir tmp;
  const std::filesystem::path root = tmp.path();
  const auto dir = root / "proj21b";
  const auto out = root / "out21b";  // a build folder outside the project
  std::filesystem::create_directories(dir);
  std::filesystem::create_directories(out);
  std::ofstream(dir / "CMakeLists.txt") << "cmake_minimum_required(VERSION 3.20)\nproject(p LANGUAGES CXX)\n";
  std::ofstream(out / "kiln-build.json") << "{\"schema\": 1, \"project_dir\": \"" << dir.string() << "\"}\n";
  const auto toml = (dir / "kiln.toml").string();
  std::ofstream(toml) << "[bench]\nrepeat = 0\n[report]\ntop = 0\n";
  EXPECT_EQ(cli::default_config_path({"bench", dir.string()}, "bench", c.seams), toml);
  EXPECT_EQ(cli::default_config_path({"report", out.string()}, "report", c.seams), toml);
  EXPECT_EQ(cli::default_config_path({"report", dir.string()}, "report", c.seams), toml);  // the project folder
  EXPECT_EQ(cli::default_config_path({"doctor"}, "doctor", c.seams), "kiln.toml");  // no project: the current folder
  EXPECT_EQ(c.run({"bench", dir.string()}), 2);
  EXPECT_NE(c.err.str().find(toml + ":2"), std::string::npos) << c.err.str();
  EXPECT_EQ(c.run({"report", out.string()}), 2);
  EXPECT_NE(c.err.str().find(toml + ":4"), std::string::npos) << c.err.str();
  // A record from before project_dir was written: kiln's default build folder's project is its parent.
  std::filesystem::create_directories(dir / "build-kiln");
  std::ofstream(dir / "build-kiln" / "kiln-build.json") << "{\"schema\": 1}\n";
  EXPECT_EQ(cli::default_config_path({"report", (dir / "build-kiln").string()}, "report", c.seams), toml);
}
