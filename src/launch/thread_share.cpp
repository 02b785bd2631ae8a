#include "launch/thread_share.hpp"

#include <algorithm>
#include <vector>

namespace kiln::launch {

int running_thread_nice(int base, int share, int running, const PriorityPolicy& policy) {
  return std::clamp(base + share + nice_levels(std::max(1, running), policy), -20, 19);
}

int share_tick(io::TaskTable& tasks, long root, int base, int share, const PriorityPolicy& policy) {
  // The tree, bounded: a compiler driver's stages are a handful of processes.
  std::vector<long> procs{root};
  for (size_t i = 0; i < procs.size() && procs.size() < 256; ++i)
    for (long c : tasks.children(procs[i])) procs.push_back(c);
  std::vector<io::TaskState> all;
  int running = 0;
  for (long p : procs)
    for (const auto& t : tasks.threads(p)) {
      all.push_back(t);
      if (t.state == 'R') ++running;
    }
  if (running == 0) return 0;  // all asleep (waiting on a pipe, a disk): nothing to weigh
  const int nice = running_thread_nice(base, share, running, policy);
  for (const auto& t : all)
    if (t.nice != nice) tasks.set_nice(t.tid, nice);  // a thread gone meanwhile: ignored
  return running;
}

ShareWatch::ShareWatch(io::TaskTable& tasks, int base, int share, PriorityPolicy policy,
                       std::chrono::milliseconds period)
    : tasks_(tasks), base_(base), share_(share), policy_(policy), period_(period) {}

ShareWatch::~ShareWatch() { stop(); }

void ShareWatch::start(long root) {
  if (thread_.joinable()) return;
  thread_ = std::thread([this, root] {
    std::unique_lock lock(m_);
    while (!stopping_) {
      lock.unlock();
      const int running = share_tick(tasks_, root, base_, share_, policy_);
      lock.lock();
      most_running_ = std::max(most_running_, running);
      cv_.wait_for(lock, period_, [this] { return stopping_; });
    }
  });
}

void ShareWatch::stop() {
  {
    std::lock_guard lock(m_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

}  // namespace kiln::launch
