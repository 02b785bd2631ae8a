#include <gtest/gtest.h>

#include <sstream>

#include "fakes/process.hpp"
#include "fakes/environment.hpp"
#include "launch/ccache_admin.hpp"
#include "test_support.hpp"

using namespace kiln;

// Recorded from ccache 4.7.5 (--print-stats, shortened) and --show-config.
TEST(CcacheAdmin, ParsesPrintStats) {
  auto c = launch::parse_print_stats(
      "cache_miss\t593\ncache_size_kibibyte\t50204\ndirect_cache_hit\t216\nfiles_in_cache\t1089\n"
      "preprocessed_cache_hit\t54\nremote_storage_hit\t7\nstats_updated_timestamp\t1795378682\n");
  ASSERT_TRUE(c) << c.error();
  launch::CcacheStatus st;
  st.counters = *c;
  EXPECT_EQ(st.hits(), 270);
  EXPECT_EQ(st.misses(), 593);
  EXPECT_EQ(st.remote_hits(), 7);
  EXPECT_EQ(st.local_hits(), 263);  // issue 21: ccache counts remote hits as direct ones too
  EXPECT_DOUBLE_EQ(st.hit_rate(), 270.0 / 863.0);
  auto bad = launch::parse_print_stats("Summary:\n  Hits: 3\n");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().find("line 1"), std::string::npos);
  EXPECT_FALSE(launch::parse_print_stats(""));
}

TEST(CcacheAdmin, ParsesShowConfigWithOrigins) {
  auto conf = launch::parse_show_config(
      "(default) base_dir = \n(environment) cache_dir = /tmp/cc\n(/tmp/cc/ccache.conf) max_size = 2.0G\n"
      "(/tmp/cc/ccache.conf) remote_storage = redis://127.0.0.1:6399\n");
  EXPECT_EQ(conf.at("cache_dir").value, "/tmp/cc");
  EXPECT_EQ(conf.at("cache_dir").origin, "environment");
  EXPECT_EQ(conf.at("max_size").origin, "/tmp/cc/ccache.conf");
  EXPECT_EQ(conf.at("remote_storage").value, "redis://127.0.0.1:6399");
  EXPECT_EQ(conf.at("base_dir").value, "");
}

TEST(CcacheAdmin, ChecksRemoteUrlsAndSizes) {
  for (const char* ok : {"redis://127.0.0.1:6379", "redis://cache.internal", "redis://:secret@10.0.0.5:6380/2",
                         "http://cache.example:8080/ccache", "https://cache.example/x|layout=bazel",
                         "redis+unix:/run/redis.sock", "file:/mnt/shared/ccache", "none"})
    EXPECT_TRUE(launch::check_remote_url(ok)) << ok;
  for (const char* bad : {"", "127.0.0.1:6379", "ftp://x", "redis://", "redis://host:port", "http://"})
    EXPECT_FALSE(launch::check_remote_url(bad)) << bad;
  for (const char* ok : {"0", "20G", "500M", "1.5Gi", "100k"}) EXPECT_TRUE(launch::check_max_size(ok)) << ok;
  for (const char* bad : {"", "G", "lots", "-1G", "20GB"}) EXPECT_FALSE(launch::check_max_size(bad)) << bad;
  // ccache reads K, M, G and T as powers of 1000: the message says so.
  EXPECT_NE(launch::check_max_size("lots").error().find("powers of 1000"), std::string::npos);
}

TEST(CcacheAdmin, RunsCcacheWithTheCacheFolderAndReportsFailures) {
  kiln::testing::FakeSeams t;
  auto [fs, proc, clock, env, s] = std::tie(t.fs, t.proc, t.clock, t.env, t.seams);
  fs.add_file("/usr/bin/ccache", "", true);
  env.set("PATH", "/usr/bin");
  io::ProcessResult refused = io::ran("", 1);
  refused.err = "ccache: error: unknown configuration option \"remote_only\"\n";
  proc.on("/usr/bin/ccache --set-config remote_only=true", refused);
  proc.on("/usr/bin/ccache --set-config remote_storage=redis://h:1", io::ran(""));
  auto cc = launch::Ccache::find(s, "/tmp/cacheA");
  ASSERT_TRUE(cc) << cc.error();
  EXPECT_TRUE(cc->set("remote_storage", "redis://h:1"));
  ASSERT_EQ(proc.calls().size(), 1u);
  EXPECT_EQ(proc.calls()[0].env->at("CCACHE_DIR"), "/tmp/cacheA");
  auto r = cc->set("remote_only", "true");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("unknown configuration option"), std::string::npos);

  io::FakeEnvironment no_path{{{"PATH", "/nowhere"}}};
  io::Seams bare{fs, proc, clock, no_path, t.out, t.err};  // the same seams, ccache not on PATH
  auto missing = launch::Ccache::find(bare, "");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().find("apt-get install ccache"), std::string::npos);
}
