#include "io/child_stop.hpp"

#include <signal.h>

#include <atomic>

namespace kiln::io {
namespace {

std::atomic<int> g_stopped{0};
std::atomic<int> g_child{0};
std::atomic<int> g_build_stop{0};

}  // namespace

void stop_children(int sig) {
  g_stopped.store(sig);
  if (const int pid = g_child.load(); pid > 0) ::kill(pid, sig);
}

void allow_children() { g_stopped.store(0); }

int children_stopped() { return g_stopped.load(); }

void note_build_stop(int sig) { g_build_stop.store(sig); }
int build_stop() { return g_build_stop.load(); }

void note_running_child(int pid) {
  g_child.store(pid);
  if (const int sig = g_stopped.load(); sig && pid > 0) ::kill(pid, sig);
}

}  // namespace kiln::io
