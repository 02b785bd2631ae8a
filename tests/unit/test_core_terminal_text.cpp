// core/terminal_text and its users: log text shown on a terminal carries no sequence the terminal
// acts on (issue 34, case 10: `kiln diagnose` passed a log's OSC 0 (window title) and OSC 52
// (clipboard write) straight through).
#include <gtest/gtest.h>

#include "binary_fixtures.hpp"
#include "core/terminal_text.hpp"
#include "test_support.hpp"

using namespace kiln;

TEST(TerminalText, EscapeSequencesAreDroppedAndControlsShown) {
  EXPECT_EQ(core::terminal_safe("plain\ttext\n"), "plain\ttext\n");
  EXPECT_EQ(core::terminal_safe("\033]0;pwned\007title"), "title");       // OSC ended by BEL
  EXPECT_EQ(core::terminal_safe("a\033]52;c;ZXZpbA==\033\\b"), "ab");     // OSC 52 ended by ST
  EXPECT_EQ(core::terminal_safe("\033[31merror\033[0m: x"), "error: x");  // colours
  EXPECT_EQ(core::terminal_safe("\033[2J\033[1;1Hx"), "x");               // clear, cursor
  EXPECT_EQ(core::terminal_safe("\033Pq#0;2\033\\y"), "y");               // DCS
  EXPECT_EQ(core::terminal_safe("bell\a back\b del\x7f"), "bell\\x07 back\\x08 del\\x7f");
  EXPECT_EQ(core::terminal_safe("over\rwrite\r\n"), "over\\x0dwrite\n");
  EXPECT_EQ(core::terminal_safe("c1 \xc2\x9b"
                                "31m"),
            "c1 \\u009b31m");                                                              // 8-bit CSI
  EXPECT_EQ(core::terminal_safe("caf\xc3\xa9 \xe2\x9c\x93"), "caf\xc3\xa9 \xe2\x9c\x93");  // UTF-8 kept
  EXPECT_EQ(core::terminal_safe("\033]0;never ended"), "");
  EXPECT_EQ(core::terminal_safe("trailing \033"), "trailing \\x1b");
}

TEST(TerminalText, DiagnoseShowsNoSequenceFromTheLog) {
  kiln::testing::TempDir dir;
  kiln::testing::CliRig c;
  const auto log = dir.write(
      "osc.log", "/src/k.cu(3): error: identifier \"\033]0;owned\007x\033]52;c;cm0gLXJmIH4=\033\\\" is undefined\n");
  ASSERT_EQ(c.run({"diagnose", log}), 1) << c.err.str();
  const std::string out = c.out.str();
  EXPECT_EQ(out.find('\033'), std::string::npos) << out;
  EXPECT_EQ(out.find('\a'), std::string::npos) << out;
  EXPECT_NE(out.find("identifier \"x\" is undefined"), std::string::npos) << out;
}
