#include <gtest/gtest.h>

#include "report/ninja_log.hpp"

using kiln::report::parse_ninja_log;

TEST(NinjaLog, KeepsTheLatestBuildAndTheLastRecordPerOutput) {
  // Two ninja runs: the second restarts its clock at 0 (the record ending at 50 < 900 starts it).
  const std::string log =
      "# ninja log v5\n"
      "0\t800\t1\ta.o\taaa\n"
      "10\t900\t1\tb.o\tbbb\n"
      "0\t50\t2\ta.o\taaa2\n"
      "50\t300\t2\tgen.h\tggg\n"
      "50\t300\t2\tgen.cpp\tggg\n"  // one edge, two outputs
      "300\t400\t2\tlib.so\tlll\n";
  auto r = parse_ninja_log(log);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->version, 5);
  EXPECT_EQ(r->builds, 2);
  ASSERT_EQ(r->jobs.size(), 3u);
  EXPECT_EQ(r->jobs[0].name(), "a.o");
  EXPECT_EQ(r->jobs[0].duration_ms(), 50);
  EXPECT_EQ(r->jobs[1].outputs, (std::vector<std::string>{"gen.h", "gen.cpp"}));
  EXPECT_EQ(r->jobs[2].name(), "lib.so");
}

TEST(NinjaLog, ReadsVersions6And7) {
  for (const char* v : {"6", "7"}) {
    auto r = parse_ninja_log(std::string("# ninja log v") + v + "\n5\t25\t1700000000000000000\tx.o\t0123abcd\n");
    ASSERT_TRUE(r) << r.error();
    EXPECT_EQ(r->version, std::stoi(v));
    ASSERT_EQ(r->jobs.size(), 1u);
    EXPECT_EQ(r->jobs[0].duration_ms(), 20);
  }
}

TEST(NinjaLog, RerunOfAnOutputInTheSameBuildKeepsTheLast) {
  auto r = parse_ninja_log("# ninja log v5\n0\t100\t1\tx.o\th1\n100\t250\t1\tx.o\th2\n");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->jobs.size(), 1u);
  EXPECT_EQ(r->jobs[0].start_ms, 100);
}

TEST(NinjaLog, RejectsWhatItCannotRead) {
  EXPECT_FALSE(parse_ninja_log(""));
  EXPECT_FALSE(parse_ninja_log("hello\n"));
  auto v4 = parse_ninja_log("# ninja log v4\n");
  ASSERT_FALSE(v4);
  EXPECT_NE(v4.error().find("v4"), std::string::npos);
  auto bad = parse_ninja_log("# ninja log v5\n0\t100\t1\tx.o\th\n12\tzz\t1\ty.o\th\n");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().find("line 3"), std::string::npos);
  EXPECT_FALSE(parse_ninja_log("# ninja log v5\n100\t50\t1\tx.o\th\n"));  // ends before it starts
  EXPECT_FALSE(parse_ninja_log("# ninja log v5\n0\t50\t1\tx.o\n"));       // a field short
}

TEST(NinjaLog, EmptyLogHasNoJobs) {
  auto r = parse_ninja_log("# ninja log v5\n");
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->jobs.empty());
  EXPECT_EQ(r->builds, 0);
}
