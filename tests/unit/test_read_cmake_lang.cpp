// The CMake-language reader: tokens as CMake's own parser gives them, and if() as CMake decides it.
#include <gtest/gtest.h>

#include <map>

#include "read/cmake_lang.hpp"

using namespace kiln::read::cmake;

namespace {

std::vector<Command> parsed(const std::string& text) {
  auto r = parse(text);
  EXPECT_TRUE(r) << (r ? "" : r.error());
  return r ? *r : std::vector<Command>{};
}

Lookup vars(std::map<std::string, std::string> set, std::vector<std::string> unknown = {}) {
  return [set, unknown](const std::string& n) -> Value {
    for (const auto& u : unknown)
      if (u == n) return Value::dunno();
    auto it = set.find(n);
    return it == set.end() ? Value::none() : Value::of(it->second);
  };
}

Truth cond(const std::string& args, const Lookup& l) {
  auto cmds = parsed("if(" + args + ")");
  std::vector<std::string> unknown;
  return evaluate(expand_args(cmds.at(0).args, l, unknown), l).truth;
}

}  // namespace

TEST(CmakeLang, ArgumentKindsCommentsAndContinuations) {
  auto c = parsed(
      "# a comment (with parens\n"
      "OPTION(USE_X \"Use \\\"X\\\" \\\n  now\" ON) # trailing\n"
      "#[[ bracket\n comment ) ]]\n"
      "set(B [==[raw ]] ${NOT_EXPANDED}\n]==] unq\\;uoted a\"b c\"d)\n"
      "cmake_dependent_option(\n  USE_Y \"y\" ON\n  \"USE_X;UNIX\" OFF)\n");
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].name, "option");  // command names are case-insensitive
  EXPECT_EQ(c[0].line, 2);
  ASSERT_EQ(c[0].args.size(), 3u);
  EXPECT_EQ(c[0].args[1].text, "Use \"X\"   now");  // escapes decoded, backslash-newline removed, indent kept
  EXPECT_EQ(c[0].args[1].kind, Arg::quoted);
  EXPECT_EQ(c[1].line, 6);
  EXPECT_EQ(c[1].args[1].text, "raw ]] ${NOT_EXPANDED}\n");
  EXPECT_EQ(c[1].args[1].kind, Arg::bracket);
  EXPECT_EQ(c[1].args[2].text, "unq\\;uoted");  // the list escape stays until expansion
  EXPECT_EQ(c[1].args[3].text, "a\"b c\"d");    // legacy unquoted argument keeps its quotes
  EXPECT_EQ(c[2].line, 8);
  EXPECT_EQ(c[2].args[3].text, "USE_X;UNIX");
}

TEST(CmakeLang, NestedParenthesesAreArguments) {
  auto c = parsed("if(A AND (B OR C))");
  ASSERT_EQ(c.size(), 1u);
  std::vector<std::string> texts;
  for (const auto& a : c[0].args) texts.push_back(a.text);
  EXPECT_EQ(texts, (std::vector<std::string>{"A", "AND", "(", "B", "OR", "C", ")"}));
}

TEST(CmakeLang, UnterminatedInputIsAnErrorWithTheLine) {
  auto r = parse("set(A \"open\n\nmessage(x)\n");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("line 1"), std::string::npos) << r.error();
  EXPECT_FALSE(parse("option(A \"a\" ON"));
  EXPECT_FALSE(parse("#[=[ never closed ]]"));
  EXPECT_FALSE(parse("set(A [[x)"));
  EXPECT_FALSE(parse("not_a_command"));
}

TEST(CmakeLang, ExpandsVariablesEnvAndNesting) {
  auto l = vars({{"A", "x"}, {"B_x", "deep"}, {"ENV{HOME}", "/root"}, {"L", "1;2;3"}}, {"U"});
  std::vector<std::string> unknown;
  EXPECT_EQ(expand("${A}-${B_${A}}-$ENV{HOME}-${UNSET}.", l, unknown), "x-deep-/root-.");
  EXPECT_FALSE(expand("${U}", l, unknown));
  EXPECT_EQ(unknown, (std::vector<std::string>{"U"}));
  // Unquoted arguments split into list elements; quoted ones stay whole.
  auto toks = expand_args({{"${L}", Arg::unquoted}, {"${L}", Arg::quoted}, {"${UNSET}", Arg::unquoted}}, l, unknown);
  ASSERT_EQ(toks.size(), 4u);
  EXPECT_EQ(toks[0].text, "1");
  EXPECT_EQ(toks[3].text, "1;2;3");
  EXPECT_TRUE(toks[3].quoted);
}

TEST(CmakeLang, ConstantsAndVariableTruth) {
  EXPECT_EQ(constant("on"), true);
  EXPECT_EQ(constant("Y"), true);
  EXPECT_EQ(constant("2.5"), true);
  EXPECT_EQ(constant("0.0"), false);
  EXPECT_EQ(constant("IGNORE"), false);
  EXPECT_EQ(constant("CUDNN-NOTFOUND"), false);
  EXPECT_EQ(constant(""), false);
  EXPECT_EQ(constant("USE_CUDA"), std::nullopt);
  EXPECT_TRUE(value_truth("/usr/lib/libcudnn.so"));
  EXPECT_FALSE(value_truth("x-NOTFOUND"));
}

TEST(CmakeLang, IfFollowsCmakeRules) {
  auto l = vars({{"ON_VAR", "ON"},
                 {"OFF_VAR", "OFF"},
                 {"PATHVAR", "/x"},
                 {"SYS", "Linux"},
                 {"PROC", "x86_64"},
                 {"LIST", "a;b"},
                 {"V", "12.3"}},
                {"MYSTERY"});
  EXPECT_EQ(cond("ON_VAR", l), Truth::yes);
  EXPECT_EQ(cond("OFF_VAR", l), Truth::no);
  EXPECT_EQ(cond("PATHVAR", l), Truth::yes);
  EXPECT_EQ(cond("NEVER_SET", l), Truth::no);    // an unset variable reads false
  EXPECT_EQ(cond("\"PATHVAR\"", l), Truth::no);  // CMP0054: a quoted non-constant is false
  EXPECT_EQ(cond("NOT OFF_VAR AND ON_VAR", l), Truth::yes);
  EXPECT_EQ(cond("OFF_VAR OR (ON_VAR AND NOT OFF_VAR)", l), Truth::yes);
  EXPECT_EQ(cond("NOT (ON_VAR OR OFF_VAR)", l), Truth::no);
  EXPECT_EQ(cond("DEFINED PATHVAR", l), Truth::yes);
  EXPECT_EQ(cond("DEFINED NEVER_SET", l), Truth::no);
  EXPECT_EQ(cond("${SYS} STREQUAL \"Linux\"", l), Truth::yes);
  EXPECT_EQ(cond("SYS STREQUAL Darwin", l), Truth::no);
  EXPECT_EQ(cond("PROC MATCHES \"(AMD64|x86_64)\"", l), Truth::yes);
  EXPECT_EQ(cond("PROC MATCHES \"^(aarch64|arm64)\"", l), Truth::no);
  EXPECT_EQ(cond("V VERSION_GREATER_EQUAL 12.3", l), Truth::yes);
  EXPECT_EQ(cond("V VERSION_LESS 9.3", l), Truth::no);
  EXPECT_EQ(cond("3 GREATER -1", l), Truth::yes);
  EXPECT_EQ(cond("b IN_LIST LIST", l), Truth::yes);
  // What kiln cannot know stays unknown, unless the other side decides.
  EXPECT_EQ(cond("MYSTERY", l), Truth::unknown);
  EXPECT_EQ(cond("MYSTERY AND OFF_VAR", l), Truth::no);
  EXPECT_EQ(cond("MYSTERY OR ON_VAR", l), Truth::yes);
  EXPECT_EQ(cond("NOT MYSTERY", l), Truth::unknown);
  EXPECT_EQ(cond("EXISTS /etc/passwd", l), Truth::unknown);
}

TEST(CmakeLang, DependsListNeedsEveryElement) {
  auto l =
      vars({{"USE_CUDA", "ON"}, {"USE_ROCM", "OFF"}, {"UNIX", "1"}, {"USE_DISTRIBUTED", "OFF"}, {"USE_NCCL", "ON"}});
  std::string failed;
  EXPECT_EQ(evaluate_depends("USE_CUDA OR USE_ROCM;UNIX;NOT APPLE", l, &failed).truth, Truth::yes);
  EXPECT_EQ(evaluate_depends("USE_DISTRIBUTED;USE_NCCL", l, &failed).truth, Truth::no);
  EXPECT_EQ(failed, "USE_DISTRIBUTED");
  auto u = evaluate_depends("USE_CUDA;CUDNN_FOUND", vars({{"USE_CUDA", "ON"}}, {"CUDNN_FOUND"}));
  EXPECT_EQ(u.truth, Truth::unknown);
  EXPECT_EQ(u.unknown, (std::vector<std::string>{"CUDNN_FOUND"}));
}
