#include <gtest/gtest.h>

#include "launch/ccache_stats.hpp"

using kiln::launch::parse_ccache_stats_log;

// Recorded from ccache 4.7.5 with CCACHE_STATSLOG: a miss, a hit, a recache and a link.
TEST(CcacheStats, ClassifiesEachRecordOnce) {
  const std::string log =
      "# a.c\ncache_miss\ndirect_cache_miss\nlocal_storage_miss\nlocal_storage_read_miss\n"
      "local_storage_read_miss\nlocal_storage_write\nlocal_storage_write\npreprocessed_cache_miss\n"
      "# a.c\ndirect_cache_hit\nlocal_storage_hit\nlocal_storage_read_hit\nlocal_storage_read_hit\n"
      "# a.c\nlocal_storage_read_hit\nlocal_storage_write\nrecache\n"
      "# a.c\ncalled_for_link\n"
      "# b.cu\npreprocessed_cache_hit\nremote_storage_hit\nremote_storage_read_hit\n";
  auto s = parse_ccache_stats_log(log);
  EXPECT_EQ(s.hits, 2);
  EXPECT_EQ(s.remote_hits, 1);
  EXPECT_EQ(s.local_hits(), 1);  // issue 21: a remote hit is not a local one
  EXPECT_EQ(s.misses, 1);
  EXPECT_EQ(s.uncacheable, 2);
  EXPECT_DOUBLE_EQ(s.hit_rate(), 2.0 / 3.0);
}

TEST(CcacheStats, EmptyLog) {
  auto s = parse_ccache_stats_log("");
  EXPECT_EQ(s.hits + s.misses + s.uncacheable, 0);
  EXPECT_EQ(s.hit_rate(), 0.0);
}
