#include <gtest/gtest.h>

#include <set>

#include "report/bench.hpp"

using namespace kiln::report;

TEST(BenchMatrix, ParsesAxesAndExpandsEveryCombination) {
  auto axes =
      parse_matrix({"archs=80-real,80-real+90-real+100-real+120-real", "cache=cold,WARM", "generator=make,Ninja"});
  ASSERT_TRUE(axes) << axes.error();
  auto configs = expand(*axes);
  ASSERT_EQ(configs.size(), 8u);
  EXPECT_EQ(configs[0].archs, "80-real");
  EXPECT_EQ(configs[0].cache, BenchCache::cold);
  EXPECT_EQ(configs[0].generator, "Make");
  EXPECT_EQ(configs[0].cmake_generator(), "Unix Makefiles");
  EXPECT_EQ(configs[1].generator, "Ninja");
  EXPECT_EQ(configs[3].cache, BenchCache::warm);
  EXPECT_EQ(configs[7].arch_spec(), "80-real;90-real;100-real;120-real");
  // Folder names are unique per configuration.
  std::set<std::string> ids;
  for (const auto& c : configs) ids.insert(c.id());
  EXPECT_EQ(ids.size(), 8u);
}

TEST(BenchMatrix, NoMatrixIsOneConfiguration) {
  auto configs = expand({});
  ASSERT_EQ(configs.size(), 1u);
  EXPECT_EQ(configs[0].label(), "archs=plan cache=cold");
}

TEST(BenchMatrix, PlusPtxStaysATorchSuffix) {
  BenchConfig c;
  c.archs = "8.0+9.0+PTX";
  EXPECT_EQ(c.arch_spec(), "8.0;9.0+PTX");
}

TEST(BenchMatrix, RejectsBadAxes) {
  for (const char* bad : {"archs", "=1", "color=red", "cache=hot", "jobs=0", "jobs=4x", "generator=xcode",
                          "archs=80;90", "archs=80,,90"}) {
    auto r = parse_matrix({bad});
    EXPECT_FALSE(r) << bad;
  }
  auto twice = parse_matrix({"jobs=1", "jobs=2"});
  ASSERT_FALSE(twice);
  EXPECT_NE(twice.error().find("twice"), std::string::npos);
}

TEST(BenchSummary, MediansPeaksAndCost) {
  BenchConfig c;
  std::vector<RunResult> runs(3);
  double totals[] = {30, 10, 20};
  for (int i = 0; i < 3; ++i) {
    runs[i].ok = true;
    runs[i].configure_s = 2;
    runs[i].build_s = totals[i] - 2;
    runs[i].peak_rss_kib = 1000 * (i + 1);
    runs[i].cache = kiln::launch::CacheStats{i, 0, 3 - i, 0};
    runs[i].libraries = {{"libk.so", 4096u * (i + 1)}};
  }
  RunResult failed;
  failed.error = "build failed";
  runs.push_back(failed);
  auto s = summarize(c, runs, 3.6);
  EXPECT_EQ(s.ok_runs, 3);
  EXPECT_DOUBLE_EQ(s.median_total_s, 20);
  EXPECT_DOUBLE_EQ(s.median_build_s, 18);
  EXPECT_EQ(s.peak_rss_kib, 3000);
  ASSERT_TRUE(s.median_hit_rate);
  EXPECT_DOUBLE_EQ(*s.median_hit_rate, 1.0 / 3.0);
  ASSERT_TRUE(s.cost_usd);
  EXPECT_DOUBLE_EQ(*s.cost_usd, 20.0 / 3600 * 3.6);
  EXPECT_EQ(s.libraries.at("libk.so"), 12288u);
  EXPECT_DOUBLE_EQ(median({1, 2, 3, 4}), 2.5);
  auto table = bench_table({s}, false);
  EXPECT_NE(table.find("$0.0200"), std::string::npos) << table;
  EXPECT_NE(table.find("libk.so 12 KiB"), std::string::npos) << table;
  auto md = bench_table({s}, true);
  EXPECT_EQ(md.rfind("| configuration |", 0), 0u) << md;
  auto j = bench_json({s});
  EXPECT_EQ(j[0]["runs"].size(), 4u);
  EXPECT_EQ(j[0]["runs"][3]["ok"], false);
}

TEST(BenchSummary, AllRunsFailed) {
  BenchConfig c;
  RunResult r;
  r.error = "configure failed, see x";
  auto s = summarize(c, {r}, std::nullopt);
  EXPECT_EQ(s.ok_runs, 0);
  EXPECT_FALSE(s.cost_usd);
  EXPECT_NE(bench_table({s}, false).find("failed (configure failed"), std::string::npos);
}

TEST(Bench, TheProjectsDefaultBuildIsOneConfiguration) {
  auto axes = parse_matrix({"build=default,kiln", "cache=cold,warm", "archs=90-real,80-real+90-real"});
  ASSERT_TRUE(axes) << axes.error();
  auto configs = expand(*axes);
  // One default (the other keys do not apply to it), then the four kiln combinations.
  ASSERT_EQ(configs.size(), 5u);
  EXPECT_TRUE(configs[0].is_default());
  EXPECT_EQ(configs[0].label(), "project default");
  EXPECT_EQ(configs[0].id(), "project-default");
  for (size_t i = 1; i < configs.size(); ++i) EXPECT_FALSE(configs[i].is_default());
  EXPECT_FALSE(parse_matrix({"build=pip"}));
  EXPECT_NE(parse_matrix({"build=pip"}).error().find("kiln or default"), std::string::npos);
}

TEST(Bench, RowsCompareWithTheDefaultBuild) {
  RunResult slow;
  slow.ok = true;
  slow.build_s = 600;
  RunResult fast = slow;
  fast.build_s = 150;
  RunResult broken;
  std::vector<ConfigSummary> rows = {summarize(BenchConfig{.build = "default"}, {slow}, std::nullopt),
                                     summarize(BenchConfig{.cache = BenchCache::cold}, {fast}, std::nullopt),
                                     summarize(BenchConfig{.cache = BenchCache::warm}, {broken}, std::nullopt)};
  compare_with_default(rows);
  EXPECT_DOUBLE_EQ(rows[0].vs_default.value(), 1.0);
  EXPECT_DOUBLE_EQ(rows[1].vs_default.value(), 4.0);
  EXPECT_FALSE(rows[2].vs_default);
  auto table = bench_table(rows, true);
  EXPECT_NE(table.find("vs default"), std::string::npos) << table;
  EXPECT_NE(table.find("4.00x faster"), std::string::npos) << table;
  EXPECT_NE(table.find("baseline"), std::string::npos) << table;
  EXPECT_EQ(bench_json(rows)[1]["speedup_vs_default"], 4.0);
  EXPECT_EQ(bench_json(rows)[0]["config"]["build"], "default");
  // No default row: no comparison column.
  std::vector<ConfigSummary> kiln_only = {rows[1]};
  kiln_only[0].vs_default.reset();
  compare_with_default(kiln_only);
  EXPECT_EQ(bench_table(kiln_only, false).find("vs default"), std::string::npos);
}

// Each cache state has one spelling, and reading it back gives the same state.
TEST(Bench, EveryCacheStateRoundTripsThroughItsName) {
  for (auto c : kBenchCaches) {
    EXPECT_FALSE(to_string(c).empty());
    EXPECT_EQ(bench_cache_from(to_string(c)), c) << to_string(c);
  }
  EXPECT_EQ(bench_cache_from("hot"), std::nullopt);
}
