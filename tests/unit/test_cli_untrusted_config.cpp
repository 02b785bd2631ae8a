// A project's kiln.toml is untrusted input (issue 34): it chooses options, never the programs kiln
// runs (case 3), and its values are read by the one TOML reader that checked them, '#' and all
// (case 7).
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "binary_fixtures.hpp"
#include "cli/project_config.hpp"
#include "test_support.hpp"

using namespace kiln;

namespace {

using Cli = kiln::testing::CliRig;
using kiln::testing::TempDir;

std::filesystem::path cmake_project(const TempDir& tmp, const std::string& name) {
  const std::filesystem::path dir = tmp / name;
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "CMakeLists.txt") << "cmake_minimum_required(VERSION 3.20)\nproject(p LANGUAGES CXX CUDA)\n";
  return dir;
}

}  // namespace

TEST(UntrustedConfig, AProjectsKilnTomlNamingTheInterpreterIsRefusedAndRunsNothing) {
  Cli c;
  TempDir tmp;
  const auto dir = cmake_project(tmp, "evil");
  const auto marker = tmp / "RAN";
  std::ofstream(dir / "evil.sh") << "#!/bin/sh\necho \"$@\" >> " << marker << "\nexit 1\n";
  ::chmod((dir / "evil.sh").c_str(), 0755);
  std::ofstream(dir / "kiln.toml") << "[plan]\npython = \"" << (dir / "evil.sh").string() << "\"\n";
  for (const char* command : {"plan", "build"}) {
    EXPECT_EQ(c.run({command, dir.string(), "--gpu", "h100"}), 2) << command << ": " << c.err.str();
    EXPECT_NE(c.err.str().find("kiln.toml:2: [plan] python names a program"), std::string::npos) << c.err.str();
    EXPECT_NE(c.err.str().find("--python"), std::string::npos) << c.err.str();
  }
  EXPECT_FALSE(std::filesystem::exists(marker)) << "the project's script ran";
  // The user's own file (--config) and flags may name one.
  const auto mine = tmp.write("mine.toml", "[plan]\npython = \"/usr/bin/python3\"\n");
  std::filesystem::remove(dir / "kiln.toml");
  EXPECT_EQ(c.run({"--config", mine, "plan", dir.string(), "--gpu", "h100"}), 0) << c.err.str();
}

TEST(UntrustedConfig, ValuesWithAHashAreReadWholeWithEveryArrayElement) {
  const auto items = cli::read_config_items(
      "[build]\nset = [\"B=two#three\", \"C=four\"] # a comment\nbuild-dir = \"/tmp/a#b\"\njobs = 3\n"
      "no-ccache = true\n");
  ASSERT_EQ(items.size(), 5u);  // four keys and the section's end
  std::map<std::string, std::vector<std::string>> got;
  for (const auto& i : items) got[i.name] = i.inputs;
  EXPECT_EQ(got["set"], (std::vector<std::string>{"B=two#three", "C=four"}));
  EXPECT_EQ(got["build-dir"], (std::vector<std::string>{"/tmp/a#b"}));
  EXPECT_EQ(got["jobs"], (std::vector<std::string>{"3"}));
  EXPECT_EQ(got["no-ccache"], (std::vector<std::string>{"true"}));

  // And through the command line: what the plan passes on.
  Cli c;
  TempDir tmp;
  const auto dir = cmake_project(tmp, "hash");
  std::ofstream(dir / "kiln.toml") << "[build]\nset = [\"B=two#three\", \"C=four\"]\n";
  ASSERT_EQ(c.run({"plan", dir.string(), "--gpu", "h100", "--emit", "cmake"}), 0) << c.err.str();
  EXPECT_NE(c.out.str().find("two#three"), std::string::npos) << c.out.str();
  EXPECT_NE(c.out.str().find("four"), std::string::npos) << c.out.str();
}
