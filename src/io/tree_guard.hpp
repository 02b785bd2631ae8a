#pragma once
// A guard that kills a child's whole process tree when its parent dies, however it dies (SIGKILL
// included, which no handler sees). The parent holds the write end of a pipe; the guard, a forked
// process, blocks reading it. A byte means "finished normally, exit"; end-of-file means the parent
// is gone, and the guard freezes (SIGSTOP) the child and its descendants, looks again until no new
// one appears, then SIGKILLs them all. PR_SET_PDEATHSIG would reach only the direct child, not the
// cc1plus / cicc / ptxas under a compiler driver or ccache.
#include <sys/types.h>

#include <cstddef>
#include <string>
#include <vector>

namespace kiln::io {

class TreeGuard {
public:
  // Forks the guard for `child`. Call right after spawning it, from a single-threaded process.
  explicit TreeGuard(pid_t child);
  ~TreeGuard();  // tells the guard the child finished, and reaps it
  bool active() const { return guard_ > 0; }
  pid_t pid() const { return guard_; }

private:
  pid_t guard_ = -1;
  int write_fd_ = -1;
};

// A file descriptor every guard started from now on keeps open until the tree it guards is dead:
// the build folder's lock (drive/build_lock), so that a second build cannot take the folder while
// compiles of a killed one still run. -1: none.
void keep_in_guards(int fd);

// The pids under `root` (not `root` itself) given parallel pid / parent-pid arrays from /proc.
// Exposed for tests; allocation-free so the guard can call it after fork.
size_t descendants(pid_t root, const pid_t* pids, const pid_t* ppids, size_t n, pid_t* out, size_t cap);

// SIGKILLs every process under `root` (and `root` itself when asked), freezing them with SIGSTOP
// first so none forks away. Allocation-free: safe after fork and in a signal handler. Returns
// how many it killed.
int kill_tree(pid_t root, bool include_root);

// After a step's process ended: SIGKILLs what its tree left behind, which a subreaper (kiln during
// a build, io/interrupt) finds among its own children: the compiles of a Ninja or a backend killed
// by SIGKILL or the OOM killer (issue 34, case 5: they ran on after kiln exited and freed the build
// lock). Every child of this process but `except` (the step's own guard) is such an orphan, since
// a build runs one step at a time. Waits (bounded, 5 s) until they are reaped; returns how many.
int kill_orphans(pid_t except);

// The parent pid in a /proc/PID/stat line (field 4), 0 when malformed. Allocation-free.
pid_t parse_stat_ppid(const char* stat, size_t len);

}  // namespace kiln::io
