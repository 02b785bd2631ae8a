// Admission logic with a fake clock and an in-memory ledger.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "fakes/process_table.hpp"
#include "fakes/clock.hpp"
#include "launch/governor.hpp"

using namespace kiln;
using namespace std::chrono_literals;

namespace {

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Other compiles finish after a given time on the fake clock.
struct FakeLedger : launch::Ledger {
  io::FakeClock& clock;
  struct Entry {
    launch::Reservation r;
    std::chrono::steady_clock::time_point ends;
  };
  std::vector<Entry> running;
  bool broken = false;
  explicit FakeLedger(io::FakeClock& c) : clock(c) {}
  std::optional<bool> try_reserve(const launch::Reservation& mine,
                                  const std::function<bool(const std::vector<launch::Reservation>&)>& admit) override {
    if (broken) return std::nullopt;
    std::vector<launch::Reservation> live;
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
  EXPECT_TRUE(launch::admits({}, 10'000'000, 1'000));  // alone, even over budget
  EXPECT_TRUE(launch::admits({{1, 400}, {2, 300}}, 300, 1'000));
  EXPECT_FALSE(launch::admits({{1, 400}, {2, 300}}, 301, 1'000));
}

launch::Reservation res(long pid, std::uint64_t kib, std::uint64_t start = 0) {
  launch::Reservation r;
  r.pid = pid, r.kib = kib, r.start = start;
  return r;
}

TEST(Governor, WaitsUntilRunningCompilesFinish) {
  io::FakeClock clock;
  FakeLedger ledger(clock);
  ledger.running.push_back({res(100, 600), clock.now() + 1000ms});
  ledger.running.push_back({res(101, 300), clock.now() + 3000ms});
  auto g = launch::acquire(ledger, clock, 7, 500, 1000, 200ms);
  EXPECT_TRUE(g.governed);
  EXPECT_EQ(g.waited, 1000ms);  // admitted once the 600 KiB compile ended: 300 + 500 <= 1000
  ASSERT_EQ(ledger.running.size(), 2u);
  ledger.release(7);
  EXPECT_EQ(ledger.running.size(), 1u);
}

TEST(Governor, GivesUpWaitingAfterTheLimitButStillRuns) {
  io::FakeClock clock;
  FakeLedger ledger(clock);
  ledger.running.push_back({res(100, 900), std::chrono::steady_clock::time_point::max()});
  auto g = launch::acquire(ledger, clock, 7, 500, 1000, 1s, 10s);
  EXPECT_TRUE(g.governed);
  EXPECT_EQ(g.waited, 10s);
  EXPECT_NE(g.warning.find("waited 10 s for memory or a slot of the build's pool, the limit"), std::string::npos)
      << g.warning;
  // Decided reservations (the thread grants, the pool) too.
  launch::Reservation decided;
  g = launch::acquire_decided(
      ledger, clock, 8, [](const auto&) -> std::optional<launch::Reservation> { return std::nullopt; }, {8, 100},
      decided, 1s, 10s);
  EXPECT_TRUE(g.governed);
  EXPECT_EQ(decided.kib, 100u);
  EXPECT_NE(g.warning.find("the limit: compiling anyway"), std::string::npos) << g.warning;
}

TEST(Governor, BrokenLedgerRunsUngoverned) {
  io::FakeClock clock;
  FakeLedger ledger(clock);
  ledger.broken = true;
  auto g = launch::acquire(ledger, clock, 7, 500, 1000);
  EXPECT_FALSE(g.governed);
  EXPECT_NE(g.warning.find("compiling without a reservation"), std::string::npos) << g.warning;
}

TEST(Governor, FileLedgerDropsDeadProcessesAndReleases) {
  auto path = std::filesystem::temp_directory_path() / ("kiln-ledger-" + std::to_string(::getpid()));
  std::filesystem::remove(path);
  io::FakeProcessTable procs;
  procs.started = {{42, 1000}, {43, 2000}};
  launch::FileLedger ledger(path.string(), procs);
  // A reservation of a pid that does not exist is dropped on the next reservation.
  {
    std::FILE* f = std::fopen(path.c_str(), "w");
    std::fputs("pid=999999999 kib=5000000 start=7\n", f);
    std::fclose(f);
  }
  auto r =
      ledger.try_reserve(res(42, 100, 1000), [](const std::vector<launch::Reservation>& live) { return live.empty(); });
  ASSERT_TRUE(r);
  EXPECT_TRUE(*r);
  auto again = ledger.try_reserve(res(43, 100, 2000), [](const std::vector<launch::Reservation>& live) {
    return live.size() == 1 && live[0].kib == 100;  // our own reservation is visible to others
  });
  ASSERT_TRUE(again);
  EXPECT_TRUE(*again);
  ledger.release(42);
  ledger.release(43);
  auto third =
      ledger.try_reserve(res(42, 1, 1000), [](const std::vector<launch::Reservation>& live) { return live.empty(); });
  EXPECT_TRUE(third.value());
  std::filesystem::remove(path);
}

TEST(Governor, LedgerLinesKeepFieldsOfLaterVersionsAndReadTheFirstFormat) {
  auto rs = launch::parse_ledger("pid=5 kib=100 start=77 threads=4 cores=2\n12 300\ngarbage\npid=x kib=1\n");
  ASSERT_EQ(rs.size(), 2u);
  EXPECT_EQ(rs[0].pid, 5);
  EXPECT_EQ(rs[0].start, 77u);
  EXPECT_EQ(rs[0].threads, 4);
  EXPECT_EQ(rs[0].field("cores"), "2");  // a field of a later version, kept
  EXPECT_EQ(rs[1].pid, 12);
  EXPECT_EQ(rs[1].kib, 300u);
  EXPECT_EQ(rs[1].start, 0u);  // no start time: stale
  EXPECT_EQ(launch::format_ledger({rs[0]}), "pid=5 kib=100 start=77 threads=4 until=0 cores=2\n");
}

// The stall: an entry whose pid is alive but not the compile that wrote it (the pid was
// reused, or the line names pid 1) held every compile back for up to 30 minutes.
TEST(Governor, ReusedOrMadeUpPidsDoNotHoldTheBudget) {
  io::FakeProcessTable procs;
  procs.started = {{1, 5}, {300, 9000}, {7, 123}};
  EXPECT_FALSE(launch::holds(res(300, 1, 8000), procs));  // pid 300 now belongs to a later process
  EXPECT_FALSE(launch::holds(res(1, 1, 0), procs));       // no start time recorded
  EXPECT_FALSE(launch::holds(res(4242, 1, 5), procs));    // gone
  EXPECT_TRUE(launch::holds(res(300, 1, 9000), procs));

  auto path = std::filesystem::temp_directory_path() / ("kiln-ledger-reuse-" + std::to_string(::getpid()));
  {
    std::FILE* f = std::fopen(path.c_str(), "w");
    std::fputs("pid=300 kib=900 start=8000\npid=1 kib=900 start=1\n1 900\n", f);
    std::fclose(f);
  }
  launch::FileLedger ledger(path.string(), procs);
  io::FakeClock clock;
  auto g = launch::acquire(ledger, clock, 7, 500, 1000, 1s, 30min);
  EXPECT_TRUE(g.governed);
  EXPECT_EQ(g.waited, 0ms);
  EXPECT_EQ(launch::parse_ledger(slurp(path)).size(), 1u);  // the stale lines were cleared
  std::filesystem::remove(path);
}

// The hang: `kiln exec` waited forever while another process held the ledger lock.
TEST(Governor, AHeldLockTimesOutAndTheCompileRunsWithAWarning) {
  auto path = std::filesystem::temp_directory_path() / ("kiln-ledger-lock-" + std::to_string(::getpid()));
  int holder = ::open(path.c_str(), O_RDWR | O_CREAT, 0644);
  ASSERT_GE(holder, 0);
  ASSERT_EQ(::flock(holder, LOCK_EX), 0);
  io::FakeProcessTable procs;
  launch::FileLedger ledger(path.string(), procs, 150ms);
  io::FakeClock clock;
  const auto t0 = std::chrono::steady_clock::now();
  auto g = launch::acquire(ledger, clock, 7, 500, 1000);
  const auto took = std::chrono::steady_clock::now() - t0;
  EXPECT_FALSE(g.governed);
  EXPECT_GE(took, 150ms);
  EXPECT_LT(took, 5s);
  EXPECT_NE(g.warning.find("was held for more than 150 ms"), std::string::npos) << g.warning;
  ::close(holder);
  std::filesystem::remove(path);
}

TEST(Governor, ProcStatStartTimeAndTheRealProcessTable) {
  EXPECT_EQ(io::parse_proc_stat_start("42 (a) b) c) S 1 42 42 0 -1 4194560 100 0 0 0 0 0 0 0 20 0 1 0 987654 1000 10"),
            987654u);
  EXPECT_EQ(io::parse_proc_stat_start("42 (x) S 1"), std::nullopt);
  const auto& procs = io::system_processes();
  auto mine = procs.start_time(::getpid());
  ASSERT_TRUE(mine);
  EXPECT_GT(*mine, 0u);
  EXPECT_EQ(procs.start_time(::getpid()), mine);  // stable
  EXPECT_EQ(procs.start_time(0), std::nullopt);
  EXPECT_EQ(procs.start_time(999999999), std::nullopt);
}

TEST(Governor, LedgerLinesCarryThreadsAndReadOldLines) {
  auto rs = launch::parse_ledger("10 500\n11 600 4 1700000000000\nbad line\n12 700 0 -5\n");
  ASSERT_EQ(rs.size(), 3u);
  EXPECT_EQ(rs[0].threads, 1);  // an older kiln's "pid kib"
  EXPECT_EQ(rs[0].until_ms, 0);
  EXPECT_EQ(rs[1].threads, 4);
  EXPECT_EQ(rs[1].until_ms, 1700000000000LL);
  EXPECT_EQ(rs[2].threads, 1);  // nonsense clamps, never a crash
  EXPECT_EQ(rs[2].until_ms, 0);
  EXPECT_EQ(launch::parse_ledger(launch::format_ledger(rs))[1].threads, 4);
}

TEST(Governor, DecidedReservationIsWhatTheLedgerHolds) {
  io::FakeClock clock;
  FakeLedger ledger(clock);
  ledger.running.push_back({{100, 600}, clock.now() + 1000ms});
  launch::Reservation decided;
  // Wait while anything runs, then reserve 3 threads.
  auto g = launch::acquire_decided(
      ledger, clock, 7,
      [](const std::vector<launch::Reservation>& live) -> std::optional<launch::Reservation> {
        if (!live.empty()) return std::nullopt;
        return launch::Reservation{7, 900, 3, 0};
      },
      {7, 100}, decided, 200ms, 10s);
  EXPECT_TRUE(g.governed);
  EXPECT_EQ(g.waited, 1000ms);
  ASSERT_EQ(ledger.running.size(), 1u);
  EXPECT_EQ(ledger.running[0].r.kib, 900u);
  EXPECT_EQ(ledger.running[0].r.threads, 3);
  EXPECT_EQ(decided.threads, 3);
}

// Issue 23: a forged entry of 2^64-1 KiB must not wrap the sum and let everything in.
TEST(Governor, AForgedHugeEntryDoesNotWrapTheSum) {
  const std::uint64_t max = ~std::uint64_t{0};
  EXPECT_FALSE(launch::admits({{1, max}}, 1, 1'000));
  EXPECT_FALSE(launch::admits({{1, max}, {2, 2}}, 1, 1'000));
  EXPECT_FALSE(launch::admits({{1, 500}}, max, 1'000));
  EXPECT_FALSE(launch::admits({{1, max / 2 + 1}, {2, max / 2 + 1}}, 0, max));
  EXPECT_TRUE(launch::admits({{1, 999}}, 1, 1'000));
}

// Issue 23: a huge ledger is read up to a bound, not whole (a 1 GiB ledger cost 6 GiB of RSS), and
// the reservation still goes through: the surplus is rewritten away.
TEST(Governor, AHugeLedgerIsReadOnlyUpToABound) {
  auto path = std::filesystem::temp_directory_path() / ("kiln-ledger-huge-" + std::to_string(::getpid()));
  {
    std::ofstream f(path);
    const std::string line = "pid=999999999 kib=1 start=7 pad=" + std::string(200, 'x') + "\n";
    for (int i = 0; i < 200'000; ++i) f << line;  // about 45 MB
  }
  io::FakeProcessTable procs;
  procs.started = {{42, 1000}};
  launch::FileLedger ledger(path.string(), procs);
  size_t seen = 0;
  auto r = ledger.try_reserve(res(42, 100, 1000), [&](const std::vector<launch::Reservation>& live) {
    seen = live.size();
    return true;
  });
  ASSERT_TRUE(r) << ledger.error();
  EXPECT_TRUE(*r);
  EXPECT_EQ(seen, 0u);                                 // all stale
  EXPECT_LT(std::filesystem::file_size(path), 1000u);  // rewritten to the one live entry
  std::filesystem::remove(path);
}

// Issue 23: the ledger's folder is made on first use (the machine-wide place), and a link in the
// ledger's place is not followed.
TEST(Governor, TheLedgerFolderIsMadeAndALinkIsNotFollowed) {
  auto dir = std::filesystem::temp_directory_path() / ("kiln-ledger-dir-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  io::FakeProcessTable procs;
  procs.started = {{42, 1000}};
  launch::FileLedger ledger((dir / "ledger-x").string(), procs);
  auto r = ledger.try_reserve(res(42, 100, 1000), [](const std::vector<launch::Reservation>&) { return true; });
  ASSERT_TRUE(r) << ledger.error();
  EXPECT_EQ(std::filesystem::status(dir).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_all);
  std::filesystem::remove(dir / "ledger-x");
  std::filesystem::create_symlink(dir / "elsewhere", dir / "ledger-x");
  EXPECT_FALSE(ledger.try_reserve(res(42, 100, 1000), [](const std::vector<launch::Reservation>&) { return true; }));
  EXPECT_FALSE(std::filesystem::exists(dir / "elsewhere"));
  EXPECT_NE(ledger.error().find("cannot open"), std::string::npos) << ledger.error();
  std::filesystem::remove_all(dir);
}

// Issue 23: two builds, each with --mem-budget 3G, sharing the machine's ledger reserve at most 3G
// together (with a ledger per build folder they reserved 5 GiB).
TEST(Governor, TwoBuildsWithTheSameBudgetShareIt) {
  auto path = std::filesystem::temp_directory_path() / ("kiln-ledger-shared-" + std::to_string(::getpid()));
  std::filesystem::remove(path);
  io::FakeProcessTable procs;
  procs.started = {{41, 1}, {42, 2}, {43, 3}, {44, 4}};
  const std::uint64_t budget = 3ULL << 20, unit = 1ULL << 20;  // 3 GiB, 1 GiB per compile
  launch::FileLedger build_a(path.string(), procs), build_b(path.string(), procs);
  auto reserve = [&](launch::FileLedger& l, long pid) {
    return l
        .try_reserve(res(pid, unit, static_cast<std::uint64_t>(pid - 40)),
                     [&](const std::vector<launch::Reservation>& live) { return launch::admits(live, unit, budget); })
        .value();
  };
  EXPECT_TRUE(reserve(build_a, 41));
  EXPECT_TRUE(reserve(build_b, 42));
  EXPECT_TRUE(reserve(build_a, 43));
  EXPECT_FALSE(reserve(build_b, 44));  // 3 GiB are reserved: the fourth waits
  build_a.release(41);
  EXPECT_TRUE(reserve(build_b, 44));
  std::filesystem::remove(path);
}

// Issue 34, case 4: another local user made /tmp/kiln-UID (mode 0777) before the victim's first
// build and planted a reservation; the victim's build waited at "first steps running".
TEST(Governor, AnotherUsersProcessDoesNotHoldTheBudget) {
  io::FakeProcessTable procs;
  procs.started = {{300, 9000}, {301, 9001}};
  procs.owners = {{300, static_cast<unsigned>(::getuid()) + 1}, {301, static_cast<unsigned>(::getuid())}};
  EXPECT_FALSE(launch::holds(res(300, 1, 9000), procs));
  EXPECT_TRUE(launch::holds(res(301, 1, 9001), procs));
  // The real table reads the owner of /proc/PID.
  EXPECT_EQ(io::system_processes().owner(::getpid()), static_cast<unsigned>(::getuid()));
  EXPECT_FALSE(io::system_processes().owner(0));
}

// The pause between tries can come from the decision (a compile far back in its pool's queue).
TEST(Governor, ThePauseBetweenTriesCanComeFromTheDecision) {
  io::FakeClock clock;
  FakeLedger ledger(clock);
  ledger.running.push_back({{100, 600}, clock.now() + 1000ms});
  launch::Reservation decided;
  int tries = 0;
  auto g = launch::acquire_decided(
      ledger, clock, 7,
      [&](const std::vector<launch::Reservation>& live) -> std::optional<launch::Reservation> {
        ++tries;
        if (!live.empty()) return std::nullopt;
        return launch::Reservation{7, 100, 1, 0};
      },
      {7, 100}, decided, 200ms, 10s, [] { return 700ms; });
  EXPECT_TRUE(g.governed);
  EXPECT_EQ(g.waited, 1400ms);  // tries at 0, 700 and 1400 ms, not every 200 ms
  EXPECT_EQ(tries, 3);
}
