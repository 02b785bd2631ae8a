#include <gtest/gtest.h>

#include "launch/exec_record.hpp"

using namespace kiln;
using launch::parse_exec_log;

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

TEST(ExecRecord, RecordIsOneJsonLine) {
  launch::ExecRecord r;
  r.output = "a.o";
  r.peak_rss_kib = 42;
  auto line = launch::record_json_line(r);
  EXPECT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1);
  EXPECT_NE(line.find("\"peak_rss_kib\":42"), std::string::npos);
}

TEST(ExecRecord, RecordCarriesTheGrantAndPhases) {
  launch::ExecRecord r;
  r.output = "a.o";
  r.split = 14;
  r.cores = 14;
  r.grant = "15 cores free of 16";
  r.phases.rows = 3;
  r.phases.archs[90] = {1000.4, 200};
  auto line = launch::record_json_line(r);
  EXPECT_NE(line.find("\"split\":14"), std::string::npos) << line;
  EXPECT_NE(line.find("\"90\":{\"device_ms\":1000,\"ptxas_ms\":200}"), std::string::npos) << line;
}

// What the launcher writes, the report reads back field for field: one type, one place for its JSON.
TEST(ExecRecord, WhatTheLauncherWritesTheReportReadsBack) {
  launch::ExecRecord r;
  r.output = "obj/k.cu.o";
  r.source = "/src/k\xff.cu";  // not UTF-8: written escaped, never a throw
  r.start_ms = 1795378682000;
  r.wall_ms = 61000;
  r.cpu_ms = 240000;
  r.peak_rss_kib = 3145728;
  r.exit = 0;
  r.waited_ms = 1200;
  r.archs = 2;
  r.expected_kib = 2097152;
  r.pruned = true;
  r.split = 4;
  r.threads = 2;
  r.cores = 8;
  r.grant = "8 cores free of 16";
  r.warning = "ledger busy";
  r.phases.rows = 1;  // as parsed from one nvcc --time file
  r.phases.archs[90] = {30000, 5000};
  r.phases.front_end_ms = 2000;
  r.phases.host_ms = 4000;
  auto log = launch::parse_exec_log(launch::record_json_line(r));
  ASSERT_TRUE(log.problems.empty()) << log.problems[0];
  ASSERT_EQ(log.records.size(), 1u);
  const auto& b = log.records[0];
  EXPECT_EQ(b.output, r.output);
  EXPECT_EQ(b.source, "/src/k\\xff.cu");
  EXPECT_EQ(b.start_ms, r.start_ms);
  EXPECT_EQ(b.wall_ms, r.wall_ms);
  EXPECT_EQ(b.cpu_ms, r.cpu_ms);
  EXPECT_EQ(b.peak_rss_kib, r.peak_rss_kib);
  EXPECT_EQ(b.waited_ms, r.waited_ms);
  EXPECT_EQ(b.archs, r.archs);
  EXPECT_EQ(b.expected_kib, r.expected_kib);
  EXPECT_TRUE(b.pruned);
  EXPECT_EQ(b.split, 4);
  EXPECT_EQ(b.threads, 2);
  EXPECT_EQ(b.cores, 8);
  EXPECT_EQ(b.grant, r.grant);
  EXPECT_EQ(b.warning, r.warning);
  ASSERT_EQ(b.phases.archs.count(90), 1u);
  EXPECT_DOUBLE_EQ(b.phases.archs.at(90).device_ms, 30000);
  EXPECT_DOUBLE_EQ(b.phases.host_ms, 4000);
}

// fuzz_text's finding (issue 23): a record without peak_rss_kib ("not recorded", -1) was written
// back with "peak_rss_kib": -1, which the reader refuses, so the record did not read back.
TEST(ExecRecord, ARecordWithoutCpuOrRssReadsBackAsTheSameRecord) {
  auto log = parse_exec_log(
      R"({"output": "CMakeFiles/k.dir/a.cu.o", "source": "/p/a.cu", "start_ms": 1000, "wall_ms": 12000, "peakwall_mib": 900000, "exit": 0})");
  ASSERT_EQ(log.records.size(), 1u);
  ASSERT_EQ(log.records[0].peak_rss_kib, -1);
  ASSERT_EQ(log.records[0].cpu_ms, -1);
  const auto line = launch::record_json_line(log.records[0]);
  EXPECT_EQ(line.find("peak_rss_kib"), std::string::npos) << line;
  EXPECT_EQ(line.find("cpu_ms"), std::string::npos) << line;
  auto again = parse_exec_log(line);
  ASSERT_TRUE(again.problems.empty()) << again.problems[0];
  ASSERT_EQ(again.records.size(), 1u);
  EXPECT_EQ(again.records[0].peak_rss_kib, -1);
  EXPECT_EQ(again.records[0].cpu_ms, -1);
  EXPECT_EQ(launch::record_json_line(again.records[0]), line);
}

// A number too big for its field is a bad line, not a wrapped value: "exit": 4294967295 became -1,
// which was then written back and refused. Huge phase times are dropped, not rounded to LONG_MIN.
TEST(ExecLog, ANumberTooBigForItsFieldIsAProblem) {
  auto log =
      parse_exec_log(R"({"output": "a.o", "start_ms": 1, "wall_ms": 2, "exit": 4294967295})"
                     "\n"
                     R"({"output": "b.o", "start_ms": 1, "wall_ms": 2, "archs": 2147483648})"
                     "\n"
                     R"({"output": "c.o", "start_ms": 18446744073709551615, "wall_ms": 2})"
                     "\n"
                     R"({"output": "d.o", "start_ms": 1, "wall_ms": 2, "exit": 2147483647, "archs": 3.0})"
                     "\n"
                     R"({"output": "e.o", "start_ms": 1, "wall_ms": 2, "phases": {"host_ms": 1e300, "link_ms": 7}})");
  ASSERT_EQ(log.problems.size(), 3u);
  EXPECT_EQ(log.problems[2].rfind("line 3:", 0), 0u);
  ASSERT_EQ(log.records.size(), 2u);
  EXPECT_EQ(log.records[0].exit, 2147483647);
  EXPECT_EQ(log.records[0].archs, 3);
  EXPECT_DOUBLE_EQ(log.records[1].phases.host_ms, 0);
  EXPECT_DOUBLE_EQ(log.records[1].phases.link_ms, 7);
  const auto line = launch::record_json_line(log.records[1]);
  EXPECT_EQ(launch::record_json_line(parse_exec_log(line).records.at(0)), line);
}
