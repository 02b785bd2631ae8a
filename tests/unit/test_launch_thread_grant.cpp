// The thread-grant rule (launch/thread_grant.hpp) with fake reservations, and the launcher's use of it
// under the governor with a fake clock and ledger: a grant never breaks the memory budget.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "fakes/clock.hpp"
#include "launch/thread_grant.hpp"
#include "launch/unit_plan.hpp"
#include "test_support.hpp"

using namespace kiln;
using namespace std::chrono_literals;

namespace {

constexpr std::uint64_t GiB = 1024 * 1024;

launch::UnitShape cuda_unit(int targets = 1, std::uint64_t base = 4 * GiB) {
  launch::UnitShape u;
  u.nvcc = true;
  u.device_targets = targets;
  u.base_kib = base;
  return u;
}

launch::GrantPolicy policy() { return launch::GrantPolicy{}; }  // the defaults: 20 s, 32, 4.0, 0.25, 0.5

}  // namespace

TEST(ThreadGrant, ReadsTheProjectsOwnFlagsInEverySpelling) {
  auto p = launch::project_threads({"nvcc", "--threads", "4", "-c", "a.cu"});
  EXPECT_EQ(p.threads, 4);
  EXPECT_FALSE(p.split);
  p = launch::project_threads({"nvcc", "-t=2", "--split-compile=0"});
  EXPECT_EQ(p.threads, 2);
  EXPECT_EQ(p.split, 0);
  p = launch::project_threads({"nvcc", "-split-compile", "8"}, "--threads=3");
  EXPECT_EQ(p.split, 8);
  EXPECT_EQ(p.threads, 3);                                        // NVCC_APPEND_FLAGS counts as the user's too
  p = launch::project_threads({"nvcc", "-t", "x", "--threads"});  // malformed: ignored, not a crash
  EXPECT_FALSE(p.threads);
}

TEST(ThreadGrant, AloneOnAnIdleMachineALongUnitTakesTheCores) {
  auto g = launch::decide_grant(cuda_unit(), {}, 16, 100 * GiB, 0, policy());
  EXPECT_EQ(g.split, 16);
  EXPECT_EQ(g.threads, 2);  // one architecture: the host side in a lane beside the device side
  EXPECT_EQ(g.cores, 16);   // the host lane ends while cicc runs: not a core of its own
  // 15 extra threads and the host lane at a quarter of the 4 GiB peak each.
  EXPECT_EQ(g.kib, 4 * GiB + 16 * GiB);
  EXPECT_EQ(launch::grant_flags(g), "--split-compile=16 --threads=2");
}

TEST(ThreadGrant, HostCompilesAndShortUnitsGetNothing) {
  launch::UnitShape cxx;
  cxx.base_kib = 2 * GiB;
  EXPECT_FALSE(launch::decide_grant(cxx, {}, 16, 100 * GiB, 0, policy()).granted());
  auto short_unit = cuda_unit();
  short_unit.serial_cpu_ms = 5'000;
  auto g = launch::decide_grant(short_unit, {}, 16, 100 * GiB, 0, policy());
  EXPECT_FALSE(g.granted());
  EXPECT_EQ(g.why, "short: 5s of CPU in its last compile");  // core::duration_text's spelling
  EXPECT_EQ(g.kib, 4 * GiB);
}

TEST(ThreadGrant, NotOnTheCriticalPathWhenARunningCompileEndsLater) {
  auto u = cuda_unit();
  u.serial_cpu_ms = 60'000;
  // A running compile expected to need 200 s more: this 60 s unit will not be last.
  std::vector<launch::Reservation> running = {{1, 4 * GiB, 1, 1'000'000 + 200'000}};
  auto g = launch::decide_grant(u, running, 16, 100 * GiB, 1'000'000, policy());
  EXPECT_FALSE(g.granted());
  EXPECT_NE(g.why.find("critical path: a running compile needs 3m20s more, this one 1m00s"), std::string::npos)
      << g.why;
  // The same unit when the other ends in 30 s: it becomes the long pole and gets the free cores.
  running[0].until_ms = 1'000'000 + 30'000;
  g = launch::decide_grant(u, running, 16, 100 * GiB, 1'000'000, policy());
  EXPECT_EQ(g.split, 15);
}

TEST(ThreadGrant, AFullBuildGrantsNothing) {
  std::vector<launch::Reservation> running;
  for (long pid = 1; pid <= 15; ++pid) running.push_back({pid, 2 * GiB});
  auto g = launch::decide_grant(cuda_unit(), running, 16, 100 * GiB, 0, policy());
  EXPECT_FALSE(g.granted());
  // Sixteen units of equal work on 16 cores: one core's worth each, so one thread each.
  EXPECT_NE(g.why.find("its share: 6% of the work of 16 units (equal) on 16 cores"), std::string::npos) << g.why;
  // Beside 15 running compiles that already hold 64 threads, even a long unit gets nothing.
  running.push_back({16, 2 * GiB, 1, 0});
  for (auto& r : running) {
    r.threads = 4;
    launch::set_work(r, {1000, std::nullopt});
  }
  auto u = cuda_unit();
  u.estimate = 1e9;
  g = launch::decide_grant(u, running, 16, 100 * GiB, 0, policy());
  EXPECT_FALSE(g.granted());
  EXPECT_NE(g.why.find("no free cores"), std::string::npos) << g.why;
}

TEST(ThreadGrant, EarlyArrivalsWithNothingKnownShareTheCoresEqually) {
  // Five units of unknown work arrive one after another on 16 cores, with no plan of what comes:
  // each takes twice its equal share among those running (2 x 16 / n), at most a core per other.
  std::vector<launch::Reservation> running;
  std::vector<int> got;
  for (long pid = 1; pid <= 5; ++pid) {
    auto g = launch::decide_grant(cuda_unit(), running, 16, 1000 * GiB, 0, policy());
    got.push_back(g.cores);
    running.push_back({pid, g.kib, g.cores, 0});
  }
  EXPECT_EQ(got, (std::vector<int>{16, 15, 11, 8, 6}));
  EXPECT_EQ(launch::decide_grant(cuda_unit(), running, 16, 1000 * GiB, 0, policy()).basis, "equal");
}

namespace {

launch::Reservation running_unit(long pid, int threads, double estimate, std::optional<long> cpu = std::nullopt) {
  launch::Reservation r{pid, 4 * GiB, threads, 0};
  launch::set_work(r, {estimate, cpu});
  return r;
}

}  // namespace

TEST(ThreadGrant, TheLongUnitArrivingLastStillGetsTheCores) {
  // causal-conv1d (0d2252d) on the H100, as launched: the host .cpp (1 thread), _update.cu (14),
  // _fwd.cu (15), then _bwd.cu, the 5-minute one. Estimates: source and quoted headers x 10 per
  // target (27, 130, 280 and 420 KB-units). The 2 x cores cap once left it 2 threads (356.9 s
  // build); its share, capped at a core for each other unit about as long, is 15: _fwd.cu on its 15
  // threads is expected to take more than half its time, the other two much less.
  std::vector<launch::Reservation> running = {running_unit(1, 1, 27'000), running_unit(2, 14, 130'000),
                                              running_unit(3, 15, 280'000)};
  auto bwd = cuda_unit();
  bwd.estimate = 420'000;
  auto g = launch::decide_grant(bwd, running, 16, 112 * GiB, 0, policy());
  EXPECT_EQ(g.split, 15);
  EXPECT_NE(g.why.find("15 of its 16 (a core for each other unit about as long"), std::string::npos) << g.why;
  EXPECT_EQ(g.units, 4);
  EXPECT_EQ(g.basis, "estimate");
  EXPECT_NEAR(g.share, 420.0 / 857, 1e-6);
  auto old = policy();
  old.oversubscribe = 2.0;
  EXPECT_EQ(launch::decide_grant(bwd, running, 16, 112 * GiB, 0, old).split, 2);
}

TEST(ThreadGrant, ALateLongUnitGetsItsShareWhateverTheEarlierOnesTook) {
  // Nine short units (learned: 40 s of CPU each, below the 46 s of work per core) run on one
  // thread each; the long one (learned 300 s) arrives last: it is the only unit on the critical
  // path, so its share is 2 x 16 cores. The short ones end in less than half its time (they run
  // at a higher nice value and give their cores back): it keeps no core for them and gets all 16.
  std::vector<launch::Reservation> running;
  for (long pid = 1; pid <= 9; ++pid) running.push_back(running_unit(pid, 1, 0, 40'000));
  auto u = cuda_unit();
  u.serial_cpu_ms = 300'000;
  auto g = launch::decide_grant(u, running, 16, 1000 * GiB, 0, policy());
  EXPECT_EQ(g.cores, 16);
  EXPECT_EQ(g.basis, "learned CPU time");
  EXPECT_EQ(g.why.find("a core for each other unit"), std::string::npos) << g.why;
  // Beside four units that run about as long as it will (learned 100 s on one thread each, against
  // its 105 s on its share of 14 threads), it keeps a core for each: 12.
  running.clear();
  for (long pid = 1; pid <= 4; ++pid) running.push_back(running_unit(pid, 1, 0, 100'000));
  g = launch::decide_grant(u, running, 16, 1000 * GiB, 0, policy());
  EXPECT_EQ(g.cores, 12);
  EXPECT_NE(g.why.find("a core for each other unit about as long"), std::string::npos) << g.why;
  // A short unit arriving beside running long ones gets one thread, and says why.
  std::vector<launch::Reservation> longs = {running_unit(1, 8, 0, 300'000), running_unit(2, 8, 0, 300'000)};
  auto s = cuda_unit();
  s.serial_cpu_ms = 25'000;
  g = launch::decide_grant(s, longs, 16, 1000 * GiB, 0, policy());
  EXPECT_FALSE(g.granted());
  EXPECT_NE(g.why.find("its share"), std::string::npos) << g.why;
}

namespace {

// Ten units of one Ninja (-j 16) arriving in the same millisecond, in the plan's order, each
// decided as kiln exec decides it: the others running, itself, and those the plan says come.
std::map<std::string, int> arrive_at_once(const launch::UnitPlan& plan,
                                          const std::map<std::string, launch::UnitWork>& work) {
  std::vector<launch::Reservation> running;
  std::set<std::string> running_outputs;
  std::map<std::string, int> got;
  long pid = 0;
  for (const auto& u : plan.units) {
    std::vector<launch::UnitWork> coming;
    for (const auto& c : launch::starting_soon(plan, running_outputs, u.output)) coming.push_back(work.at(c.output));
    auto shape = cuda_unit();
    shape.estimate = work.at(u.output).estimate;
    shape.serial_cpu_ms = work.at(u.output).cpu_ms;
    auto g = launch::decide_grant(shape, running, 16, 1000 * GiB, 0, policy(), coming);
    got[u.output] = g.cores;
    launch::Reservation r{++pid, g.kib, g.cores, 0};
    launch::set_work(r, shape.work());
    running.push_back(r);
    running_outputs.insert(u.output);
  }
  return got;
}

}  // namespace

TEST(ThreadGrant, UnitsArrivingAtOnceLeaveTheLongOnesTheMostThreads) {
  // mamba's selective scan (e9594ce) as a first build: ten units, four long, the long ones listed
  // last so that they launch last. Before: the first five took 16/15/6/13/14 threads and the four
  // longest one each. Now every unit's share is decided knowing the others.
  launch::UnitPlan plan;
  std::map<std::string, launch::UnitWork> est, learned;
  for (int i = 0; i < 10; ++i) {
    const std::string out = "scan_" + std::to_string(i) + ".o";
    plan.units.push_back({"mamba", 16, true, 1, out, "scan_" + std::to_string(i) + ".cu"});
    const bool long_unit = i >= 6;
    est[out] = {long_unit ? 700'000.0 : 200'000.0, std::nullopt};
    learned[out] = {long_unit ? 700'000.0 : 200'000.0, long_unit ? 180'000L : 40'000L};
  }
  // The short ones are below the average work per core, but on a shared core (38 threads on 16
  // cores while all run) one thread would end them after the long ones: they get the threads that
  // end them in time, 3 by the estimate (200 of 700) and 2 by what was learned (40 s of 180 s).
  for (const auto& [work, short_threads] : {std::pair{est, 3}, std::pair{learned, 2}}) {
    auto got = arrive_at_once(plan, work);
    int total = 0;
    for (const auto& [out, n] : got) {
      total += n;
      if (out >= "scan_6.o")
        EXPECT_EQ(n, 8) << out;  // 2 x (16 cores x a quarter of the critical work)
      else
        EXPECT_EQ(n, short_threads) << out;
    }
    EXPECT_EQ(total, 2 * 16 + 6 * short_threads);  // within the oversubscription cap (64)
  }
  // A plan of one unit: it takes every core.
  launch::UnitPlan alone;
  alone.units.push_back(plan.units.front());
  EXPECT_EQ(arrive_at_once(alone, est).at("scan_0.o"), 16);
}

TEST(ThreadGrant, AUnitJustAboveTheAverageGetsTheThreadsToEndWithinIt) {
  // mamba (e9594ce) as data/unit_cost.toml estimates it: six backward units (143 s), three forward
  // (75 s), the C++ binding (50 s): 71 s of work per core. The forward units' share is 1.1 cores'
  // worth, which alone gave them one thread: 75 s, the first build's tail on the GPU host. On a
  // shared core (1.75 threads per core while all run) they need 3 to end within 71 s, at most what
  // 1.5 cores' worth gets; the binding (here a .cu too) 2.
  launch::UnitPlan plan;
  std::map<std::string, launch::UnitWork> est;
  for (int i = 0; i < 10; ++i) {
    const std::string out = "u" + std::to_string(i) + ".o";
    plan.units.push_back({"mamba", 16, true, 1, out, "u" + std::to_string(i) + ".cu"});
    est[out] = {i < 6 ? 143.0 : i < 9 ? 75.0 : 50.0, std::nullopt};
  }
  auto got = arrive_at_once(plan, est);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(got.at("u" + std::to_string(i) + ".o"), i < 6 ? 4 : i < 9 ? 3 : 2) << i;
  // Where those threads would not all fit beside the critical units' under the oversubscription
  // cap (here 2 x 16), none are given: the cap's threads stay for a long unit still to come.
  auto tight = policy();
  tight.oversubscribe = 2.0;
  std::vector<launch::UnitWork> members;
  for (const auto& u : plan.units) members.push_back(est.at(u.output));
  const auto t = launch::share_threads(members, 16, tight);
  for (int i = 6; i < 10; ++i) EXPECT_EQ(t[static_cast<size_t>(i)], 1) << i;
  EXPECT_GT(launch::share_threads(members, 16, policy())[6], 1);
}

TEST(ThreadGrant, ManyExtensionsAtOnceStillFeedTheLongestUnit) {
  // pytorch_scatter's shape (648dda3): eight extensions' Ninjas start at once, 40 units for 16
  // cores; one unit (segment_coo_cuda: 97 s alone with 16 threads) is most of the critical work.
  launch::UnitPlan plan;
  std::map<std::string, launch::UnitWork> work;
  for (int e = 0; e < 8; ++e)
    for (int i = 0; i < 5; ++i) {
      const std::string out = "e" + std::to_string(e) + "_u" + std::to_string(i) + ".o";
      plan.units.push_back({"ext" + std::to_string(e), 16, true, 1, out, out + ".cu"});
      work[out] = {0, out == "e3_u0.o" ? 300'000L : 20'000L};
    }
  auto got = arrive_at_once(plan, work);
  // 2 x 16, all of the cores: the 39 others end in less than half its time (20 s against 300 s),
  // so no core is kept for them; they run on one thread each (more units than cores: no extras).
  EXPECT_EQ(got.at("e3_u0.o"), 16);
  for (const auto& [out, n] : got)
    if (out != "e3_u0.o") EXPECT_EQ(n, 1) << out;
}

TEST(ThreadGrant, ASingleUnitGetsEveryCoreWithOrWithoutHistory) {
  auto u = cuda_unit();
  u.estimate = 420'000;
  EXPECT_EQ(launch::decide_grant(u, {}, 16, 100 * GiB, 0, policy()).split, 16);
  u.serial_cpu_ms = 300'000;
  auto g = launch::decide_grant(u, {}, 16, 100 * GiB, 0, policy());
  EXPECT_EQ(g.split, 16);
  EXPECT_EQ(g.units, 1);
  EXPECT_EQ(g.why, "alone: 16 cores");
}

TEST(ThreadGrant, SeveralArchitecturesRunInParallelFirst) {
  auto g = launch::decide_grant(cuda_unit(4), {}, 16, 100 * GiB, 0, policy());
  EXPECT_EQ(g.threads, 4);
  EXPECT_EQ(g.split, 4);
  EXPECT_EQ(g.cores, 16);
  EXPECT_EQ(launch::grant_flags(g), "--split-compile=4 --threads=4");
}

TEST(ThreadGrant, TheProjectsChoicesAreKept) {
  auto u = cuda_unit(1);
  u.project.split = 4;
  auto g = launch::decide_grant(u, {}, 16, 100 * GiB, 0, policy());
  EXPECT_FALSE(g.granted());
  EXPECT_EQ(g.cores, 4);  // counted in the ledger all the same
  EXPECT_EQ(g.kib, 4 * GiB + 3 * GiB);
  // --threads 4 after pruning to one architecture is one lane; kiln adds the split, not threads.
  auto t = cuda_unit(1);
  t.project.threads = 4;
  g = launch::decide_grant(t, {}, 16, 100 * GiB, 0, policy());
  EXPECT_EQ(g.threads, 0);
  EXPECT_EQ(g.split, 16);
  // --threads 2 on four architectures: two lanes, each split over the rest.
  auto four = cuda_unit(4);
  four.project.threads = 2;
  g = launch::decide_grant(four, {}, 16, 100 * GiB, 0, policy());
  EXPECT_EQ(g.threads, 0);
  EXPECT_EQ(g.split, 8);
  EXPECT_EQ(g.cores, 16);
}

TEST(ThreadGrant, MemoryLimitsTheGrant) {
  // 16 GiB budget, 6 GiB already reserved, a 4 GiB unit: 6 GiB left, half of it (3 GiB) for extra
  // threads at 1 GiB each: the host side's lane and 2 more threads.
  std::vector<launch::Reservation> running = {{1, 6 * GiB, 1, 0}};
  auto g = launch::decide_grant(cuda_unit(), running, 16, 16 * GiB, 0, policy());
  EXPECT_EQ(g.split, 3);
  EXPECT_EQ(g.threads, 2);
  EXPECT_EQ(g.kib, 7 * GiB);
  // No room at all: no grant, the plain reservation (the governor then waits for it).
  running[0].kib = 13 * GiB;
  g = launch::decide_grant(cuda_unit(), running, 16, 16 * GiB, 0, policy());
  EXPECT_FALSE(g.granted());
  EXPECT_EQ(g.kib, 4 * GiB);
}

TEST(ThreadGrant, NeverBreaksTheBudgetRandomised) {
  std::mt19937 rng(42);
  for (int trial = 0; trial < 20000; ++trial) {
    const int cores = 1 + static_cast<int>(rng() % 64);
    const std::uint64_t budget = (1 + rng() % 200) * GiB;
    std::vector<launch::Reservation> running;
    std::uint64_t used = 0;
    const int n = static_cast<int>(rng() % 20);
    for (int i = 0; i < n; ++i) {
      launch::Reservation r{i + 1, (1 + rng() % 8) * GiB, 1 + static_cast<int>(rng() % 8), 0};
      running.push_back(r);
      used += r.kib;
    }
    auto u = cuda_unit(1 + static_cast<int>(rng() % 4), (1 + rng() % 8) * GiB);
    if (rng() % 3 == 0) u.serial_cpu_ms = static_cast<long>(rng() % 400'000);
    auto g = launch::decide_grant(u, running, cores, budget, 0, policy());
    ASSERT_GE(g.kib, u.base_kib);
    if (g.granted()) {
      ASSERT_LE(used + g.kib, budget) << "trial " << trial;
      ASSERT_LE(g.cores, std::max(1, cores - std::min(n, cores / 4))) << "trial " << trial;
    } else {
      ASSERT_EQ(g.kib, u.base_kib);
    }
  }
}

namespace {

// Compiles end at set times on the fake clock; the sum of reservations is checked at every admission.
struct RecordingLedger : launch::Ledger {
  io::FakeClock& clock;
  std::uint64_t budget;
  struct Entry {
    launch::Reservation r;
    std::chrono::steady_clock::time_point ends;
  };
  std::vector<Entry> running;
  std::uint64_t worst_over_budget = 0;  // how far any admission with company went over; 0 = never
  RecordingLedger(io::FakeClock& c, std::uint64_t b) : clock(c), budget(b) {}
  std::optional<bool> try_reserve(const launch::Reservation& mine,
                                  const std::function<bool(const std::vector<launch::Reservation>&)>& admit) override {
    std::erase_if(running, [&](const Entry& e) { return e.ends <= clock.now(); });
    std::vector<launch::Reservation> live;
    for (const auto& e : running) live.push_back(e.r);
    if (!admit(live)) return false;
    std::uint64_t total = mine.kib;
    for (const auto& r : live) total += r.kib;
    if (!live.empty() && total > budget) worst_over_budget = std::max(worst_over_budget, total - budget);
    running.push_back({mine, clock.now() + std::chrono::seconds(30 + mine.pid % 90)});
    return true;
  }
  void release(long) override {}
};

}  // namespace

TEST(ThreadGrant, TheLaunchersAdmissionNeverBreaksTheBudget) {
  io::FakeClock clock;
  const std::uint64_t budget = 24 * GiB;
  RecordingLedger ledger(clock, budget);
  std::mt19937 rng(7);
  int granted = 0;
  for (long pid = 1; pid <= 400; ++pid) {
    auto unit = cuda_unit(1 + static_cast<int>(rng() % 3), (1 + rng() % 6) * GiB);
    launch::Reservation plain{pid, unit.base_kib}, decided;
    launch::Grant grant;
    // As exec_compiler decides: the grant from what runs, admitted only when it fits.
    auto g = launch::acquire_decided(
        ledger, clock, pid,
        [&](const std::vector<launch::Reservation>& running) -> std::optional<launch::Reservation> {
          grant = launch::decide_grant(unit, running, 16, budget, 0, policy());
          if (!launch::admits(running, grant.kib, budget)) return std::nullopt;
          return launch::Reservation{pid, grant.kib, grant.cores, 0};
        },
        plain, decided, 200ms, 1h);
    ASSERT_TRUE(g.governed);
    if (grant.granted() && decided.kib == grant.kib) ++granted;
    clock.advance(std::chrono::milliseconds(rng() % 5000));
  }
  EXPECT_EQ(ledger.worst_over_budget, 0u);
  EXPECT_GT(granted, 0);  // the test exercised grants, not only plain reservations
}

TEST(ThreadGrant, ShareThreadsIsWhatAUnitNotYetLaunchedCanExpect) {
  // apex's first seconds (data/unit_cost.toml estimates): a megatron softmax .cu (235) has just
  // launched, another (190) is coming, beside C++ units (48) and multi-tensor .cu units (40). The
  // coming softmax unit will get threads too: compared at one thread it would look 2.5 x longer
  // than it will be, and every unit already granted threads would yield to it (the GPU host's
  // first try: the longest unit of the build ran at nice 5).
  std::vector<launch::UnitWork> members = {{235, std::nullopt}, {190, std::nullopt}};
  for (int i = 0; i < 12; ++i) members.push_back({48, std::nullopt, true});
  for (int i = 0; i < 14; ++i) members.push_back({40, std::nullopt});
  const auto t = launch::share_threads(members, 16, policy());
  ASSERT_EQ(t.size(), members.size());
  EXPECT_EQ(t[0], launch::share_threads(members, 16, policy())[0]);
  EXPECT_GE(t[1], 4);
  EXPECT_GT(t[0], t[1]);
  EXPECT_EQ(t[2], 1);   // a host compile: one thread, whatever its share
  EXPECT_EQ(t[20], 1);  // below the average work per core
  // The rule's own figure: decide_grant gives the unit as much, capped at a core for each other
  // unit (at least 3/4 of the cores: 12).
  auto u = cuda_unit();
  u.estimate = 235;
  std::vector<launch::UnitWork> coming(members.begin() + 1, members.end());
  EXPECT_EQ(launch::decide_grant(u, {}, 16, 1000 * GiB, 0, policy(), coming).cores, std::min(t[0], 12));
}

namespace {

// Issue 35: flash-attention 2 (Dao-AILab/flash-attention 0251105, setup.py's 72 kernel units and
// flash_api.cpp) on 32 cores. Its units' estimates differ by head dimension and direction, so the
// heaviest look "critical" and rule 5 alone gave the first ones 15 threads while 31 others ran (130
// threads on 32 cores). Ninja runs one unit per core; each launch asks for its grant with what runs,
// the units starting soon and how many wait. Returns the most threads' CPU weight running at once
// while units waited (a thread at its nice raised by rule 6b weighs less than one).
int most_threads_while_units_wait(int cores, bool tell_waiting) {
  std::vector<launch::UnitWork> units;
  for (const char* dir : {"bwd", "fwd", "split"})
    for (int hdim : {32, 64, 96, 128, 192, 256})
      for (int variant = 0; variant < (dir[0] == 's' ? 8 : 4); ++variant)  // fp16/bf16, causal or not (96 .cu)
        units.push_back({(dir[0] == 'b' ? 3.0 : 1.0) * hdim / 32.0, std::nullopt, false});
  units.push_back({0.5, std::nullopt, true});  // flash_api.cpp
  struct Running {
    long long end;
    int threads;
    int weight;  // the threads its CPU weight stands for
  };
  std::vector<Running> running;
  size_t next = 0;
  long long now = 0;
  int worst = 0;
  while (next < units.size() || !running.empty()) {
    // Ninja fills its -j slots (one per core under the governor).
    while (next < units.size() && static_cast<int>(running.size()) < cores) {
      std::vector<launch::Reservation> others;
      for (const auto& r : running) others.push_back({1, 4 * GiB, r.threads, r.end});
      std::vector<launch::UnitWork> coming;
      for (size_t i = next + 1; i < units.size() && static_cast<int>(running.size() + 1 + coming.size()) < cores; ++i)
        coming.push_back(units[i]);
      launch::UnitShape u = cuda_unit();
      if (units[next].host) u.nvcc = false;
      u.estimate = units[next].estimate;
      launch::Idle idle;
      if (tell_waiting) idle.waiting = static_cast<int>(units.size() - next - 1), idle.planned = true;
      const auto g = launch::decide_grant(u, others, cores, 10'000 * GiB, now, policy(), coming, idle);
      const auto seconds = static_cast<long long>(60'000 * units[next].estimate / std::max(1, g.cores)) + 1;
      // Rule 6b's threads weigh as the unit's own: what they take from the others is that weight.
      running.push_back({now + seconds, g.cores, g.weigh_threads > 0 ? g.weigh_threads : g.cores});
      ++next;
      if (next < units.size()) {
        int threads = 0;
        for (const auto& r : running) threads += r.weight;
        worst = std::max(worst, threads);
      }
    }
    // The next unit to end frees its slot.
    auto first = std::min_element(running.begin(), running.end(),
                                  [](const Running& a, const Running& b) { return a.end < b.end; });
    now = first->end;
    running.erase(first);
  }
  return worst;
}

}  // namespace

TEST(ThreadGrant, NoMoreThreadsThanCoresWhileUnitsWait) {
  for (int cores : {16, 32}) {
    EXPECT_LE(most_threads_while_units_wait(cores, true), cores) << cores << " cores";
    // Without the count of waiting units, rule 5's shares oversubscribe (what the issue saw).
    EXPECT_GT(most_threads_while_units_wait(cores, false), cores) << cores << " cores";
  }
}

TEST(ThreadGrant, UnitsStillWaitingKeepACoreEach) {
  // Four compiles of one thread each on 16 cores: alone with them, a unit takes a share of the rest.
  std::vector<launch::Reservation> four(4, launch::Reservation{1, 4 * GiB, 1, 0});
  auto free = launch::decide_grant(cuda_unit(), four, 16, 100 * GiB, 0, policy(), {}, launch::Idle{});
  EXPECT_GT(free.cores, 2) << free.why;
  // Ten units waiting for a slot keep a core each: 16 - 4 - 10 leaves two.
  launch::Idle tail;
  tail.waiting = 10;
  auto g = launch::decide_grant(cuda_unit(), four, 16, 100 * GiB, 0, policy(), {}, tail);
  EXPECT_LE(g.cores, 2) << g.why;
}

namespace {

// Thirty-one one-thread compiles of equal estimate on 32 cores, and a unit of the same estimate
// arriving with `waiting` units still to start.
launch::Grant among_equal_units(int waiting, bool planned, std::optional<long> learned_ms = std::nullopt) {
  std::vector<launch::Reservation> running(31, launch::Reservation{1, 4 * GiB, 1, 0});
  for (auto& r : running) launch::set_work(r, {100, std::nullopt, false});
  auto u = cuda_unit();
  u.estimate = 100;
  u.serial_cpu_ms = learned_ms;
  launch::Idle idle;
  idle.waiting = waiting;
  idle.planned = planned;
  return launch::decide_grant(u, running, 32, 1000 * GiB, 0, policy(), {}, idle);
}

}  // namespace

// Rule 6b: flash-attention 2 on 32 cores ran every unit on one thread; its last units started
// beside 31 others and ran alone at the end.
TEST(ThreadGrant, TheLastWaveGetsThreadsAtTheWeightOfOne) {
  const auto g = among_equal_units(24, true);
  EXPECT_EQ(g.cores, 4) << g.why;
  EXPECT_EQ(g.split, 4) << g.why;
  EXPECT_EQ(g.weigh_threads, 1);
  // Four threads at nice +6 weigh 4 x 1.25^-6 = 1.05 threads at nice 0.
  EXPECT_EQ(g.nice_raise, 6);
  EXPECT_NE(g.why.find("the last wave (24 units waiting on 32 cores)"), std::string::npos) << g.why;
  EXPECT_GT(g.kib, 4 * GiB);  // the extra threads' memory is reserved
}

TEST(ThreadGrant, TheFirstUnitOfASingleWaveGetsTheLastWavesThreads) {
  // flash-attention's head-dim-64 units on 16 cores (GPU host): 17 units, the first launched with
  // nothing running and 15 coming; it was left one thread and ended the build 100 s after the rest.
  std::vector<launch::UnitWork> coming(15, launch::UnitWork{100, std::nullopt, false});
  auto u = cuda_unit();
  u.estimate = 100;
  launch::Idle idle{.waiting = 1, .planned = true};
  const auto g = launch::decide_grant(u, {}, 16, 1000 * GiB, 0, policy(), coming, idle);
  EXPECT_EQ(g.cores, 4) << g.why;
  EXPECT_EQ(g.weigh_threads, 1);
  // Alone (nothing running, nothing coming), rule 5 gives it the cores at full weight.
  const auto alone = launch::decide_grant(u, {}, 16, 1000 * GiB, 0, policy(), {}, idle);
  EXPECT_EQ(alone.weigh_threads, 0) << alone.why;
  EXPECT_GT(alone.cores, 4) << alone.why;
}

TEST(ThreadGrant, NoTailThreadsBeforeTheLastWaveOrWithoutAPlan) {
  // As many waiting as cores: a whole wave is still to come and takes the cores that free up.
  auto g = among_equal_units(32, true);
  EXPECT_EQ(g.cores, 1) << g.why;
  EXPECT_EQ(g.weigh_threads, 0);
  EXPECT_EQ(g.nice_raise, 0);
  // No plan: how many wait is not known, so no unit is in the last wave.
  g = among_equal_units(0, false);
  EXPECT_EQ(g.cores, 1) << g.why;
  // A unit known to be short gains nothing from a split (rule 3).
  g = among_equal_units(3, true, 5'000);
  EXPECT_EQ(g.cores, 1) << g.why;
}

TEST(ThreadGrant, NoTailThreadsWhileMoreCompilesRunThanCores) {
  // apex 6424da3b on the 16-core GPU host: eleven extensions' Ninjas started 34 compiles at once,
  // none waiting for a slot; the first ones got rule 6b's threads at nice +6 and ran at a third of
  // a core beside the others. Every unit arriving at the start sees the rest starting beside it.
  std::vector<launch::UnitWork> coming(35, launch::UnitWork{100, std::nullopt, false});
  auto u = cuda_unit();
  u.estimate = 100;
  launch::Idle idle{.waiting = 0, .planned = true};
  auto g = launch::decide_grant(u, {}, 16, 1000 * GiB, 0, policy(), coming, idle);
  EXPECT_EQ(g.weigh_threads, 0) << g.why;
  EXPECT_EQ(g.nice_raise, 0) << g.why;
  // Later, with twenty compiles running on 16 cores and nothing left to start.
  std::vector<launch::Reservation> twenty(20, launch::Reservation{1, 4 * GiB, 1, 0});
  for (auto& r : twenty) launch::set_work(r, {100, std::nullopt, false});
  g = launch::decide_grant(u, twenty, 16, 1000 * GiB, 0, policy(), {}, idle);
  EXPECT_EQ(g.weigh_threads, 0) << g.why;
  EXPECT_EQ(g.cores, 1) << g.why;
  // Once they fit the cores, the last wave's threads come back.
  std::vector<launch::Reservation> ten(twenty.begin(), twenty.begin() + 10);
  g = launch::decide_grant(u, ten, 16, 1000 * GiB, 0, policy(), {}, idle);
  EXPECT_EQ(g.weigh_threads, 1) << g.why;
  EXPECT_EQ(g.cores, 4) << g.why;
}

TEST(ThreadGrant, TheLastWavesThreadsFitTheMemoryBudget) {
  std::vector<launch::Reservation> running(31, launch::Reservation{1, 4 * GiB, 1, 0});
  auto u = cuda_unit();
  launch::Idle idle{.waiting = 2, .planned = true};
  // 124 GiB held of 132: 4 GiB left beside this unit's 4, half of it for threads of 1 GiB each,
  // one of them nvcc's host lane (--threads=2).
  const auto g = launch::decide_grant(u, running, 32, 132 * GiB, 0, policy(), {}, idle);
  EXPECT_EQ(g.cores, 2) << g.why;
  EXPECT_EQ(g.weigh_threads, 1);
  EXPECT_EQ(g.nice_raise, 3);
  EXPECT_LE(g.kib, 132 * GiB - 124 * GiB);
}

namespace {

struct RecordedArrival {
  std::string output;
  int targets = 0;
  double estimate = 0;
  std::uint64_t kib = 0;
  int cores = 0;  // what kiln exec granted on the GPU host
};

std::vector<RecordedArrival> recorded_arrivals(const std::string& name) {
  std::ifstream in(kiln::testing::source_dir() + "/tests/fixtures/grants/" + name);
  std::vector<RecordedArrival> out;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream f(line);
    long start_ms = 0;
    RecordedArrival a;
    f >> start_ms >> a.output >> a.targets >> a.estimate >> a.kib >> a.cores;
    out.push_back(a);
  }
  return out;
}

// Each arrival decided as kiln exec decides it: the earlier ones running with what they were
// granted, the later ones coming (one Ninja at -j 32, a pool of 32 slots: all ten start at once).
std::vector<int> replay_arrivals(const std::vector<RecordedArrival>& units, const launch::GrantPolicy& p) {
  std::vector<launch::Reservation> running;
  std::vector<int> cores;
  for (size_t k = 0; k < units.size(); ++k) {
    launch::UnitShape shape;
    shape.nvcc = units[k].targets > 0;
    shape.device_targets = units[k].targets;
    shape.base_kib = units[k].kib;
    shape.estimate = units[k].estimate;
    std::vector<launch::UnitWork> coming;
    for (size_t c = k + 1; c < units.size(); ++c)
      coming.push_back({units[c].estimate, std::nullopt, units[c].targets == 0});
    launch::Idle idle;
    idle.planned = true;
    const auto g = launch::decide_grant(shape, running, 32, 1000 * GiB, 0, p, coming, idle);
    cores.push_back(g.cores);
    launch::Reservation r{static_cast<long>(k + 1), g.kib, g.cores, 0};
    launch::set_work(r, shape.work());
    running.push_back(r);
  }
  return cores;
}

}  // namespace

// What kiln exec granted mamba's ten units on the GPU host (32 cores, Session 19), replayed through
// the rule: the same cores for each unit, so a change to the rule that moves them shows here and
// needs a new record. Each record is replayed with the share_of_cores its binary carried (the rest
// of the policy as data/build_jobs.toml has it). The complex units (weighed 216 by complex_factor)
// got the most, the real backward units (158) fewer, the forward ones (81) fewer still, the host
// compile one.
namespace {

// The record's units replayed with `share_of_cores` (the rest of the policy as the data has it).
void expect_record_replays(const std::string& record, double share_of_cores) {
  const auto units = recorded_arrivals(record);
  ASSERT_EQ(units.size(), 10u);
  auto p = launch::GrantPolicy::from_data();
  p.share_of_cores = share_of_cores;
  const auto got = replay_arrivals(units, p);
  for (size_t k = 0; k < units.size(); ++k) EXPECT_EQ(got[k], units[k].cores) << record << ": " << units[k].output;
}

}  // namespace

TEST(ThreadGrant, MambasGrantsOnTheGpuHostAsRecorded) {
  // kiln de87b2a as committed then, share_of_cores 2: 10/7/4/1.
  expect_record_replays("mamba_h200x2_32cores_s19.tsv", 2);
  // The experiment with twice the share of the cores for the critical units (de87b2a built with
  // share_of_cores 4): 20/14/7/1 (the compiles 60 s against 66-67 s).
  expect_record_replays("mamba_h200x2_32cores_s19_share4.tsv", 4);
}

// A reservation carries a unit's work as the next launches read it: a host compile stays one (read
// back as a device unit, it counted in the others' shares with split threads of its own), and the
// estimate keeps its digits (3.25 came back as 3.3).
TEST(ThreadGrant, AReservationsWorkReadsBackAsItWasWritten) {
  launch::Reservation r{1, 2 * GiB, 1, 0};
  launch::set_work(r, {3.25, std::nullopt, true});
  auto w = launch::work_of(r);
  EXPECT_DOUBLE_EQ(w.estimate, 3.25);
  EXPECT_TRUE(w.host);
  EXPECT_FALSE(w.cpu_ms);
  launch::set_work(r, {216.0, 90'000L, false});  // written again: nothing of the first stays
  w = launch::work_of(r);
  EXPECT_DOUBLE_EQ(w.estimate, 216);
  EXPECT_EQ(w.cpu_ms, 90'000L);
  EXPECT_FALSE(w.host);
  EXPECT_EQ(std::count_if(r.extra.begin(), r.extra.end(), [](const auto& kv) { return kv.first == "est"; }), 1);
}
