// kiln completion: the scripts are generated from the registered commands, and bash really loads
// and completes with them.
#include <gtest/gtest.h>

#include <sstream>

#include "binary_fixtures.hpp"
#include "cli/command.hpp"
#include "io/process.hpp"
#include "plan/emit.hpp"
#include "test_support.hpp"

using namespace kiln;

namespace {

std::string kiln_out(std::vector<std::string> args, int* rc = nullptr) {
  kiln::testing::RealSeams t;
  int r = kiln::testing::run_kiln(t.seams, std::move(args));
  if (rc) *rc = r;
  return t.out.str();
}

// Runs `script` in bash; stdout.
std::string bash(const std::string& script) {
  io::RealProcessRunner proc;
  auto r = proc.run({.argv = {"bash", "--norc", "-c", script}});
  EXPECT_TRUE(r.ok()) << r.err;
  return r.out;
}

}  // namespace

TEST(Completion, BashLoadsItAndCompletesCommandsAndOptions) {
  kiln::testing::TempDir dir;
  auto script = dir.write("kiln.bash", kiln_out({"completion", "bash"}));
  auto complete = [&](const std::string& words) {
    return bash(". " + script + "; COMP_WORDS=(" + words +
                "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _kiln; echo \"${COMPREPLY[*]}\"");
  };
  EXPECT_EQ(complete("kiln bui"), "build\n");
  EXPECT_EQ(complete("kiln d"), "doctor diagnose\n");
  EXPECT_EQ(complete("kiln build --jo"), "--jobs\n");
  EXPECT_EQ(complete("kiln --config x.toml inspect --ker"), "--kernels\n");
  EXPECT_EQ(complete("kiln completion z"), "zsh\n");
  // Every registered command is offered.
  const auto all = complete("kiln ''");
  for (const char* c : {"doctor", "archs", "gpus", "plan", "build", "inspect", "verify", "diagnose", "report", "cache",
                        "bench", "completion"})
    EXPECT_NE(all.find(c), std::string::npos) << c;
  EXPECT_NE(bash(". " + script + "; complete -p kiln").find("-F _kiln kiln"), std::string::npos);
}

TEST(Completion, ZshScriptIsValidAndNamesEveryCommand) {
  const auto text = kiln_out({"completion", "zsh"});
  EXPECT_EQ(text.rfind("#compdef kiln\n", 0), 0u);
  EXPECT_NE(text.find("'--jobs["), std::string::npos);
  EXPECT_NE(text.find("'verify:"), std::string::npos);
  io::RealProcessRunner proc;
  kiln::testing::TempDir dir;
  auto script = dir.write("_kiln", text);
  auto r = proc.run({.argv = {"zsh", "-n", script}});
  if (!r.started) GTEST_SKIP() << "zsh is not installed; its syntax check needs it";
  EXPECT_TRUE(r.ok()) << r.err;
}

TEST(Completion, UnknownShellIsAUsageError) {
  int rc = 0;
  kiln_out({"completion", "fish"}, &rc);
  EXPECT_EQ(rc, 2);
}

TEST(EmitEnv, QuotedValuesSurviveSourcingInBash) {
  kiln::testing::TempDir dir;
  std::string file;
  const std::map<std::string, std::string> tricky = {
      {"CUDAARCHS", "80-real;90-real"}, {"SPACED", "a b  c"}, {"QUOTE", "it's \"x\" $HOME `id` \\n"}, {"EMPTY", ""}};
  for (const auto& [k, v] : tricky) file += k + "=" + plan::shell_quote(v) + "\n";
  auto path = dir.write("plan.env", file);
  for (const auto& [k, v] : tricky) EXPECT_EQ(bash("set -a; . " + path + "; printf %s \"$" + k + "\""), v) << k;
  // `set -a` exports them: a child sees the same.
  EXPECT_EQ(bash("set -a; . " + path + "; bash -c 'printf %s \"$CUDAARCHS\"'"), "80-real;90-real");
}
