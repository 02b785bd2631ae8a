// Admission logic with a fake clock and an in-memory ledger.
#include <gtest/gtest.h>

#include <filesystem>

#include "run/governor.hpp"

using namespace kiln;
using namespace std::chrono_literals;

namespace {

// Other compiles finish after a given time on the fake clock.
struct FakeLedger : run::Ledger {
  io::FakeClock& clock;
  struct Entry {
    run::Reservation r;
    std::chrono::steady_clock::time_point ends;
  };
  std::vector<Entry> running;
  bool broken = false;
  explicit FakeLedger(io::FakeClock& c) : clock(c) {}
  std::optional<bool> try_reserve(const run::Reservation& mine,
                                  const std::function<bool(const std::vector<run::Reservation>&)>& admit) override {
    if (broken) return std::nullopt;
    std::vector<run::Reservation> live;
    std::erase_if(running, [&](const Entry& e) { return e.ends <= clock.now(); });
    for (const auto& e : running) live.push_back(e.r);
    if (!admit(live)) return false;
    running.push_back({mine, std::chrono::steady_clock::time_point::max()});
    return true;
  }
  void release(long pid) override {
    std::erase_if(running, [&](const Entry& e) { return e.r.pid == pid; });
  }
};

}  // namespace

TEST(Governor, AdmitRule) {
  EXPECT_TRUE(run::admits({}, 10'000'000, 1'000));  // alone, even over budget
  EXPECT_TRUE(run::admits({{1, 400}, {2, 300}}, 300, 1'000));
  EXPECT_FALSE(run::admits({{1, 400}, {2, 300}}, 301, 1'000));
}

TEST(Governor, WaitsUntilRunningCompilesFinish) {
  io::FakeClock clock;
  FakeLedger ledger(clock);
  ledger.running.push_back({{100, 600}, clock.now() + 1000ms});
  ledger.running.push_back({{101, 300}, clock.now() + 3000ms});
  auto g = run::acquire(ledger, clock, 7, 500, 1000, 200ms);
  EXPECT_TRUE(g.governed);
  EXPECT_EQ(g.waited, 1000ms);  // admitted once the 600 KiB compile ended: 300 + 500 <= 1000
  ASSERT_EQ(ledger.running.size(), 2u);
  ledger.release(7);
  EXPECT_EQ(ledger.running.size(), 1u);
}

TEST(Governor, GivesUpWaitingAfterTheLimitButStillRuns) {
  io::FakeClock clock;
  FakeLedger ledger(clock);
  ledger.running.push_back({{100, 900}, std::chrono::steady_clock::time_point::max()});
  auto g = run::acquire(ledger, clock, 7, 500, 1000, 1s, 10s);
  EXPECT_TRUE(g.governed);
  EXPECT_EQ(g.waited, 10s);
}

TEST(Governor, BrokenLedgerRunsUngoverned) {
  io::FakeClock clock;
  FakeLedger ledger(clock);
  ledger.broken = true;
  auto g = run::acquire(ledger, clock, 7, 500, 1000);
  EXPECT_FALSE(g.governed);
}

TEST(Governor, FileLedgerDropsDeadProcessesAndReleases) {
  auto path = std::filesystem::temp_directory_path() / ("kiln-ledger-" + std::to_string(::getpid()));
  std::filesystem::remove(path);
  run::FileLedger ledger(path.string());
  const long me = ::getpid();
  // A reservation of a pid that cannot exist is dropped on the next reservation.
  {
    std::FILE* f = std::fopen(path.c_str(), "w");
    std::fputs("999999999 5000000\n", f);
    std::fclose(f);
  }
  auto r = ledger.try_reserve({me, 100}, [](const std::vector<run::Reservation>& live) { return live.empty(); });
  ASSERT_TRUE(r);
  EXPECT_TRUE(*r);
  auto again = ledger.try_reserve({1, 100}, [](const std::vector<run::Reservation>& live) {
    return live.size() == 1 && live[0].kib == 100;  // our own reservation is visible to others
  });
  ASSERT_TRUE(again);
  EXPECT_TRUE(*again);
  ledger.release(me);
  ledger.release(1);
  auto third = ledger.try_reserve({me, 1}, [](const std::vector<run::Reservation>& live) { return live.empty(); });
  EXPECT_TRUE(third.value());
  std::filesystem::remove(path);
}

TEST(Governor, LedgerLinesCarryThreadsAndReadOldLines) {
  auto rs = run::parse_ledger("10 500\n11 600 4 1700000000000\nbad line\n12 700 0 -5\n");
  ASSERT_EQ(rs.size(), 3u);
  EXPECT_EQ(rs[0].threads, 1);  // an older kiln's "pid kib"
  EXPECT_EQ(rs[0].until_ms, 0);
  EXPECT_EQ(rs[1].threads, 4);
  EXPECT_EQ(rs[1].until_ms, 1700000000000LL);
  EXPECT_EQ(rs[2].threads, 1);  // nonsense clamps, never a crash
  EXPECT_EQ(rs[2].until_ms, 0);
  EXPECT_EQ(run::parse_ledger(run::format_ledger(rs))[1].threads, 4);
}

TEST(Governor, DecidedReservationIsWhatTheLedgerHolds) {
  io::FakeClock clock;
  FakeLedger ledger(clock);
  ledger.running.push_back({{100, 600}, clock.now() + 1000ms});
  run::Reservation decided;
  // Wait while anything runs, then reserve 3 threads.
  auto g = run::acquire_decided(
      ledger, clock, 7,
      [](const std::vector<run::Reservation>& live) -> std::optional<run::Reservation> {
        if (!live.empty()) return std::nullopt;
        return run::Reservation{7, 900, 3, 0};
      },
      {7, 100}, decided, 200ms, 10s);
  EXPECT_TRUE(g.governed);
  EXPECT_EQ(g.waited, 1000ms);
  ASSERT_EQ(ledger.running.size(), 1u);
  EXPECT_EQ(ledger.running[0].r.kib, 900u);
  EXPECT_EQ(ledger.running[0].r.threads, 3);
  EXPECT_EQ(decided.threads, 3);
}
