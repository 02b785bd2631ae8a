// launch/thread_share: one CPU weight per compile, shared among the threads it runs at each moment.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <thread>

#include "io/process.hpp"
#include "fakes/task_table.hpp"
#include "launch/thread_share.hpp"

using namespace kiln;

namespace {
launch::PriorityPolicy policy() {
  return {.step = 1.25, .max_nice = 8, .max_nice_estimated = 4, .serial_fraction = 0.3};
}
}  // namespace

TEST(ThreadShare, NThreadsOfACompileWeighWhatOneWould) {
  // One running thread has the compile's whole share; n share it, log_1.25(n) levels each
  // (1.25^-levels x n = 1): 2 -> 3, 3 -> 5, 5 -> 7, 16 -> 12.
  EXPECT_EQ(launch::running_thread_nice(0, 5, 1, policy()), 5);
  EXPECT_EQ(launch::running_thread_nice(0, 5, 2, policy()), 8);
  EXPECT_EQ(launch::running_thread_nice(0, 5, 5, policy()), 12);
  EXPECT_EQ(launch::running_thread_nice(0, 0, 16, policy()), 12);
  // The launcher's own nice is the base; the kernel's range is the limit.
  EXPECT_EQ(launch::running_thread_nice(4, 5, 3, policy()), 14);
  EXPECT_EQ(launch::running_thread_nice(0, 17, 16, policy()), 19);
  EXPECT_EQ(launch::running_thread_nice(0, 3, 0, policy()), 3);  // none running counts as one
}

TEST(ThreadShare, ATickSetsEveryThreadOfTheTreeByTheRunningCount) {
  // nvcc (sleeping, waiting on its stage) -> cicc with five split threads, four of them running,
  // and an exited host stage's pid that lists no threads any more.
  io::FakeTaskTable t;
  t.kids[100] = {101, 102};
  t.tasks[100] = {{100, 'S', 0}};
  t.tasks[101] = {{101, 'R', 0}, {111, 'R', 0}, {112, 'R', 0}, {113, 'R', 0}, {114, 'S', 0}};
  EXPECT_EQ(launch::share_tick(t, 100, 0, 5, policy()), 4);
  // Four running: 5 + round(log_1.25 4 = 6.2) = 11, for every thread of the tree, asleep ones too
  // (they inherit it for what they start).
  for (const auto& [pid, ts] : t.tasks)
    for (const auto& th : ts) EXPECT_EQ(th.nice, 11) << th.tid;
  EXPECT_EQ(t.set.size(), 6u);
  // The split's short parts end: one running thread left, the long part, gets the whole share back.
  t.tasks[101] = {{101, 'S', 11}, {111, 'R', 11}};
  t.set.clear();
  EXPECT_EQ(launch::share_tick(t, 100, 0, 5, policy()), 1);
  EXPECT_EQ(t.tasks[101][1].nice, 5);
  // Nothing changes: nothing is set again.
  t.set.clear();
  launch::share_tick(t, 100, 0, 5, policy());
  EXPECT_TRUE(t.set.empty());
  // All asleep (a compile waiting on a disk): nothing to weigh, nothing set.
  t.tasks[101] = {{101, 'S', 5}, {111, 'D', 5}};
  EXPECT_EQ(launch::share_tick(t, 100, 0, 9, policy()), 0);
  EXPECT_TRUE(t.set.empty());
}

TEST(ThreadShare, TheWatchStopsAtOnceAndCountsTheMostRunning) {
  io::FakeTaskTable t;
  t.tasks[7] = {{7, 'R', 0}, {8, 'R', 0}};
  launch::ShareWatch w(t, 0, 2, policy(), std::chrono::hours(1));
  const auto start = std::chrono::steady_clock::now();
  w.start(7);
  while (t.set.empty() && std::chrono::steady_clock::now() - start < std::chrono::seconds(10))
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  w.stop();  // an hour's period, yet stop() returns now
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_EQ(w.most_running(), 2);
  EXPECT_EQ(t.tasks[7][0].nice, 5);  // 2 + round(log_1.25 2 = 3.1)
}

TEST(ThreadShare, TaskStatLinesAreReadAfterTheCommandName) {
  char state = '?';
  int nice = 0;
  ASSERT_TRUE(
      io::parse_task_stat("4242 (cicc (x) y) R 1 2 3 0 -1 4194304 10 0 0 0 50 3 0 0 25 5 4 0 123", state, nice));
  EXPECT_EQ(state, 'R');
  EXPECT_EQ(nice, 5);
  EXPECT_FALSE(io::parse_task_stat("4242 (cicc) R 1 2", state, nice));
  EXPECT_FALSE(io::parse_task_stat("no parenthesis", state, nice));
  EXPECT_FALSE(io::parse_task_stat("1 (a) R 1 2 3 0 -1 4194304 10 0 0 0 50 3 0 0 25 99 4", state, nice));
}

TEST(ThreadShare, TheSystemTableSeesAThreadAndSetsItsNice) {
  // This process: the test's own thread is running while it looks.
  io::SystemTaskTable t;
  const long me = static_cast<long>(::getpid());
  const auto threads = t.threads(me);
  ASSERT_FALSE(threads.empty());
  const long tid = static_cast<long>(::syscall(SYS_gettid));
  bool found = false;
  for (const auto& th : threads) found = found || (th.tid == tid && th.state == 'R');
  EXPECT_TRUE(found);
  // A child appears under its parent; raising its nice is always allowed, lowering it again only
  // where io::can_lower_nice says so.
  io::RealProcessRunner runner;
  std::atomic<long> child{0};
  io::ProcessSpec spec{.argv = {"/bin/sh", "-c", "sleep 0.5; cut -d' ' -f19 /proc/$$/stat"}};
  errno = 0;
  const int own = ::getpriority(PRIO_PROCESS, 0);
  if (own + 2 > 19) GTEST_SKIP() << "already at nice " << own;
  spec.on_start = [&](int pid) {
    child = pid;
    bool listed = false;
    for (long c : t.children(me)) listed = listed || c == pid;
    EXPECT_TRUE(listed);
    EXPECT_TRUE(t.set_nice(pid, own + 2));
    if (io::can_lower_nice()) EXPECT_TRUE(t.set_nice(pid, own + 1));
  };
  auto r = runner.run(spec);
  ASSERT_TRUE(r.ok()) << r.err;
  EXPECT_GT(child.load(), 0);
  EXPECT_EQ(std::stoi(r.out), io::can_lower_nice() ? own + 1 : own + 2);
}
