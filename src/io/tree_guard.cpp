#include "io/tree_guard.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <ctime>
#include <vector>

namespace kiln::io {

pid_t parse_stat_ppid(const char* stat, size_t len) {
  // "PID (comm) S PPID ...": the command may hold ") ", so search from the end.
  size_t close = len;
  while (close > 0 && stat[close - 1] != ')') --close;
  if (close == 0) return 0;
  size_t i = close;  // just past ')'
  while (i < len && stat[i] == ' ') ++i;
  while (i < len && stat[i] != ' ') ++i;  // the state letter
  while (i < len && stat[i] == ' ') ++i;
  long v = 0;
  bool any = false;
  for (; i < len && stat[i] >= '0' && stat[i] <= '9'; ++i) {
    v = v * 10 + (stat[i] - '0');
    any = true;
    if (v > 1L << 30) return 0;
  }
  return any ? static_cast<pid_t>(v) : 0;
}

size_t descendants(pid_t root, const pid_t* pids, const pid_t* ppids, size_t n, pid_t* out, size_t cap) {
  size_t count = 0;
  // Breadth first over the parent links: out[0..count) grows as children of found pids turn up.
  for (size_t frontier = 0;; ++frontier) {
    const pid_t parent = frontier == 0 ? root : (frontier - 1 < count ? out[frontier - 1] : -1);
    if (parent < 0) break;
    for (size_t i = 0; i < n && count < cap; ++i)
      if (ppids[i] == parent) {
        bool seen = pids[i] == root;
        for (size_t j = 0; j < count && !seen; ++j) seen = out[j] == pids[i];
        if (!seen) out[count++] = pids[i];
      }
  }
  return count;
}

namespace {

constexpr size_t kMaxProcs = 65536;
pid_t g_pids[kMaxProcs], g_ppids[kMaxProcs], g_tree[kMaxProcs];

struct LinuxDirent64 {
  ino64_t d_ino;
  off64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[];
};

// /proc/PID/stat into buf, with raw system calls only (this runs after fork): its length, or <= 0
// when the process is gone or unreadable.
ssize_t read_proc_stat(pid_t pid, char* buf, size_t cap) {
  char path[32] = "/proc/";
  size_t p = 6;
  char digits[16];
  size_t nd = 0;
  for (long v = pid; v > 0; v /= 10) digits[nd++] = static_cast<char>('0' + v % 10);
  while (nd > 0) path[p++] = digits[--nd];
  const char tail[] = "/stat";
  for (size_t k = 0; k < sizeof tail; ++k) path[p++] = tail[k];
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  const ssize_t len = ::read(fd, buf, cap);
  ::close(fd);
  return len;
}

// Every process's pid and parent from /proc, with raw system calls only (this runs after fork).
size_t scan_proc() {
  size_t n = 0;
  int dir = ::open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return 0;
  alignas(8) static char buf[32768];
  for (;;) {
    long got = ::syscall(SYS_getdents64, dir, buf, sizeof buf);
    if (got <= 0) break;
    for (long off = 0; off < got;) {
      auto* d = reinterpret_cast<LinuxDirent64*>(buf + off);
      off += d->d_reclen;
      long pid = 0;
      const char* c = d->d_name;
      for (; *c >= '0' && *c <= '9'; ++c) pid = pid * 10 + (*c - '0');
      if (*c != '\0' || pid <= 0 || n >= kMaxProcs) continue;
      char stat[512];
      const ssize_t len = read_proc_stat(static_cast<pid_t>(pid), stat, sizeof stat);
      if (len <= 0) continue;
      g_pids[n] = static_cast<pid_t>(pid);
      g_ppids[n] = parse_stat_ppid(stat, static_cast<size_t>(len));
      ++n;
    }
  }
  ::close(dir);
  return n;
}

}  // namespace

int kill_tree(pid_t root, bool include_root);

namespace {

std::atomic<int> g_keep_fd{-1};

// Whether `pid` is gone or a zombie (dead, waiting for its parent): raw system calls only.
bool dead(pid_t pid) {
  char stat[512];
  const ssize_t len = read_proc_stat(pid, stat, sizeof stat);
  if (len <= 0) return true;
  size_t close = static_cast<size_t>(len);
  while (close > 0 && stat[close - 1] != ')') --close;
  return close + 1 < static_cast<size_t>(len) && stat[close + 1] == 'Z';
}

// After the kill: hold on (and so hold the kept fd, the build lock) until the tree is dead, a few
// seconds at most.
void wait_dead(pid_t root, size_t found) {
  for (int i = 0; i < 50; ++i) {
    bool all = dead(root);
    for (size_t k = 0; k < found && all; ++k) all = dead(g_tree[k]);
    if (all) return;
    const timespec pause{0, 100 * 1000 * 1000};
    ::nanosleep(&pause, nullptr);
  }
}

[[noreturn]] void guard_main(int read_fd, pid_t child) {
  // Out of the way of the build: no terminal signals, no inherited pipes (a build tool waits for
  // end-of-file on the compile's output), nothing else held open.
  ::signal(SIGINT, SIG_IGN);
  ::signal(SIGHUP, SIG_IGN);
  ::signal(SIGTERM, SIG_IGN);
  ::signal(SIGPIPE, SIG_IGN);
  int null = ::open("/dev/null", O_RDWR);
  for (int fd = 0; fd <= 2; ++fd) ::dup2(null, fd);
  const int keep = g_keep_fd.load();
  for (int fd = 3; fd < 1024; ++fd)
    if (fd != read_fd && fd != keep) ::close(fd);
  char c;
  ssize_t n;
  while ((n = ::read(read_fd, &c, 1)) < 0 && errno == EINTR) {}
  if (n == 1) ::_exit(0);  // the caller finished normally
  // The caller died: kill the child and everything under it.
  const int killed = kill_tree(child, true);
  wait_dead(child, killed > 0 ? static_cast<size_t>(killed - 1) : 0);
  ::_exit(0);
}

}  // namespace

int kill_tree(pid_t root, bool include_root) {
  // Freeze first so nothing forks away, look until the tree stops growing, then kill it all.
  if (include_root) ::kill(root, SIGSTOP);
  size_t found = 0;
  for (int round = 0; round < 8; ++round) {
    const size_t procs = scan_proc();
    const size_t now = descendants(root, g_pids, g_ppids, procs, g_tree, kMaxProcs);
    for (size_t i = 0; i < now; ++i) ::kill(g_tree[i], SIGSTOP);
    if (now == found && round > 0) break;
    found = now;
  }
  if (include_root) ::kill(root, SIGKILL);
  for (size_t i = 0; i < found; ++i) {
    ::kill(g_tree[i], SIGKILL);
  }
  return static_cast<int>(found) + (include_root ? 1 : 0);
}

void keep_in_guards(int fd) { g_keep_fd.store(fd); }

int kill_orphans(pid_t except) {
  const pid_t me = ::getpid();
  std::vector<pid_t> orphans;
  const size_t procs = scan_proc();
  for (size_t i = 0; i < procs; ++i)
    if (g_ppids[i] == me && g_pids[i] != except && !dead(g_pids[i])) orphans.push_back(g_pids[i]);
  int killed = 0;
  for (pid_t o : orphans) killed += kill_tree(o, true);
  // Reaped here, so that none is left a zombie and the caller (holding the build lock) returns
  // only when they are gone.
  for (int i = 0; i < 50 && !orphans.empty(); ++i) {
    std::erase_if(orphans, [](pid_t o) { return ::waitpid(o, nullptr, WNOHANG) != 0; });
    if (orphans.empty()) break;
    const timespec pause{0, 100 * 1000 * 1000};
    ::nanosleep(&pause, nullptr);
  }
  return killed;
}

TreeGuard::TreeGuard(pid_t child) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return;
  pid_t g = ::fork();
  if (g == 0) {
    ::close(fds[1]);
    guard_main(fds[0], child);
  }
  ::close(fds[0]);
  if (g < 0) {
    ::close(fds[1]);
    return;
  }
  guard_ = g;
  write_fd_ = fds[1];
}

TreeGuard::~TreeGuard() {
  if (guard_ <= 0) return;
  char done = 'd';
  ssize_t w = ::write(write_fd_, &done, 1);
  (void)w;
  ::close(write_fd_);
  while (::waitpid(guard_, nullptr, 0) < 0 && errno == EINTR) {}
}

}  // namespace kiln::io
