#include "io/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <optional>

#include "io/child_stop.hpp"
#include "io/tree_guard.hpp"

extern char** environ;

namespace kiln::io {
namespace {

std::atomic<int> g_child_group{0};

struct Pipe {
  int fd[2] = {-1, -1};
  bool open() { return ::pipe2(fd, O_CLOEXEC) == 0; }
  void close_all() {
    for (int& f : fd)
      if (f >= 0) ::close(f), f = -1;
  }
};

// Splits streamed bytes into lines for the callback, keeping a partial tail.
struct LineSplitter {
  std::string pending;
  void feed(std::string_view chunk, const std::function<void(std::string_view)>& cb) {
    if (!cb) return;
    pending.append(chunk);
    size_t start = 0;
    for (size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1)
      cb(std::string_view(pending).substr(start, nl - start));
    pending.erase(0, start);
  }
  void flush(const std::function<void(std::string_view)>& cb) {
    if (cb && !pending.empty()) cb(pending);
    pending.clear();
  }
};

// PATH lookup follows the child's PATH, as a shell would; posix_spawnp uses kiln's own, so resolve
// here when the child's environment differs.
std::string executable_for(const ProcessSpec& spec) {
  std::string exe = spec.argv[0];
  if (exe.find('/') == std::string::npos && spec.env) {
    auto it = spec.env->find("PATH");
    if (it != spec.env->end()) {
      size_t s = 0;
      const std::string& path = it->second;
      while (s <= path.size()) {
        size_t e = path.find(':', s);
        if (e == std::string::npos) e = path.size();
        std::string cand = (e > s ? path.substr(s, e - s) : std::string(".")) + "/" + exe;
        if (::access(cand.c_str(), X_OK) == 0) {
          exe = cand;
          break;
        }
        s = e + 1;
      }
    }
  }
  return exe;
}

// Reads the child's stdout and stderr until both close, handing complete lines to on_line.
void drain(int out_fd, int err_fd, ProcessResult& r, const std::function<void(std::string_view)>& on_line) {
  LineSplitter lines;
  pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
  int open_count = 2;
  char buf[65536];
  while (open_count > 0) {
    int n = ::poll(fds, 2, -1);
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t got = ::read(fds[i].fd, buf, sizeof buf);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_count;
        continue;
      }
      std::string_view chunk(buf, static_cast<size_t>(got));
      (i == 0 ? r.out : r.err).append(chunk);
      lines.feed(chunk, on_line);
    }
  }
  lines.flush(on_line);
}

}  // namespace

int current_child_group() { return g_child_group.load(); }

ProcessResult RealProcessRunner::run(const ProcessSpec& spec) {
  ProcessResult r;
  if (spec.argv.empty()) {
    r.spawn_error = "empty command";
    return r;
  }
  if (children_stopped()) {  // a stop signal while planning: no further probe (io/child_stop)
    r.spawn_error = spec.argv[0] + ": not started: kiln is stopping";
    return r;
  }
  Pipe out, err;
  if (!out.open() || !err.open()) {
    r.spawn_error = std::string("pipe: ") + std::strerror(errno);
    out.close_all(), err.close_all();
    return r;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (!spec.inherit_stdio || !spec.stdin_path.empty()) {
    const std::string in_path = spec.stdin_path.empty() ? "/dev/null" : spec.stdin_path;
    posix_spawn_file_actions_addopen(&fa, 0, in_path.c_str(), O_RDONLY, 0);
  }
  if (spec.inherit_stdio) {
    posix_spawn_file_actions_addclose(&fa, out.fd[1]);
    posix_spawn_file_actions_addclose(&fa, err.fd[1]);
  } else {
    posix_spawn_file_actions_adddup2(&fa, out.fd[1], 1);
    posix_spawn_file_actions_adddup2(&fa, err.fd[1], 2);
  }
  if (!spec.cwd.empty()) posix_spawn_file_actions_addchdir_np(&fa, spec.cwd.c_str());

  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
  if (spec.new_process_group) flags |= POSIX_SPAWN_SETPGROUP;
  posix_spawnattr_setflags(&attr, flags);
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);

  std::vector<char*> argv;
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<std::string> env_store;
  std::vector<char*> envp;
  if (spec.env) {
    for (const auto& [k, v] : *spec.env) env_store.push_back(k + "=" + v);
    for (auto& e : env_store) envp.push_back(e.data());
    envp.push_back(nullptr);
  }
  const std::string exe = executable_for(spec);
  const auto t0 = std::chrono::steady_clock::now();
  pid_t pid = -1;
  int rc = posix_spawnp(&pid, exe.c_str(), &fa, &attr, argv.data(), spec.env ? envp.data() : environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  ::close(out.fd[1]), out.fd[1] = -1;
  ::close(err.fd[1]), err.fd[1] = -1;
  if (rc != 0) {
    r.spawn_error = spec.argv[0] + ": " + std::strerror(rc);
    out.close_all(), err.close_all();
    return r;
  }
  r.started = true;
  if (spec.nice > 0) {
    errno = 0;
    const int own = ::getpriority(PRIO_PROCESS, 0);
    if (errno == 0) ::setpriority(PRIO_PROCESS, static_cast<id_t>(pid), std::min(19, own + spec.nice));
  }
  if (spec.new_process_group)
    g_child_group.store(pid);
  else
    note_running_child(pid);
  std::optional<TreeGuard> guard;  // released after the reaping below; a new group is out of the terminal's reach
  if (spec.die_with_caller || spec.new_process_group) guard.emplace(pid);  // so if kiln dies, the guard stops it
  if (spec.on_start) spec.on_start(static_cast<int>(pid));

  drain(out.fd[0], err.fd[0], r, spec.on_line);

  int status = 0;
  rusage ru{};
  while (::wait4(pid, &status, 0, &ru) < 0 && errno == EINTR) {}
  // A step's tool killed outright leaves its jobs behind (they are in groups of their own): what
  // became kiln's children is killed before the step is over. Not on a stop: the jobs got the
  // signal too and are ending (an srun cancels its Slurm step first); the stop's grace
  // (BuildInterrupts::settle) waits for them and kills only what outlives it.
  if (spec.new_process_group && !build_stop()) r.orphans_killed = kill_orphans(guard ? guard->pid() : -1);
  if (spec.new_process_group)
    g_child_group.store(0);
  else
    note_running_child(0);
  guard.reset();
  r.wall = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0);
  r.cpu = std::chrono::milliseconds((ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000 +
                                    (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000);
  r.peak_rss_kib = ru.ru_maxrss;
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.term_signal = WTERMSIG(status);
  return r;
}

}  // namespace kiln::io
