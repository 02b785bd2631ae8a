#include "io/interrupt.hpp"

#include <dirent.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <thread>
#include <vector>

#include "io/child_stop.hpp"
#include "io/process.hpp"
#include "io/tree_guard.hpp"

namespace kiln::io {
namespace {

std::atomic<int> g_signal{0};
unsigned g_grace_s = 5;
std::atomic<int> g_alarm_killed{0};
std::atomic<bool> g_planning{false};
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGALRM};
struct sigaction g_old[4];
int g_was_subreaper = 0;  // restored on destruction: kiln is a subreaper only while a build runs

void on_stop(int sig) {
  int expected = 0;
  const bool first = g_signal.compare_exchange_strong(expected, sig);
  if (first) note_build_stop(sig);
  // The running tool's group: Ninja, which stops its jobs and waits for them; CMake and its tools.
  if (int pg = current_child_group(); pg > 0) ::kill(-pg, sig);
  if (g_planning.load()) stop_children(sig);
  if (first) ::alarm(g_grace_s);
}

// The grace is over and the tool has not returned (a job ignores the signal and Ninja waits for
// it): kill everything under kiln.
void on_alarm(int) {
  if (g_signal.load() != 0) g_alarm_killed += kill_tree(::getpid(), false);
}

// kiln's children now: pids whose parent is this process (orphans of the tree land here too).
std::vector<pid_t> children() {
  std::vector<pid_t> out;
  const pid_t me = ::getpid();
  DIR* d = ::opendir("/proc");
  if (!d) return out;
  while (dirent* e = ::readdir(d)) {
    char* end = nullptr;
    long pid = std::strtol(e->d_name, &end, 10);
    if (*end != '\0' || pid <= 0) continue;
    std::ifstream in("/proc/" + std::string(e->d_name) + "/stat");
    std::string stat;
    std::getline(in, stat);
    if (parse_stat_ppid(stat.data(), stat.size()) != me) continue;
    auto close = stat.rfind(')');
    if (close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'Z') continue;  // reaped next
    out.push_back(static_cast<pid_t>(pid));
  }
  ::closedir(d);
  return out;
}

}  // namespace

BuildInterrupts::BuildInterrupts(std::chrono::seconds grace) : grace_(grace) {
  g_signal = 0;
  note_build_stop(0);
  g_alarm_killed = 0;
  planning(false);
  g_grace_s = static_cast<unsigned>(std::max<long long>(1, grace.count()));
  g_was_subreaper = 0;
  ::prctl(PR_GET_CHILD_SUBREAPER, &g_was_subreaper);
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  for (int i = 0; i < 4; ++i) {
    struct sigaction sa {};
    sa.sa_handler = kSignals[i] == SIGALRM ? on_alarm : on_stop;
    sigemptyset(&sa.sa_mask);
    ::sigaction(kSignals[i], &sa, &g_old[i]);
  }
}

BuildInterrupts::~BuildInterrupts() {
  ::alarm(0);
  for (int i = 0; i < 4; ++i) ::sigaction(kSignals[i], &g_old[i], nullptr);
  ::prctl(PR_SET_CHILD_SUBREAPER, g_was_subreaper);
  planning(false);
}

void BuildInterrupts::planning(bool on) {
  g_planning.store(on);
  if (!on) allow_children();
}

int BuildInterrupts::received() { return g_signal.load(); }

BuildInterrupts::Settled BuildInterrupts::settle(std::chrono::milliseconds after_kill) const {
  Settled s;
  s.killed = g_alarm_killed.load();
  const auto t0 = std::chrono::steady_clock::now();
  bool killed = false;
  for (;;) {
    while (::waitpid(-1, nullptr, WNOHANG) > 0) {}
    auto left = children();
    const auto now = std::chrono::steady_clock::now();
    s.took = std::chrono::duration_cast<std::chrono::milliseconds>(now - t0);
    if (left.empty()) {
      s.clean = true;
      return s;
    }
    if (!killed && now - t0 >= grace_) {
      s.killed += kill_tree(::getpid(), false);
      killed = true;
    }
    if (now - t0 >= grace_ + after_kill) {
      s.left = static_cast<int>(left.size());
      return s;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

std::string signal_name(int sig) {
  switch (sig) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGHUP:
      return "SIGHUP";
    case SIGKILL:
      return "SIGKILL";
    default:
      return "signal " + std::to_string(sig);
  }
}

}  // namespace kiln::io
