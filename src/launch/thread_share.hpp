#pragma once
// One CPU weight per compile, shared among the threads it runs at each moment. Linux weighs each
// thread by its own nice, so a compile in a serial phase (its front end, the one long part of an
// nvcc split, its host compile) gets one thread's share beside the split threads of the others:
// on the GPU host mamba's complex-valued backward units, tied with the real-valued ones on a
// first build, spent 50-54 s in cicc and 18 s in ptxas inside the build against 38 s and 12 s
// alone, and ended 19 s after everything else while 12 of 16 cores idled. The kernel's own way,
// a cgroup or autogroup per compile, is not available inside a container's cgroup (the GPU host's
// included), so `kiln exec` does it itself: every `period` it counts the compile's running threads
// (state R, all processes under it) and sets each thread's nice to the compile's share nice
// (unit_priority share_nice: its granted threads at its priority, as one thread) plus
// log_step(running): n threads of one compile then weigh together what one thread of it would.
// Lowering a thread's nice again needs root or an RLIMIT_NICE that allows it
// (io::can_lower_nice); kiln build --cpu-share turns this on only then (off by default).
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

#include "io/task_table.hpp"
#include "launch/unit_priority.hpp"

namespace kiln::launch {

// The nice of each of `running` threads of a compile whose share, on one thread, is `share`
// (relative to `base`, the launcher's own nice): base + share + log_step(running), within -20..19.
int running_thread_nice(int base, int share, int running, const PriorityPolicy& policy);

// One look at the tree under `root`: counts its running threads and sets every thread's nice to
// what running_thread_nice gives for that count, where it differs. Returns the running count.
int share_tick(io::TaskTable& tasks, long root, int base, int share, const PriorityPolicy& policy);

// A thread beside the compile that calls share_tick every `period` until stop() (or destruction),
// which returns at once: the wait is on a condition variable, not a sleep.
class ShareWatch {
public:
  ShareWatch(io::TaskTable& tasks, int base, int share, PriorityPolicy policy,
             std::chrono::milliseconds period = std::chrono::milliseconds(250));
  ~ShareWatch();
  void start(long root);
  void stop();
  int most_running() const { return most_running_; }  // the most running threads seen at once

private:
  io::TaskTable& tasks_;
  int base_, share_;
  PriorityPolicy policy_;
  std::chrono::milliseconds period_;
  std::mutex m_;
  std::condition_variable cv_;
  bool stopping_ = false;
  int most_running_ = 0;
  std::thread thread_;
};

}  // namespace kiln::launch
