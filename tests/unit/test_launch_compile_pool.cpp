// One pool of compile slots per build (launch/compile_pool.hpp): the admission rule with made-up
// ledger entries, and compiles of several Ninjas taking turns through the real file ledger (fake
// processes and clock), as `kiln exec` polls it.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "core/launcher_env.hpp"
#include "fakes/process_table.hpp"
#include "launch/compile_pool.hpp"
#include "launch/governor.hpp"
#include "launch/thread_grant.hpp"

using namespace kiln;

namespace {

const launch::CompilePool kPool{.jobs = 2, .id = "aaaa"};

launch::Reservation member(long pid, const launch::CompilePool& pool, double estimate = 0, long long since = 0) {
  launch::Reservation r{pid, 100};
  launch::join_pool(r, pool, since);
  if (estimate > 0) launch::set_work(r, launch::UnitWork{.estimate = estimate, .cpu_ms = std::nullopt, .host = false});
  return r;
}

launch::UnitWork weighing(double estimate) {
  return launch::UnitWork{.estimate = estimate, .cpu_ms = std::nullopt, .host = false};
}

// Two compiles' ledgers over one file: pid 41 (weight 30) has tried once and waits; 42 comes next.
struct OneWaiting {
  std::filesystem::path path;
  io::FakeProcessTable procs;
  std::optional<launch::FileLedger> a, b;
  explicit OneWaiting(const std::string& name)
      : path(std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()))) {
    std::filesystem::remove(path);
    procs.started = {{41, 1}, {42, 2}};
    a.emplace(path.string(), procs);
    b.emplace(path.string(), procs);
    a->wait_as(member(41, kPool, 30));
    EXPECT_EQ(a->try_reserve(member(41, kPool), [](const auto&) { return false; }), std::optional<bool>(false));
  }
  ~OneWaiting() { std::filesystem::remove(path); }
};

// `pid` admitted through `ledger`: the running compiles it saw.
std::vector<launch::Reservation> admitted_beside(launch::FileLedger& ledger, long pid) {
  std::vector<launch::Reservation> seen;
  EXPECT_EQ(ledger.try_reserve(member(pid, kPool),
                               [&](const auto& running) {
                                 seen = running;
                                 return true;
                               }),
            std::optional<bool>(true));
  return seen;
}

}  // namespace

TEST(CompilePool, FromWhatKilnBuildSays) {
  core::LauncherEnv none;
  EXPECT_FALSE(launch::compile_pool(none));
  core::LauncherEnv a, b;
  a.pool_jobs = 4, a.exec_log = "/p/build-kiln/kiln-exec.jsonl";
  b.pool_jobs = 4, b.exec_log = "/q/build-kiln/kiln-exec.jsonl";
  ASSERT_TRUE(launch::compile_pool(a));
  EXPECT_EQ(launch::compile_pool(a)->jobs, 4);
  EXPECT_EQ(launch::compile_pool(a)->id, launch::compile_pool(a)->id);
  EXPECT_NE(launch::compile_pool(a)->id, launch::compile_pool(b)->id);  // two builds, two pools
  a.pool_jobs = 0;
  EXPECT_FALSE(launch::compile_pool(a));
}

// The issue: pytorch_scatter's 7 units ran at once on 2 cores. At most the plan's jobs of one
// build's compiles run; other builds' compiles and commands outside the pool (links, another
// kiln's reservations) take none of its slots.
TEST(CompilePool, ACompileWaitsWhileTheBuildsSlotsAreTaken) {
  const launch::CompilePool other{.jobs = 2, .id = "bbbb"};
  std::vector<launch::Reservation> running{member(1, kPool), member(2, kPool)};
  auto t = launch::pool_turn(kPool, running, {}, weighing(10), 9, 0, 0);
  EXPECT_FALSE(t.go);
  EXPECT_EQ(t.taken, 2);
  running = {member(1, kPool), member(2, other), launch::Reservation{3, 100}};
  t = launch::pool_turn(kPool, running, {}, weighing(10), 9, 0, 0);
  EXPECT_TRUE(t.go);
  EXPECT_EQ(t.taken, 1);
}

// A freed slot goes to the heaviest unit waiting; one that has waited kAgedMs goes first.
TEST(CompilePool, AFreedSlotGoesToTheHeaviestWaiting) {
  const std::vector<launch::Reservation> running{member(1, kPool)};  // one of two slots free
  const std::vector<launch::Reservation> waiting{launch::waiting_entry(member(5, kPool, 50, 1000)),
                                                 launch::waiting_entry(member(6, kPool, 5, 1000))};
  // Lighter than pid 5, which came at the same time: it waits.
  auto t = launch::pool_turn(kPool, running, waiting, weighing(20), 9, 1000, 2000);
  EXPECT_FALSE(t.go);
  EXPECT_EQ(t.ahead, 1);
  // The heaviest: it goes, though it came last.
  t = launch::pool_turn(kPool, running, waiting, weighing(80), 9, 1500, 2000);
  EXPECT_TRUE(t.go);
  EXPECT_EQ(t.ahead, 0);
  // Two free slots: the second heaviest goes too.
  t = launch::pool_turn(kPool, {}, waiting, weighing(20), 9, 1000, 2000);
  EXPECT_TRUE(t.go);
  EXPECT_EQ(t.ahead, 1);
  // Aged: the light unit that has waited five minutes goes before the heavy one.
  const long long later = 1000 + launch::kAgedMs;
  t = launch::pool_turn(kPool, running, waiting, weighing(1), 9, 500, later);
  EXPECT_TRUE(t.go);
  // Equal weights: the first come first, then the lower pid.
  const std::vector<launch::Reservation> alike{launch::waiting_entry(member(5, kPool, 10, 1000))};
  EXPECT_FALSE(launch::pool_turn(kPool, running, alike, weighing(10), 9, 1200, 2000).go);
  EXPECT_TRUE(launch::pool_turn(kPool, running, alike, weighing(10), 9, 900, 2000).go);
  EXPECT_TRUE(launch::pool_turn(kPool, running, alike, weighing(10), 4, 1000, 2000).go);
  // Another build's waiting units are not ahead of this one.
  const launch::CompilePool other{.jobs = 2, .id = "bbbb"};
  EXPECT_TRUE(
      launch::pool_turn(kPool, running, {launch::waiting_entry(member(5, other, 90, 0))}, weighing(1), 9, 1000, 2000)
          .go);
}

// A heavier unit whose turn has come but which waits for memory does not hold the slot: a lighter
// unit that fits takes it (as under the governor alone) rather than leave a core idle.
TEST(CompilePool, AUnitWaitingForMemoryIsNoOnesAhead) {
  const std::vector<launch::Reservation> running{member(1, kPool)};
  auto heavy = launch::waiting_entry(member(5, kPool, 50, 1000));
  EXPECT_FALSE(launch::pool_turn(kPool, running, {heavy}, weighing(20), 9, 1000, 2000).go);
  // Through the ledger, as kiln exec marks it.
  struct Marks : launch::Ledger {
    std::optional<bool> try_reserve(const launch::Reservation&,
                                    const std::function<bool(const std::vector<launch::Reservation>&)>&) override {
      return false;
    }
    void release(long) override {}
    launch::Reservation entry() const { return *waiting_entry_; }
  } marks;
  launch::waits_for(marks, heavy, launch::PoolWait::memory);
  EXPECT_TRUE(launch::pool_turn(kPool, running, {marks.entry()}, weighing(20), 9, 1000, 2000).go);
  launch::waits_for(marks, marks.entry(), launch::PoolWait::slot);
  EXPECT_FALSE(launch::pool_turn(kPool, running, {marks.entry()}, weighing(20), 9, 1000, 2000).go);
}

// The file ledger keeps a waiting compile's entry apart from the running ones: it reserves no
// memory, the others see it in waiting(), and a reservation replaces it once admitted.
TEST(CompilePool, TheFileLedgerKeepsWaitingEntriesApart) {
  OneWaiting w("kiln-ledger-pool");
  auto seen = admitted_beside(*w.b, 42);
  EXPECT_TRUE(seen.empty()) << "a waiting entry is not a running compile";
  ASSERT_EQ(w.b->waiting().size(), 1u);
  EXPECT_EQ(w.b->waiting()[0].pid, 41);
  EXPECT_EQ(w.b->waiting()[0].kib, 0u);
  EXPECT_EQ(launch::work_of(w.b->waiting()[0]).estimate, 30);
  // Admitted: its reservation replaces the waiting entry.
  seen = admitted_beside(*w.a, 41);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].pid, 42);
  EXPECT_TRUE(w.a->waiting().empty());
  seen = admitted_beside(*w.b, 42);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].pid, 41);
  EXPECT_FALSE(launch::is_waiting(seen[0]));
  EXPECT_EQ(seen[0].kib, 100u);
}

// Three extensions' Ninjas at -j 2 (a 2-core plan), each starting its two units at once, as
// pytorch_scatter's did: through the file ledger at most 2 compile at any time, every unit
// compiles, and each slot that frees goes to the heaviest unit then waiting. Without the pool all
// six ran at once.
TEST(CompilePool, SixUnitsOfThreeNinjasRunTwoAtATimeHeaviestFirst) {
  auto path = std::filesystem::temp_directory_path() / ("kiln-ledger-ninjas-" + std::to_string(::getpid()));
  std::filesystem::remove(path);
  io::FakeProcessTable procs;
  struct Unit {
    long pid;
    double weight;
    int seconds;
    int began = -1;
  };
  std::vector<Unit> units{{101, 10, 30}, {102, 60, 50}, {103, 30, 40}, {104, 20, 20}, {105, 50, 45}, {106, 5, 10}};
  std::map<long, launch::FileLedger> ledgers;
  for (auto& u : units) {
    procs.started[u.pid] = static_cast<std::uint64_t>(u.pid);
    ledgers.try_emplace(u.pid, path.string(), procs);
    auto entry = member(u.pid, kPool, u.weight, 0);
    ledgers.at(u.pid).wait_as(entry);
  }
  std::vector<std::pair<double, double>> order;  // (weight of the unit admitted, heaviest then waiting)
  int most = 0;
  for (int now = 0; now < 400; ++now) {
    for (auto& u : units)  // compiles that ended leave the ledger
      if (u.began >= 0 && now == u.began + u.seconds) ledgers.at(u.pid).release(u.pid);
    for (auto& u : units) {
      if (u.began >= 0) continue;
      double heaviest = 0;
      for (const auto& o : units)
        if (o.began < 0) heaviest = std::max(heaviest, o.weight);
      auto& ledger = ledgers.at(u.pid);
      auto r = ledger.try_reserve_decided(
          u.pid, [&](const std::vector<launch::Reservation>& running) -> std::optional<launch::Reservation> {
            const auto turn =
                launch::pool_turn(kPool, running, ledger.waiting(), weighing(u.weight), u.pid, 0, now * 1000LL);
            if (!turn.go) return std::nullopt;
            return member(u.pid, kPool);
          });
      ASSERT_TRUE(r) << ledger.error();
      if (!*r) continue;
      u.began = now;
      if (now > 0) order.emplace_back(u.weight, heaviest);  // at 0 the first to come take the slots
    }
    int at_once = 0;
    for (const auto& u : units) at_once += u.began >= 0 && now < u.began + u.seconds;
    most = std::max(most, at_once);
  }
  EXPECT_EQ(most, 2);
  EXPECT_EQ(order.size(), 4u);
  for (const auto& u : units) EXPECT_GE(u.began, 0) << u.pid << " never compiled";
  for (const auto& [w, heaviest] : order) EXPECT_EQ(w, heaviest) << "a lighter unit took a slot first";
  std::filesystem::remove(path);
}

// A compile killed while it waited (Ctrl-C, a stopped Ninja) leaves an entry whose process is gone:
// the next compile drops it, as it drops a dead reservation.
TEST(CompilePool, AWaitingEntryOfAKilledCompileIsDropped) {
  OneWaiting w("kiln-ledger-killed");
  w.procs.started.erase(41);
  ASSERT_TRUE(w.b->try_reserve(member(42, kPool), [](const auto&) { return true; }));
  EXPECT_TRUE(w.b->waiting().empty());
}

// A compile far back in the queue tries less often (each try holds the ledger's lock and reads every
// entry): 200 compiles waiting for 8 slots, each trying every 200 ms, held the lock past its 5 s
// limit and 27 of them compiled without the governor; pausing by their place, none.
TEST(CompilePool, AUnitFarBackInTheQueueTriesLessOften) {
  const launch::CompilePool pool{.jobs = 8, .id = "aaaa"};
  using std::chrono::milliseconds;
  EXPECT_EQ(launch::pool_pause(pool, {.go = true, .taken = 3, .ahead = 0}), launch::kPoolPoll);
  // The next in line once a slot frees: the shortest pause.
  EXPECT_EQ(launch::pool_pause(pool, {.go = false, .taken = 8, .ahead = 0}), launch::kPoolPoll);
  EXPECT_EQ(launch::pool_pause(pool, {.go = false, .taken = 8, .ahead = 4}), 5 * launch::kPoolPoll);
  // Two slots free, five ahead: four slots must free before its turn.
  EXPECT_EQ(launch::pool_pause(pool, {.go = false, .taken = 6, .ahead = 5}), 4 * launch::kPoolPoll);
  EXPECT_EQ(launch::pool_pause(pool, {.go = false, .taken = 8, .ahead = 300}), launch::kPoolPollMost);
}

// Any local process can write the ledger: a waiting entry's `since` from before the epoch counts as
// waiting since the epoch (aged: it goes first), one from the future as waiting since now, and
// neither makes `now - since` overflow.
TEST(CompilePool, AWaitingEntrysTimeIsTakenWithinTheEpochAndNow) {
  const long long now = 10 * launch::kAgedMs;
  auto forged = member(43, kPool, 10);
  forged.extra.erase(std::remove_if(forged.extra.begin(), forged.extra.end(),
                                    [](const auto& kv) { return kv.first == launch::kPoolSinceField; }),
                     forged.extra.end());
  auto with_since = [&](const std::string& since) {
    auto r = forged;
    r.extra.emplace_back(launch::kPoolSinceField, since);
    return r;
  };
  // Mine: heavier (30 against 10), waiting since just now.
  const auto past = launch::pool_turn(kPool, {}, {with_since("-9223372036854775807")}, weighing(30), 41, now, now);
  EXPECT_EQ(past.ahead, 1);  // aged: before a heavier unit that is not
  const auto future = launch::pool_turn(kPool, {}, {with_since("9223372036854775807")}, weighing(30), 41, now, now);
  EXPECT_EQ(future.ahead, 0);  // waiting since now, and lighter
  const auto junk = launch::pool_turn(kPool, {}, {with_since("soon")}, weighing(30), 41, now, now);
  EXPECT_EQ(junk.ahead, 0);
}
