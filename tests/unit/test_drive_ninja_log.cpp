#include <gtest/gtest.h>

#include "drive/ninja_log.hpp"

using kiln::drive::parse_ninja_log;

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

// Written by ninja 1.11.1 and CMake 3.25 here: a build of 9 outputs, `cmake` re-run (it
// recompacts the log into hash order), then a rebuild after touching f3.cpp.
static const char* kRecompacted =
    "# ninja log v5\n"
    "6587\t7775\t1795393284360359599\tm\t8cbfa4fa9ba05fc8\n"
    "2671\t3795\t1795393280379633257\tCMakeFiles/m.dir/m.cpp.o\t1af9a0877fe7ccc3\n"
    "1735\t3035\t1795393279611805050\tCMakeFiles/l.dir/f6.cpp.o\taac73a02be50fddf\n"
    "3035\t6587\t1795393283060480860\tlibl.a\t998cf649ae1d1c8\n"
    "1162\t2671\t1795393279215681020\tCMakeFiles/l.dir/f4.cpp.o\t3e4f17d98a6ad725\n"
    "83\t1735\t1795393278312480860\tCMakeFiles/l.dir/f3.cpp.o\t7868060bc2774386\n"
    "1487\t2920\t1795393279451724492\tCMakeFiles/l.dir/f5.cpp.o\tc94d8a917c6a4413\n"
    "51\t1487\t1795393277976480860\tCMakeFiles/l.dir/f2.cpp.o\t59198b4e5bbf79cf\n"
    "1\t1161\t1795393277676480860\tCMakeFiles/l.dir/f1.cpp.o\t9c4b12883cf347fa\n";

TEST(NinjaLog, AfterCMakeRecompactsTheLatestBuildIsToldByMtime) {
  // The rebuild appended after the recompacted block; f1's record (end 1161 > 748) happens to end
  // the file-order split here, but an old record ending earlier would have joined the run.
  std::string log = std::string(kRecompacted) +
                    "0\t600\t1795393277600000000\tCMakeFiles/l.dir/f0.cpp.o\tdeadbeef\n"  // old, ends before 748
                    "2\t748\t1795393287987761853\tCMakeFiles/l.dir/f3.cpp.o\t7868060bc2774386\n"
                    "748\t4331\t1795393291472480860\tlibl.a\t998cf649ae1d1c8\n"
                    "4331\t5675\t1795393292901148376\tm\t8cbfa4fa9ba05fc8\n";
  auto r = parse_ninja_log(log);
  ASSERT_TRUE(r) << r.error();
  EXPECT_TRUE(r->from_mtime);
  ASSERT_EQ(r->jobs.size(), 3u);
  EXPECT_EQ(r->jobs[0].name(), "CMakeFiles/l.dir/f3.cpp.o");
  EXPECT_EQ(r->jobs[1].name(), "libl.a");
  EXPECT_EQ(r->jobs[2].name(), "m");
  EXPECT_EQ(r->jobs[2].end_ms, 5675);
}

TEST(NinjaLog, AfterANoOpBuildTheLatestWorkingBuildIsProfiled) {
  // Only the recompacted block: its tail (f1.cpp.o alone, in file order) is not a build. The
  // whole first build is.
  auto r = parse_ninja_log(kRecompacted);
  ASSERT_TRUE(r) << r.error();
  EXPECT_TRUE(r->from_mtime);
  ASSERT_EQ(r->jobs.size(), 9u);
  EXPECT_EQ(r->jobs.front().name(), "CMakeFiles/l.dir/f1.cpp.o");
  EXPECT_EQ(r->jobs.back().name(), "m");
}
