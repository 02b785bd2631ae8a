// Records kept per build (issue 33): a rebuild keeps the previous builds' log and ccache record,
// a no-op's empty ccache record pushes none out, at most kKeptBuilds are kept, and kiln report
// still names the cache figures after a no-op rebuild.
#include <gtest/gtest.h>

#include "drive/build_records.hpp"
#include "io/seams.hpp"
#include "report/load.hpp"
#include "test_support.hpp"

using namespace kiln;

namespace {

const std::string kLog = "/b/kiln-build.log", kCcache = "/b/kiln-ccache-stats.log";

// What drive's prepare_build_dir and the build then do to the two records.
void build(io::FakeFilesystem& fs, const std::string& log, const std::string& ccache) {
  drive::keep_previous_record(fs, kLog, false);
  drive::keep_previous_record(fs, kCcache, true);
  fs.write(kLog, log);
  fs.write(kCcache, ccache);
}

}  // namespace

TEST(BuildRecords, KeptNamesCarryTheBuildNumberBeforeTheExtension) {
  EXPECT_EQ(drive::kept_record_path(kLog, 0), kLog);
  EXPECT_EQ(drive::kept_record_path(kLog, 2), "/b/kiln-build.2.log");
  EXPECT_EQ(drive::kept_record_path("/b.d/record", 1), "/b.d/record.1");
}

TEST(BuildRecords, ARebuildKeepsThePreviousAndANoOpPushesNoFiguresOut) {
  kiln::testing::FakeSeams w;
  build(w.fs, "compiled a.o\n", "# a.cu\ncache_miss\n");
  build(w.fs, "ninja: no work to do.\n", "");
  EXPECT_EQ(w.fs.read(kLog), "ninja: no work to do.\n");
  EXPECT_EQ(w.fs.read("/b/kiln-build.1.log"), "compiled a.o\n");
  EXPECT_EQ(w.fs.read(kCcache), "");
  EXPECT_EQ(w.fs.read("/b/kiln-ccache-stats.1.log"), "# a.cu\ncache_miss\n");
  build(w.fs, "ninja: no work to do.\n", "");  // a second no-op: the figures stay at .1
  EXPECT_EQ(w.fs.read("/b/kiln-ccache-stats.1.log"), "# a.cu\ncache_miss\n");
  EXPECT_FALSE(w.fs.exists("/b/kiln-ccache-stats.2.log"));
  EXPECT_EQ(w.fs.read("/b/kiln-build.2.log"), "compiled a.o\n");
}

TEST(BuildRecords, AtMostKeptBuildsAreKept) {
  kiln::testing::FakeSeams w;
  for (int i = 0; i < drive::kKeptBuilds + 3; ++i)
    build(w.fs, "build " + std::to_string(i) + "\n", "# x\ncache_miss\n");
  const int last = drive::kKeptBuilds + 2;
  EXPECT_EQ(w.fs.read(kLog), "build " + std::to_string(last) + "\n");
  for (int n = 1; n <= drive::kKeptBuilds; ++n)
    EXPECT_EQ(w.fs.read(drive::kept_record_path(kLog, n)), "build " + std::to_string(last - n) + "\n");
  EXPECT_FALSE(w.fs.exists(drive::kept_record_path(kLog, drive::kKeptBuilds + 1)));
  EXPECT_EQ(w.fs.list("/b").size(), 2u * (drive::kKeptBuilds + 1));
}

TEST(BuildRecords, ReportNamesTheCacheFiguresAfterANoOpRebuild) {
  kiln::testing::FakeSeams w;
  w.fs.add_file("/b/.ninja_log", "# ninja log v5\n0\t100\t1\t/b/a.o\t01\n");
  build(w.fs, "", "# a.cu\ndirect_cache_hit\n# b.cu\ncache_miss\n");
  auto in = report::load_build("/b", w.seams, 2);
  ASSERT_TRUE(in) << in.error();
  ASSERT_TRUE(in->cache);
  EXPECT_EQ(in->cache_builds_ago, 0);
  build(w.fs, "", "");  // the no-op rebuild
  in = report::load_build("/b", w.seams, 2);
  ASSERT_TRUE(in) << in.error();
  ASSERT_TRUE(in->cache) << "a no-op rebuild erased the cache figures";
  EXPECT_EQ(in->cache->hits, 1);
  EXPECT_EQ(in->cache->misses, 1);
  EXPECT_EQ(in->cache_builds_ago, 1);
  EXPECT_EQ(in->cache_record, "/b/kiln-ccache-stats.1.log");
  // A build without ccache (no record at all) has unknown figures, not an older build's.
  drive::keep_previous_record(w.fs, kCcache, true);
  w.fs.remove(kCcache);
  EXPECT_FALSE(report::load_build("/b", w.seams, 2)->cache);
}
