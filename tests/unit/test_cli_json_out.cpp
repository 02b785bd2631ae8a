// The --json envelope (docs/cli/json.md): a schema in every command's object, JSON error objects,
// bytes that are not UTF-8 escaped instead of fatal; and the parser's hygiene around it
// (did-you-mean, --config placement and checking, `--`, --jobs 0, -D without '=').
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <sstream>

#include <nlohmann/json.hpp>

#include "binary_fixtures.hpp"
#include "cli/command.hpp"
#include "cli/json_out.hpp"
#include "core/json_text.hpp"
#include "core/size_text.hpp"
#include "core/spelling.hpp"
#include "test_support.hpp"

using namespace kiln;
using json = nlohmann::json;

namespace {

struct Cli : kiln::testing::CliRig {
  json parsed() const { return json::parse(out.str()); }  // throws when stdout is not one JSON document
};

}  // namespace

TEST(JsonText, ValidUtf8IsKept) {
  EXPECT_EQ(core::utf8_escape("plain"), "plain");
  EXPECT_EQ(core::utf8_escape("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5"),
            "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5");
}

TEST(JsonText, InvalidBytesAreEscaped) {
  EXPECT_EQ(core::utf8_escape("caf\xe9.so"), "caf\\xe9.so");                 // Latin-1
  EXPECT_EQ(core::utf8_escape("\xc0\xaf"), "\\xc0\\xaf");                    // overlong '/'
  EXPECT_EQ(core::utf8_escape("\xed\xa0\x80"), "\\xed\\xa0\\x80");           // a UTF-16 surrogate
  EXPECT_EQ(core::utf8_escape("ab\xe2\x82"), "ab\\xe2\\x82");                // cut short at the end
  EXPECT_EQ(core::utf8_escape("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // above U+10FFFF
}

TEST(JsonText, DumpNeverThrows) {
  nlohmann::ordered_json j = {{"path", "lib\xff.so"}, {"list", {"ok", "\xfe"}}};
  j["k\x80"] = 1;
  EXPECT_THROW((void)j.dump(), nlohmann::json::type_error);  // what the escaping is for
  std::string text;
  ASSERT_NO_THROW(text = core::dump_json(j));
  auto back = json::parse(text);
  EXPECT_EQ(back["path"], "lib\\xff.so");
  EXPECT_EQ(back["list"][1], "\\xfe");
  EXPECT_EQ(back["k\\x80"], 1);
}

TEST(JsonOut, SchemaComesFirstAndVersionsAreListed) {
  std::ostringstream o;
  cli::print_json(o, "gpus", nlohmann::ordered_json{{"gpus", json::array()}, {"schema", "old"}});
  auto j = nlohmann::ordered_json::parse(o.str());
  EXPECT_EQ(j.begin().key(), "schema");
  EXPECT_EQ(j["schema"], "kiln.gpus/1");
  EXPECT_EQ(cli::schema_for("doctor"), "kiln.doctor/2");
  EXPECT_EQ(cli::schema_for("error"), "kiln.error/1");
}

TEST(SizeText, CcacheSizes) {
  EXPECT_EQ(core::parse_ccache_size("5.0G"), 5000000000u);
  EXPECT_EQ(core::parse_ccache_size("500M"), 500000000u);
  EXPECT_EQ(core::parse_ccache_size("2Gi"), 2147483648u);
  EXPECT_EQ(core::parse_ccache_size("5.0 GB"), 5000000000u);
  EXPECT_EQ(core::parse_ccache_size("20"), 20000000000u);  // ccache: no suffix means G
  EXPECT_EQ(core::parse_ccache_size("0"), 0u);
  EXPECT_FALSE(core::parse_ccache_size("lots"));
  EXPECT_FALSE(core::parse_ccache_size("5X"));
  EXPECT_FALSE(core::parse_ccache_size("5GiG"));
  EXPECT_FALSE(core::parse_ccache_size("99999999999T"));  // more than 64 bits of bytes
}

// One reader, the base named by the caller: memory (--mem-budget, --simulate) counts in 1024s, ccache in 1000s.
TEST(SizeText, TheBaseIsTheCallers) {
  using core::SizeBase;
  EXPECT_EQ(core::parse_size_bytes("12G", SizeBase::binary, 1), 12ull << 30);
  EXPECT_EQ(core::parse_size_bytes("12G", SizeBase::decimal, 1), 12000000000u);
  EXPECT_EQ(core::parse_size_bytes("12GiB", SizeBase::decimal, 1), 12ull << 30);  // Gi is 1024^3 under either
  EXPECT_EQ(core::parse_size_bytes("900m", SizeBase::binary, 1), 900ull << 20);
  EXPECT_EQ(core::parse_size_bytes(" 1.5 K ", SizeBase::binary, 1), 1536u);
  EXPECT_EQ(core::parse_size_bytes("4096", SizeBase::binary, 1), 4096u);  // bare: the caller's unit
  EXPECT_EQ(core::parse_size_bytes("64", SizeBase::binary, 1ull << 30), 64ull << 30);
  EXPECT_FALSE(core::parse_size_bytes("4iB", SizeBase::binary, 1));
  EXPECT_NE(core::size_base_text(SizeBase::binary).find("1024"), std::string::npos);
  EXPECT_NE(core::size_base_text(SizeBase::decimal).find("1000"), std::string::npos);
}

// One did-you-mean rule (issue 31: core's closest allowed a third of the word, the PyTorch-option
// reader its own Levenshtein with max(2, a quarter)): max(1, a quarter of the word) edits.
TEST(Spelling, OneRuleForEverySuggestion) {
  EXPECT_EQ(core::edit_distance("biuld", "build"), 1u);  // a transposition is one edit
  EXPECT_EQ(core::closest("biuld", {"build", "bench", "plan"}), "build");
  EXPECT_EQ(core::closest("--jbos", {"--jobs", "--json"}), "--jobs");
  EXPECT_FALSE(core::closest("zzzzzz", {"build", "plan"}));
  EXPECT_EQ(core::typo_limit("-j"), 1u);
  EXPECT_EQ(core::typo_limit("inspetc"), 1u);
  EXPECT_EQ(core::typo_limit("USE_CUDNNN"), 2u);
  EXPECT_FALSE(core::closest("isnpetc", {"inspect"}));  // two edits in seven letters: not a typo
  // PyTorch options: USE_CUDA is three edits from USE_CUDNNN, more than a quarter of it.
  EXPECT_EQ(core::nearest_names("USE_CUDNNN", {"USE_CUDA", "USE_GLOO", "USE_CUDNN"}, 3),
            (std::vector<std::string>{"USE_CUDNN"}));
  EXPECT_EQ(core::nearest_names("USE_GLO", {"USE_CUDA", "USE_GLOO", "USE_GLOG", "USE_GLOG"}, 3),
            (std::vector<std::string>{"USE_GLOG", "USE_GLOO"}));  // nearest first, ties by name, once each
  EXPECT_EQ(core::nearest_names("USE_GLO", {"USE_GLOO", "USE_GLOG"}, 1), (std::vector<std::string>{"USE_GLOG"}));
  EXPECT_TRUE(core::nearest_names("USE_GLOO", {"USE_GLOO"}, 3).empty());  // the name itself is no suggestion
}

TEST(CliJson, EveryCheapCommandCarriesItsSchema) {
  kiln::testing::TempDir dir;
  Cli c;
  ASSERT_EQ(c.run({"archs", "--json", "8.0;9.0+PTX"}), 0) << c.err.str();
  EXPECT_EQ(c.parsed()["schema"], "kiln.archs/1");
  ASSERT_EQ(c.run({"gpus", "--json", "h100"}), 0) << c.err.str();
  EXPECT_EQ(c.parsed()["schema"], "kiln.gpus/1");
  auto log = dir.write("ok.log", "[1/1] Linking CXX executable x\n");
  ASSERT_EQ(c.run({"diagnose", "--json", log}), 0) << c.err.str();
  EXPECT_EQ(c.parsed()["schema"], "kiln.diagnose/1");
  auto bin = dir.write("k.fatbin", kiln::testing::make_fatbin({kiln::testing::FakeEntry{2, 90}}));
  ASSERT_EQ(c.run({"inspect", "--json", bin}), 0) << c.err.str();
  EXPECT_EQ(c.parsed()["schema"], "kiln.inspect/1");
  EXPECT_EQ(c.parsed()["files"][0]["entries"][0]["size_bytes"], 32);
  ASSERT_EQ(c.run({"verify", "--json", "--no-deps", "--gpu", "h100", bin}), 0) << c.err.str();
  EXPECT_EQ(c.parsed()["schema"], "kiln.verify/1");
  dir.write("b/.ninja_log", "# ninja log v5\n0\t1500\t0\ta.o\t1\n1500\t2000\t0\tlib.so\t2\n");
  ASSERT_EQ(c.run({"report", "--json", dir / "b"}), 0) << c.err.str();
  auto r = c.parsed();
  EXPECT_EQ(r["schema"], "kiln.report/1");
  EXPECT_EQ(r["makespan_s"], 2.0);
  EXPECT_EQ(r["slowest_units"][0]["duration_s"], 1.5);
}

TEST(CliJson, UsageErrorsUnderJsonAreJsonObjects) {
  Cli c;
  ASSERT_EQ(c.run({"gpus", "--json", "--nope"}), 2);
  auto j = c.parsed();
  EXPECT_EQ(j["schema"], "kiln.error/1");
  EXPECT_EQ(j["command"], "gpus");
  EXPECT_EQ(j["error"]["kind"], "usage");
  EXPECT_EQ(j["exit_code"], 2);
  EXPECT_NE(c.err.str().find("error"), std::string::npos);  // the person at the terminal still reads it

  ASSERT_EQ(c.run({"archs", "--json", "--from", "bogus", "8.0"}), 2);
  EXPECT_EQ(c.parsed()["error"]["kind"], "usage");
  ASSERT_EQ(c.run({"verify", "--json", "/nonexistent-file"}), 2);  // no --gpu
  EXPECT_NE(c.parsed()["error"]["message"].get<std::string>().find("--gpu"), std::string::npos);
  ASSERT_EQ(c.run({"gpus", "--json", "no such gpu 9999"}), 2);
  EXPECT_EQ(c.parsed()["command"], "gpus");
}

TEST(CliJson, BytesThatAreNotUtf8AreEscapedNotFatal) {
  kiln::testing::TempDir dir;
  Cli c;
  // A log with Latin-1 in a compiler error: diagnose reads it and prints JSON.
  auto log = dir.write("bad.log", "/src/caf\xe9.cu(3): error: identifier \"x\xff\" is undefined\n");
  ASSERT_EQ(c.run({"diagnose", "--json", log}), 1) << c.err.str();
  auto j = c.parsed();
  EXPECT_TRUE(j["failed"].get<bool>());
  EXPECT_NE(j.dump().find("caf\\\\xe9"), std::string::npos);
  // A file name that is not UTF-8, in inspect and verify.
  auto bin = dir.write("k\xe9.fatbin", kiln::testing::make_fatbin({kiln::testing::FakeEntry{2, 90}}));
  ASSERT_EQ(c.run({"inspect", "--json", bin}), 0) << c.err.str();
  EXPECT_NE(c.parsed()["files"][0]["path"].get<std::string>().find("k\\xe9.fatbin"), std::string::npos);
  ASSERT_EQ(c.run({"verify", "--json", "--no-deps", "--gpu", "h100", bin}), 0) << c.err.str();
  EXPECT_EQ(c.parsed()["schema"], "kiln.verify/1");
  // A spec with such bytes: a usage error, still JSON.
  ASSERT_EQ(c.run({"archs", "--json", "8.0;\xff"}), 2);
  EXPECT_EQ(c.parsed()["error"]["kind"], "usage");
  // .ninja_log outputs are bytes too.
  dir.write("b/.ninja_log", "# ninja log v5\n0\t1500\t0\tob\xe9.o\t1\n");
  ASSERT_EQ(c.run({"report", "--json", dir / "b"}), 0) << c.err.str();
  EXPECT_EQ(c.parsed()["slowest_units"][0]["name"], "ob\\xe9.o");
}

TEST(CliParse, DidYouMean) {
  Cli c;
  ASSERT_EQ(c.run({"biuld"}), 2);
  EXPECT_NE(c.err.str().find("did you mean 'build'?"), std::string::npos) << c.err.str();
  ASSERT_EQ(c.run({"gpus", "--loacl"}), 2);
  EXPECT_NE(c.err.str().find("did you mean '--local'?"), std::string::npos) << c.err.str();
  ASSERT_EQ(c.run({"plan", "--jbos", "3"}), 2);
  EXPECT_NE(c.err.str().find("did you mean '--jobs'?"), std::string::npos) << c.err.str();
  ASSERT_EQ(c.run({"xyzzy-nothing"}), 2);
  EXPECT_NE(c.err.str().find("unknown command 'xyzzy-nothing'"), std::string::npos) << c.err.str();
}

TEST(CliParse, EndOfOptionsMarkerForArchs) {
  Cli c;
  ASSERT_EQ(c.run({"archs", "--to", "cmake", "--", "8.0;9.0"}), 0) << c.err.str();
  EXPECT_EQ(c.out.str(), "80-real;90-real\n");
  // nvcc flags after `--` are SPEC, not kiln options.
  ASSERT_EQ(c.run({"archs", "--to", "cmake", "--", "-gencode", "arch=compute_90,code=sm_90"}), 0) << c.err.str();
  EXPECT_EQ(c.out.str(), "90-real\n");
}

TEST(CliParse, JobsZeroAndDefineWithoutEqualsAreUsageErrors) {
  Cli c;
  EXPECT_EQ(c.run({"plan", "--jobs", "0"}), 2);
  EXPECT_NE(c.err.str().find("1 or more"), std::string::npos) << c.err.str();
  EXPECT_EQ(c.run({"plan", "-j", "-3"}), 2);
  EXPECT_EQ(c.run({"plan", "-D", "NOEQUALS"}), 2);
  EXPECT_NE(c.err.str().find("KEY=VALUE"), std::string::npos) << c.err.str();
  EXPECT_EQ(c.run({"plan", "-D", "=1"}), 2);
}

TEST(CliParse, ConfigAfterTheCommandAndCheckedByLineAndKey) {
  kiln::testing::TempDir dir;
  Cli c;
  auto good = dir.write("good.toml", "[archs]\nto = \"cmake\"\n");
  ASSERT_EQ(c.run({"archs", "--config", good, "8.0"}), 0) << c.err.str();
  EXPECT_EQ(c.out.str(), "80-real\n");
  ASSERT_EQ(c.run({"archs", "--config=" + good, "9.0"}), 0) << c.err.str();
  EXPECT_EQ(c.out.str(), "90-real\n");

  auto typo = dir.write("typo.toml", "# ci\n[build]\njobs = 4\njbos = 8\n");
  ASSERT_EQ(c.run({"archs", "--config", typo, "8.0"}), 2);
  EXPECT_NE(c.err.str().find("typo.toml:4: key 'jbos' is not an option of kiln build; did you mean 'jobs'?"),
            std::string::npos)
      << c.err.str();
  auto broken = dir.write("broken.toml", "[build]\njobs = = 4\n");
  ASSERT_EQ(c.run({"gpus", "--config", broken, "--json"}), 2);
  EXPECT_NE(c.err.str().find("broken.toml:2:"), std::string::npos) << c.err.str();
  EXPECT_EQ(c.parsed()["schema"], "kiln.error/1");
  auto section = dir.write("section.toml", "[biuld]\njobs = 4\n");
  ASSERT_EQ(c.run({"gpus", "--config", section}), 2);
  EXPECT_NE(c.err.str().find("section.toml:1: [biuld] is not a kiln command; did you mean 'build'?"), std::string::npos)
      << c.err.str();
  ASSERT_EQ(c.run({"gpus", "--config", dir / "missing.toml"}), 2);
}

TEST(CliSpecialFiles, FifoInAScannedFolderIsSkippedWithANote) {
  kiln::testing::TempDir dir;
  dir.write("lib/k.fatbin", kiln::testing::make_fatbin({kiln::testing::FakeEntry{2, 90}}));
  const std::string fifo = dir / "lib/pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  Cli c;
  ASSERT_EQ(c.run({"inspect", dir / "lib"}), 0) << c.err.str();
  EXPECT_NE(c.err.str().find("pipe: skipped: a FIFO (named pipe)"), std::string::npos) << c.err.str();
  ASSERT_EQ(c.run({"inspect", "--json", dir / "lib"}), 0) << c.err.str();
  EXPECT_EQ(c.parsed()["special_files"][0]["kind"], "a FIFO (named pipe)");
  ASSERT_EQ(c.run({"verify", "--no-deps", "--gpu", "h100", dir / "lib"}), 0) << c.err.str();
  EXPECT_NE(c.err.str().find("note: " + fifo + ": skipped"), std::string::npos) << c.err.str();
  ASSERT_EQ(c.run({"verify", "--json", "--no-deps", "--gpu", "h100", dir / "lib"}), 0);
  EXPECT_EQ(c.parsed()["notes"].size(), 1u);
}
