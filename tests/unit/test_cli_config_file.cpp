// kiln.toml checked before CLI11 reads it (cli/config_file), on the inputs that reach a known bug of
// Debian 12's toml++ 3.3.0: a character in U+00A1-U+0499 or U+FB06-U+FEFE where its parser looks for
// whitespace reaches TOML_UNREACHABLE (upstream #295; docs/reliability.md F6; the fuzz build leaves
// that one function out of UBSan by name, fuzz/ubsan_ignore.txt). In kiln's build they must read as
// a parse error naming the file and line, or parse right, never crash.
#include <gtest/gtest.h>

#include "cli/config_file.hpp"

using kiln::cli::check_config;

namespace {
const std::map<std::string, std::vector<std::string>> kOptions = {{"build", {"jobs", "gpu"}}};
}

TEST(ConfigFile, NonAsciiWhereTomlExpectsWhitespaceIsAParseErrorWithItsLine) {
  for (const std::string text :
       {"[build]\njobs = 1\xd1\x87\n", "[build]\n\xd1\x87 = 1\n", "[build]\njobs = 1 \xef\xac\x86\n"}) {
    const auto err = check_config("/p/kiln.toml", text, kOptions);
    ASSERT_TRUE(err) << text;
    EXPECT_NE(err->find("/p/kiln.toml:2"), std::string::npos) << *err;
  }
}

TEST(ConfigFile, NonAsciiInsideStringsAndCommentsIsRead) {
  EXPECT_EQ(check_config("/p/kiln.toml", "[build]  # сборка\ngpu = \"h100 \xd1\x87\"\njobs = 4\n", kOptions),
            std::nullopt);
}
