#include <gtest/gtest.h>

#include "report/exec_log.hpp"

using kiln::report::parse_exec_log;

// Lines written by hand to the schema agreed with kiln exec (docs/cli/report.md).
TEST(ExecLog, ReadsRecordsAndSkipsBrokenLines) {
  const std::string text =
      R"({"output": "CMakeFiles/k.dir/a.cu.o", "source": "/p/a.cu", "start_ms": 1763800000000, "wall_ms": 5200, "cpu_ms": 5900, "peak_rss_kib": 1048576, "exit": 0, "waited_ms": 300, "archs": 4})"
      "\n"
      R"({"output": "CMakeFiles/t.dir/main.cpp.o", "source": "/p/main.cpp", "start_ms": 1763800000100, "wall_ms": 120, "cpu_ms": 110, "peak_rss_kib": 90000, "exit": 0, "waited_ms": 0, "archs": 0})"
      "\n\n"
      "not json\n"
      R"({"source": "/p/x.cu", "start_ms": 1, "wall_ms": 2})"
      "\n"
      R"({"output": "y.o", "start_ms": 1, "wall_ms": "slow"})"
      "\n"
      R"({"output": "z.o", "start_ms": 1, "wall_ms": 5, "cpu_ms": -4})"
      "\n"
      R"({"output": "torn.o", "start_ms": 17638)";
  auto log = parse_exec_log(text);
  ASSERT_EQ(log.records.size(), 2u);
  const auto& a = log.records[0];
  EXPECT_EQ(a.output, "CMakeFiles/k.dir/a.cu.o");
  EXPECT_EQ(a.source, "/p/a.cu");
  EXPECT_EQ(a.start_ms, 1763800000000LL);
  EXPECT_EQ(a.wall_ms, 5200);
  EXPECT_EQ(a.cpu_ms, 5900);
  EXPECT_EQ(a.peak_rss_kib, 1048576);
  EXPECT_EQ(a.waited_ms, 300);
  EXPECT_EQ(a.archs, 4);
  EXPECT_EQ(log.records[1].archs, 0);
  ASSERT_EQ(log.problems.size(), 5u);
  EXPECT_EQ(log.problems[0].rfind("line 4:", 0), 0u);
  EXPECT_EQ(log.problems[4].rfind("line 8:", 0), 0u);
}

TEST(ExecLog, OptionalFieldsDefaultToZero) {
  auto log = parse_exec_log(R"({"output": "a.o", "start_ms": 10, "wall_ms": 20})");
  ASSERT_EQ(log.records.size(), 1u);
  EXPECT_EQ(log.records[0].cpu_ms, -1);  // unknown, not zero
  EXPECT_EQ(log.records[0].peak_rss_kib, -1);
  EXPECT_EQ(log.records[0].archs, 0);
  EXPECT_TRUE(log.problems.empty());
}

TEST(ExecLog, VersionProbesAreNotUnitsNorProblems) {
  // torch.utils.cpp_extension runs `c++ --version` through kiln's compiler link: no output, no source.
  auto log = parse_exec_log(
      R"({"output":"","source":"","start_ms":1795394597152,"wall_ms":8,"cpu_ms":5,"peak_rss_kib":4916,"exit":0})"
      "\n"
      R"({"output":"/b/t/x.o","source":"/p/x.cu","start_ms":1,"wall_ms":2,"split":15,"threads":0,"cores":15,"grant":"15 cores free of 16"})");
  EXPECT_TRUE(log.problems.empty());
  ASSERT_EQ(log.records.size(), 1u);
  EXPECT_EQ(log.records[0].split, 15);
  EXPECT_EQ(log.records[0].cores, 15);
  EXPECT_EQ(log.records[0].grant, "15 cores free of 16");
}
