// The command line as a new user types it (issue 21): options that take values never swallow the
// positional after them, GPUs in every spelling people use, kiln's own one-line errors.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "cli/json_out.hpp"
#include "cli/plan_options.hpp"
#include "test_support.hpp"

extern char** environ;

using namespace kiln;
using json = nlohmann::json;

namespace {

struct Cli : kiln::testing::CliRig {
  Cli() {
    for (char** e = environ; *e; ++e) {
      const std::string kv = *e;
      const auto eq = kv.find('=');
      if (eq != std::string::npos) env.set(kv.substr(0, eq), kv.substr(eq + 1));
    }
  }
  json parsed() const { return json::parse(out.str()); }
};

std::string example() { return kiln::testing::source_dir() + "/examples/minitorch"; }

}  // namespace

// Every option of every command takes one value per flag: CLI11's default for a vector option
// takes each following word, the project folder included.
TEST(CliOptions, EveryOptionTakesOneValuePerFlag) {
  for (auto& c : cli::all_commands()) {
    CLI::App app{c->summary(), c->name()};
    cli::declare(*c, app);
    for (const CLI::Option* o : app.get_options())
      if (o->nonpositional()) EXPECT_FALSE(o->get_allow_extra_args()) << c->name() << " " << o->get_name();
  }
}

TEST(CliOptions, ListOptionsLeaveThePositionalAlone) {
  Cli cli;
  for (std::vector<std::string> extra :
       {std::vector<std::string>{"--gpu", "h100"}, {"-D", "A=1"}, {"--set", "FOO=1"}, {"--knob", "A=1"}}) {
    std::vector<std::string> args{"plan"};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back(example());
    args.insert(args.end(), {"--archs", "9.0", "--json"});
    ASSERT_EQ(cli.run(args), 0) << extra[0] << ": " << cli.err.str();
    EXPECT_EQ(cli.parsed()["project"], example()) << extra[0];
  }
  ASSERT_EQ(cli.run({"archs", "--gpu", "h100", "9.0", "--json"}), 0) << cli.err.str();
  EXPECT_EQ(cli.parsed()["targets"][0]["arch"], "sm_90");
  EXPECT_EQ(cli.parsed()["coverage"][0]["gpu"], "h100");
}

// A relative --build-dir is the current folder's: kiln build once wrote kiln-build.json there, the
// CMake tree under the project and kiln-exec.jsonl under that (found with a local Slurm cluster).
TEST(CliOptions, ARelativeBuildDirIsTheCurrentFolders) {
  Cli cli;
  ASSERT_EQ(cli.run({"plan", example(), "--build-dir", "rel/b", "--json"}), 0) << cli.err.str();
  EXPECT_EQ(cli.parsed()["build_dir"], (std::filesystem::current_path() / "rel/b").string());
}

// --mem-budget counts in 1024s (as the kernel and Slurm count memory), and its error says so: the one
// size reader is told the base by its caller (core/size_text).
TEST(CliOptions, MemBudgetCountsInPowersOf1024) {
  Cli cli;
  ASSERT_EQ(cli.run({"plan", example(), "--mem-budget", "3G", "--json"}), 0) << cli.err.str();
  EXPECT_EQ(cli.parsed()["governor"]["budget_bytes"], 3LL << 30);
  ASSERT_EQ(cli.run({"plan", example(), "--mem-budget", "900M", "--json"}), 0) << cli.err.str();
  EXPECT_EQ(cli.parsed()["governor"]["budget_bytes"], 900LL << 20);
  EXPECT_EQ(cli::parse_size_kib("2048K"), 2048u);
  EXPECT_EQ(cli::parse_size_kib("1GiB"), 1u << 20);
  EXPECT_EQ(cli::parse_size_kib("1073741824"), 1u << 20);  // a bare number is bytes
  EXPECT_FALSE(cli::parse_size_kib("100"));                // less than 1 KiB is no budget
  EXPECT_EQ(cli.run({"plan", example(), "--mem-budget", "3X"}), 2);
  EXPECT_NE(cli.err.str().find("powers of 1024"), std::string::npos) << cli.err.str();
}

TEST(CliOptions, GpuTakesRepeatsAndCommaLists) {
  Cli cli;
  // Exit 1: sm_90 does not run on the A100 or the L4; all three were asked about.
  ASSERT_EQ(cli.run({"archs", "--gpu", "h100,a100", "--gpu", "l4", "9.0", "--json"}), 1) << cli.err.str();
  EXPECT_EQ(cli.parsed()["coverage"].size(), 3u);
  ::setenv("KILN_GPUS", "h100,a100", 1);
  const int rc = cli.run({"plan", example(), "--json"});
  ::unsetenv("KILN_GPUS");
  ASSERT_EQ(rc, 0) << cli.err.str();
  EXPECT_EQ(cli.parsed()["gpus"].size(), 2u) << cli.out.str();
}

// docs/cli/<command>.md cannot drift from --help: every option a command declares is documented
// there under one of its names (issue 21).
TEST(CliDocs, EveryOptionIsDocumented) {
  for (auto& c : cli::all_commands()) {
    CLI::App app{c->summary(), c->name()};
    cli::declare(*c, app);
    const std::string page = kiln::testing::source_dir() + "/docs/cli/" + c->name() + ".md";
    std::ifstream in(page);
    ASSERT_TRUE(in) << page;
    std::stringstream text;
    text << in.rdbuf();
    const std::string doc = text.str();
    for (const CLI::Option* o : app.get_options()) {
      // Hidden options, --help and positionals (named in each page's usage line) aside.
      if (o->get_group().empty() || o->get_lnames() == std::vector<std::string>{"help"} || !o->nonpositional())
        continue;
      std::vector<std::string> names;
      for (const auto& l : o->get_lnames()) names.push_back("--" + l);
      for (const auto& sn : o->get_snames()) names.push_back("-" + sn + " ");
      bool found = false;
      for (const auto& n : names) found = found || doc.find(n) != std::string::npos;
      EXPECT_TRUE(found) << page << " does not document " << names.front();
    }
  }
}

// `kiln help`, `kiln version`, SPEC in archs --help, and kiln's words for CLI11's errors (issue 21).
TEST(CliOptions, HelpVersionAndOwnErrors) {
  Cli cli;
  ASSERT_EQ(cli.run({"version"}), 0);
  EXPECT_EQ(cli.out.str().rfind("kiln ", 0), 0u);
  ASSERT_EQ(cli.run({"help", "archs"}), 0) << cli.err.str();
  EXPECT_NE(cli.out.str().find("SPEC:"), std::string::npos) << cli.out.str();
  ASSERT_EQ(cli.run({"help"}), 0);
  EXPECT_NE(cli.out.str().find("build"), std::string::npos);
  EXPECT_EQ(cli.run({"report", "--top", "0"}), 2);
  EXPECT_EQ(cli.err.str(), "kiln report: error: --top: '0': give a whole number 1 or more\n");
  EXPECT_EQ(cli.run({"cache", "show", "extra"}), 2);
  EXPECT_EQ(cli.err.str(), "kiln cache: error: unexpected argument 'extra'; see kiln cache --help\n");
}

// --help names the schema the command's --json output carries (doctor's said /1 while it printed
// /2), and the build summary says what it builds (issue 21 item 9).
TEST(CliDocs, HelpNamesTheSchemaTheOutputCarries) {
  Cli cli;
  for (auto& c : cli::all_commands()) {
    if (cli.run({c->name(), "--help"}) != 0) ADD_FAILURE() << c->name() << " --help: " << cli.err.str();
    const std::string help = cli.out.str();
    if (help.find("--json") == std::string::npos) continue;
    EXPECT_NE(help.find("(schema " + cli::schema_for(c->name()) + ","), std::string::npos) << c->name() << help;
    EXPECT_EQ(help.find("(schema in"), std::string::npos) << c->name();
  }
  // What the output carries is what --help says (doctor's own run is in e2e cli_hygiene: it
  // re-executes the binary, here the test binary).
  for (std::vector<std::string> args :
       {std::vector<std::string>{"archs", "9.0", "--json"}, {"gpus", "h100", "--json"}}) {
    ASSERT_EQ(cli.run(args), 0) << cli.err.str();
    const std::string schema = cli.parsed()["schema"];
    Cli help;
    ASSERT_EQ(help.run({args[0], "--help"}), 0);
    EXPECT_NE(help.out.str().find("(schema " + schema + ","), std::string::npos) << schema;
  }
  ASSERT_EQ(cli.run({"build", "--help"}), 0);
  EXPECT_NE(cli.out.str().find("PyTorch checkout or torch extension"), std::string::npos);
  EXPECT_EQ(cli.out.str().find("a CMake CUDA project"), std::string::npos);
}

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The usage synopsis at the top of docs/cli/<cmd>.md: the lines from the first one that starts
// with "kiln <cmd>" (not the title) to the next blank line.
std::string synopsis(const std::string& page, const std::string& cmd) {
  std::istringstream in(page);
  std::string out;
  for (std::string line; std::getline(in, line);) {
    const auto first = line.find_first_not_of(' ');
    if (out.empty()) {
      if (first != std::string::npos && line.compare(first, 5 + cmd.size(), "kiln " + cmd) == 0) out = line + "\n";
    } else if (first == std::string::npos) {
      break;
    } else {
      out += line + "\n";
    }
  }
  return out;
}

}  // namespace

// The other way: every option a page's synopsis names exists in the command's --help (the pages
// also quote nvcc's, pip's and ccache's flags, so only the synopsis counts as kiln's own).
TEST(CliDocs, EveryOptionInASynopsisExists) {
  const std::regex flag(R"((^|[\s\[(|])(--?[a-zA-Z][a-zA-Z0-9-]*))");
  for (auto& c : cli::all_commands()) {
    CLI::App app{c->summary(), c->name()};
    cli::declare(*c, app);
    const std::string page = kiln::testing::source_dir() + "/docs/cli/" + c->name() + ".md";
    const std::string syn = synopsis(read_text(page), c->name());
    ASSERT_FALSE(syn.empty()) << page << " has no `kiln " << c->name() << "` synopsis";
    int seen = 0;
    for (std::sregex_iterator it(syn.begin(), syn.end(), flag), end; it != end; ++it) {
      const std::string name = (*it)[2];
      ++seen;
      EXPECT_NE(app.get_option_no_throw(name), nullptr)
          << page << " names " << name << ", which kiln " << c->name() << " does not take";
    }
    if (c->name() != std::string("completion")) EXPECT_GT(seen, 0) << page;
  }
}

// Every KILN_ variable kiln reads is documented: a user's setting in the README (and on its
// command's page), kiln's wiring to its launcher in docs/architecture.md (issue 21 item 9).
TEST(CliDocs, EveryKilnVariableIsDocumented) {
  const std::string src = kiln::testing::source_dir();
  std::string docs = read_text(src + "/README.md");
  for (const auto& e : std::filesystem::recursive_directory_iterator(src + "/docs"))
    if (e.path().extension() == ".md") docs += read_text(e.path().string());
  const std::regex var(R"re("(KILN_[A-Z0-9_]+)")re");
  std::set<std::string> names;
  for (const auto& e : std::filesystem::recursive_directory_iterator(src + "/src")) {
    const std::string text = read_text(e.path().string());
    for (std::sregex_iterator it(text.begin(), text.end(), var), end; it != end; ++it) names.insert((*it)[1]);
  }
  EXPECT_GT(names.size(), 20u);
  for (const auto& n : names) {
    const std::regex word("\\b" + n + "\\b");
    EXPECT_TRUE(std::regex_search(docs, word)) << n << " is read in src/ but documented nowhere";
  }
  // Options read from the environment: in the README, and on the page of each command taking them.
  const std::string readme = read_text(src + "/README.md");
  for (auto& c : cli::all_commands()) {
    CLI::App app{c->summary(), c->name()};
    cli::declare(*c, app);
    const std::string page = read_text(src + "/docs/cli/" + c->name() + ".md");
    for (const CLI::Option* o : app.get_options()) {
      const std::string env = o->get_envname();
      if (env.rfind("KILN_", 0) != 0) continue;
      EXPECT_NE(readme.find(env), std::string::npos) << env << " (" << o->get_name() << ") not in README.md";
      EXPECT_NE(page.find(env), std::string::npos) << env << " not in docs/cli/" << c->name() << ".md";
    }
  }
}
