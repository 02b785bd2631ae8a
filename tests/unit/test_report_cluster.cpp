#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "report/cluster.hpp"
#include "test_support.hpp"

using namespace kiln;

namespace {

report::Unit unit(std::string name, std::string_view kind, long start, long end, long kib = 1024 * 1024,
                  std::string node = "") {
  report::Unit u;
  u.name = std::move(name);
  u.outputs = {u.name};
  u.kind = *report::unit_kind_from(kind);  // the spelling the report prints
  u.start_ms = start;
  u.end_ms = end;
  u.peak_rss_kib = kib;
  u.node = std::move(node);
  return u;
}

// Eight 10 s compiles and one 5 s link that needs them all.
report::Profile eight_and_a_link() {
  report::Profile p;
  for (int i = 0; i < 8; ++i) p.units.push_back(unit("u" + std::to_string(i) + ".o", "c++", 0, 10000));
  p.units.push_back(unit("lib.so", "link", 10000, 15000));
  p.makespan_ms = 15000;
  return p;
}

std::vector<std::vector<size_t>> link_needs_all() {
  std::vector<std::vector<size_t>> deps(9);
  for (size_t i = 0; i < 8; ++i) deps[8].push_back(i);
  return deps;
}

// A build recorded on the GPU host (tests/fixtures/simulate/*.tsv): its compiles as the profile,
// its setuptools link and serial time as what it did outside Ninja, and the walls measured.
struct Recorded {
  report::Profile profile;
  report::OutsideNinja outside;
  std::map<std::string, double> measured_s;
};

Recorded recorded(const std::string& name) {
  std::ifstream in(kiln::testing::source_dir() + "/tests/fixtures/simulate/" + name);
  Recorded r;
  std::vector<std::string> compiles;
  std::string line, tag;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    if (!(f >> tag) || tag[0] == '#') continue;
    if (tag == "serial_ms") f >> r.outside.serial_ms;
    if (tag == "measured_s") {
      std::string what;
      double s = 0;
      f >> what >> s;
      r.measured_s[what] = s;
    }
    if (tag != "unit") continue;
    long start = 0, wall = 0, cpu = 0, waited = 0, kib = 0;
    int cores = 1;
    std::string kind, out;
    f >> start >> wall >> cpu >> cores >> waited >> kib >> kind >> out;
    auto u = unit(out, kind, start, start + wall, kib);
    u.cpu_ms = cpu, u.cores = cores, u.waited_ms = waited;
    if (kind == "link") {
      r.outside.links.push_back(u);
      r.outside.needs.push_back(compiles);
    } else {
      compiles.push_back(out);
      r.profile.units.push_back(u);
    }
  }
  return r;
}

double off_by(long projected_ms, double measured_s) { return projected_ms / 1000.0 / measured_s - 1; }

}  // namespace

TEST(ReportCluster, ShapeSpelling) {
  auto s = report::parse_shape("16x32x256G");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->nodes, 16);
  EXPECT_EQ(s->cores, 32);
  EXPECT_EQ(s->mem_kib, 256ULL << 20);  // G is 1024^3 bytes, as Slurm counts memory
  EXPECT_EQ(s->text(), "16x32x256G");
  EXPECT_EQ(report::parse_shape("2x4x64")->mem_kib, 64ULL << 20);  // a bare number is G
  EXPECT_EQ(report::parse_shape("2x4x512M")->mem_kib, 512ULL << 10);
  for (const char* bad : {"", "16x32", "0x4x1G", "4x0x1G", "4xx1G", "ax4x1G", "4x4x", "4x4xlots", "4.5x4x1G"})
    EXPECT_FALSE(report::parse_shape(bad)) << bad;
}

TEST(ReportCluster, ProjectionBoundByCpusThenByCriticalPath) {
  const auto p = eight_and_a_link();
  const auto deps = link_needs_all();
  auto one = report::simulate(p, deps, *report::parse_shape("1x2x64G"), 0);
  EXPECT_EQ(one.makespan_ms, 45000);  // 4 rounds of 2 compiles, then the link
  EXPECT_EQ(one.limit, "CPUs");
  EXPECT_EQ(one.remote_units, 8);
  EXPECT_EQ(one.head_units, 1);
  auto wide = report::simulate(p, deps, *report::parse_shape("4x4x64G"), 0);
  EXPECT_EQ(wide.makespan_ms, 15000);  // every compile at once: the critical path
  EXPECT_EQ(wide.critical_path_ms, 15000);
  EXPECT_EQ(wide.limit, "critical path");
  EXPECT_EQ(wide.critical_links_ms, 5000);  // the link ends the critical path
  // The step overhead lengthens every compile, not the link.
  EXPECT_EQ(report::simulate(p, deps, *report::parse_shape("4x4x64G"), 500).makespan_ms, 15500);
}

TEST(ReportCluster, MemoryLimitsWhatANodeRunsAtOnce) {
  auto p = eight_and_a_link();
  for (int i = 0; i < 8; ++i) p.units[i].peak_rss_kib = 3 * 1024 * 1024;
  // 8 cores but 4 GiB: one 3 GiB compile at a time on each of 2 nodes.
  auto r = report::simulate(p, link_needs_all(), *report::parse_shape("2x8x4G"), 0);
  EXPECT_EQ(r.makespan_ms, 45000);
}

TEST(ReportCluster, HeadNodeBoundWhenLinksDominate) {
  report::Profile p;
  for (int i = 0; i < 6; ++i) p.units.push_back(unit("l" + std::to_string(i) + ".so", "link", 0, 10000));
  p.units.push_back(unit("a.o", "c++", 0, 1000));
  auto r = report::simulate(p, std::vector<std::vector<size_t>>(7), *report::parse_shape("8x2x64G"), 0);
  EXPECT_EQ(r.limit, "head node (links and other steps)");
  EXPECT_EQ(r.makespan_ms, 30000);  // 6 links, 2 at a time, all on the head node
}

TEST(ReportCluster, DependenciesThroughPhonyEdges) {
  report::Profile p;
  p.units = {unit("a.o", "c++", 0, 1), unit("lib.so", "link", 1, 2)};
  report::BuildGraph g;
  g.edges = {{"cxx", {"a.cpp"}, {"a.o"}}, {"phony", {"a.o"}, {"objs"}}, {"link", {"objs"}, {"lib.so"}}};
  g.producer = {{"a.o", 0}, {"objs", 1}, {"lib.so", 2}};
  auto deps = report::unit_dependencies(p, g);
  EXPECT_TRUE(deps[0].empty());
  EXPECT_EQ(deps[1], (std::vector<size_t>{0}));
}

TEST(ReportCluster, OneLanePerNodeAndHowBusy) {
  report::Profile p;
  p.cores = 4;
  p.units = {unit("a.o", "c++", 0, 10000, 1, "n1"), unit("b.o", "c++", 0, 10000, 1, "n2"),
             unit("c.o", "c++", 0, 10000, 1, "n2"), unit("lib.so", "link", 10000, 20000)};
  p.units[2].waited_ms = 5000;  // queued in Slurm for half of it
  p.makespan_ms = 20000;
  auto use = report::cluster_use(p, 4);
  ASSERT_EQ(use.lanes.size(), 2u);
  EXPECT_EQ(use.lanes[1].node, "n2");
  EXPECT_EQ(use.lanes[1].units, 2);
  EXPECT_EQ(use.lanes[1].busy_ms, 15000);
  EXPECT_DOUBLE_EQ(use.busy, 25000.0 / (20000.0 * 4));
  EXPECT_NE(report::render_cluster_text(use, {}).find("n2"), std::string::npos);
  EXPECT_TRUE(report::cluster_use(eight_and_a_link()).lanes.empty());  // a local build has no nodes
}

// Issue 35: --simulate replayed wall times measured beside other compiles on shared cores (one
// 2-core node running four at once: 2m04s projected against 63 s real). A unit's CPU time over its
// cores is what it takes where it has them.
TEST(ReportCluster, ProjectionReplaysCpuTimeNotWallStretchedByContention) {
  auto p = eight_and_a_link();
  for (int i = 0; i < 8; ++i) {
    p.units[i].end_ms = 20000;  // four at once on two cores: each twice its CPU time
    p.units[i].cpu_ms = 10000;
  }
  p.units[8].start_ms = 20000, p.units[8].end_ms = 25000;  // the link: no CPU time recorded, its wall
  auto one = report::simulate(p, link_needs_all(), *report::parse_shape("1x2x64G"), 0);
  EXPECT_EQ(one.makespan_ms, 45000);   // 4 rounds of 2 compiles of 10 s, then the 5 s link
  EXPECT_EQ(one.cpu_bound_ms, 42500);  // (8 x 10 s + 5 s) over 2 cores
  // A split compile: its CPU time over its granted cores; never longer than it ran.
  report::Unit u = p.units[0];
  u.cores = 4, u.cpu_ms = 24000;
  EXPECT_EQ(report::run_time(u), 6000);
  u.cpu_ms = 200000;
  EXPECT_EQ(report::run_time(u), 20000);
  u.cpu_ms = -1, u.waited_ms = 5000;
  EXPECT_EQ(report::run_time(u), 15000);
}

// A unit lost on n2 and finished on n1: n1's lane has the finishing attempt's run time only, not
// the lost attempt's nor the time Slurm took to place it again.
TEST(ReportCluster, ALaneIsNotChargedWithAttemptsLostElsewhere) {
  report::Profile p;
  p.cores = 4;
  p.units = {unit("a.o", "c++", 0, 10000, 1, "n1")};
  p.units[0].waited_ms = 1000;  // queued in Slurm
  p.units[0].run_ms = 4000;     // its last attempt on n1; 5 s went to the attempt lost on n2
  p.makespan_ms = 10000;
  auto use = report::cluster_use(p, 10);
  ASSERT_EQ(use.lanes.size(), 1u);
  EXPECT_EQ(use.lanes[0].busy_ms, 4000);
  EXPECT_EQ(use.lanes[0].activity, (std::vector<int>{0, 0, 0, 0, 0, 0, 1, 1, 1, 1}));
  // The simulation replays the same 4 s (plus the step's start).
  EXPECT_EQ(report::simulate(p, {{}}, *report::parse_shape("1x4x64G"), 150).makespan_ms, 4150);
}

// Issue 35: a split compile granted 4 cores on the 16-core host (flash-attention: 4m47s of CPU
// over 4 cores) projected onto 2-core nodes gets 2 of them: its CPU time over those 2, not the
// recorded run of 4 cores at once.
TEST(ReportCluster, ASplitCompileOnSmallerNodesTakesItsCpuTimeOverTheirCores) {
  report::Profile p;
  p.units = {unit("a.o", "cuda", 0, 6000)};
  p.units[0].cores = 4, p.units[0].cpu_ms = 24000;
  EXPECT_EQ(report::simulate(p, {{}}, *report::parse_shape("1x2x64G"), 0).makespan_ms, 12000);
  EXPECT_EQ(report::simulate(p, {{}}, *report::parse_shape("1x8x64G"), 0).makespan_ms, 6000);
  EXPECT_EQ(report::run_time(p.units[0], 1), 24000);
  // Without its CPU time: the recorded run of 4 cores' work, over the 2 it gets.
  p.units[0].cpu_ms = -1;
  EXPECT_EQ(report::simulate(p, {{}}, *report::parse_shape("1x2x64G"), 0).makespan_ms, 12000);
}

// Issue 35: flash-attention cut to its head-dim-64 units, built cold on the GPU host alone (16
// cores, 343 s) and with --slurm on a local cluster of 2 nodes x 8 CPUs on that host (301 s). Each
// step asks one CPU and its threads share the node's cores, as on one host; a projection that
// reserved each compile's granted cores for it ran about two 4-thread compiles per node and said
// 365 s (+21%). Issue 35 asks for the cluster run within 15% from the single host's record.
TEST(ReportCluster, FlashAttentionsHostRecordProjectsItsClusterRun) {
  const auto host = recorded("flash_attention_2_hdim64_h100_host_alone.tsv");
  ASSERT_EQ(host.profile.units.size(), 17u);
  ASSERT_EQ(host.outside.links.size(), 1u);
  const std::vector<std::vector<size_t>> none(host.profile.units.size());  // no unit needs another
  const auto cluster = report::simulate(host.profile, none, *report::parse_shape("2x8x56G"), 150, host.outside);
  const double off = off_by(cluster.makespan_ms, host.measured_s.at("cluster_2x8x56G"));
  RecordProperty("cluster_from_host", std::to_string(off));
  EXPECT_LE(std::abs(off), 0.15) << cluster.makespan_ms;
  // The same record on its own host's shape.
  const auto alone = report::simulate(host.profile, none, *report::parse_shape("1x16x112G"), 0, host.outside);
  const double off_alone = off_by(alone.makespan_ms, host.measured_s.at("host_alone"));
  RecordProperty("host_from_host", std::to_string(off_alone));
  EXPECT_LE(std::abs(off_alone), 0.15) << alone.makespan_ms;
  // The cluster run's own record on its shape.
  const auto own = recorded("flash_attention_2_hdim64_h100_cluster_2x8.tsv");
  ASSERT_EQ(own.profile.units.size(), 17u);
  const auto again = report::simulate(own.profile, none, *report::parse_shape("2x8x56G"), 150, own.outside);
  const double off_own = off_by(again.makespan_ms, own.measured_s.at("cluster_2x8x56G"));
  RecordProperty("cluster_from_cluster", std::to_string(off_own));
  EXPECT_LE(std::abs(off_own), 0.15) << again.makespan_ms;
}

// Steps share a node's cores: a 4-thread compile of 8 s of CPU beside three 1-thread compiles of 4 s
// on one 4-core node. All four run at once; while 7 threads share the 4 cores the 4-thread compile
// gets 16/7 cores and ends at 3.5 s, then the others have a core each for their last 2 s. Reserving
// its 4 cores, it waited for the three and the build took 6 s.
TEST(ReportCluster, StepsShareANodesCoresByTheirThreads) {
  report::Profile p;
  p.units = {unit("a.o", "cuda", 0, 2000), unit("b.o", "c++", 0, 4000), unit("c.o", "c++", 0, 4000),
             unit("d.o", "c++", 0, 4000)};
  p.units[0].cores = 4, p.units[0].cpu_ms = 8000;
  const auto r = report::simulate(p, std::vector<std::vector<size_t>>(4), *report::parse_shape("1x4x64G"), 0);
  EXPECT_EQ(r.makespan_ms, 5500);
  EXPECT_EQ(r.cpu_bound_ms, 5000);  // (8 + 3 x 4) s over 4 cores
}

// A compile goes to the node whose running steps have the fewest threads: two 4-thread compiles
// (8 s of CPU each) and two 1-thread ones (2 s) on 2 nodes of 4 cores end together at 2.5 s, a
// 4-thread and a 1-thread one on each node. On one node, all four would share its 4 cores until 5 s.
TEST(ReportCluster, ACompileGoesToTheNodeWithTheFewestThreads) {
  report::Profile p;
  p.units = {unit("a.o", "cuda", 0, 2000), unit("b.o", "cuda", 0, 2000), unit("c.o", "c++", 0, 2000),
             unit("d.o", "c++", 0, 2000)};
  for (int i : {0, 1}) p.units[static_cast<size_t>(i)].cores = 4, p.units[static_cast<size_t>(i)].cpu_ms = 8000;
  const std::vector<std::vector<size_t>> none(4);
  EXPECT_EQ(report::simulate(p, none, *report::parse_shape("2x4x64G"), 0).makespan_ms, 2500);
  EXPECT_EQ(report::simulate(p, none, *report::parse_shape("1x4x64G"), 0).makespan_ms, 5000);
}
