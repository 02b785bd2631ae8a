#include "run/governor.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <sstream>

namespace kiln::run {

bool admits(const std::vector<Reservation>& running, std::uint64_t want_kib, std::uint64_t budget_kib) {
  if (running.empty()) return true;
  std::uint64_t used = 0;
  for (const auto& r : running) used += r.kib;
  return used + want_kib <= budget_kib;
}

std::vector<Reservation> parse_ledger(const std::string& text) {
  std::vector<Reservation> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    Reservation r;
    if (!(f >> r.pid >> r.kib)) continue;
    if (!(f >> r.threads) || r.threads < 1) r.threads = 1;  // a line of an older kiln: pid kib
    if (!(f >> r.until_ms) || r.until_ms < 0) r.until_ms = 0;
    out.push_back(r);
  }
  return out;
}

std::string format_ledger(const std::vector<Reservation>& rs) {
  std::string s;
  for (const auto& r : rs)
    s += std::to_string(r.pid) + " " + std::to_string(r.kib) + " " + std::to_string(r.threads) + " " +
         std::to_string(r.until_ms) + "\n";
  return s;
}

std::optional<bool> Ledger::try_reserve_decided(
    long pid, const std::function<std::optional<Reservation>(const std::vector<Reservation>&)>& decide) {
  Reservation slot{pid, 0};
  return try_reserve(slot, [&](const std::vector<Reservation>& live) {
    auto d = decide(live);
    if (!d) return false;
    slot = *d;
    slot.pid = pid;
    return true;
  });
}

namespace {

// The ledger file, opened and locked for the lifetime of this object.
struct LockedFile {
  int fd = -1;
  explicit LockedFile(const std::string& path) {
    fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return;
    while (::flock(fd, LOCK_EX) != 0) {
      if (errno != EINTR) {
        ::close(fd);
        fd = -1;
        return;
      }
    }
  }
  ~LockedFile() {
    if (fd >= 0) ::close(fd);  // closing releases the lock
  }
  std::optional<std::string> read_all() const {
    std::string s;
    char buf[4096];
    if (::lseek(fd, 0, SEEK_SET) < 0) return std::nullopt;
    for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) != 0;) {
      if (n < 0) {
        if (errno == EINTR) continue;
        return std::nullopt;
      }
      s.append(buf, static_cast<size_t>(n));
    }
    return s;
  }
  bool write_all(const std::string& s) const {
    if (::ftruncate(fd, 0) != 0 || ::lseek(fd, 0, SEEK_SET) < 0) return false;
    size_t off = 0;
    while (off < s.size()) {
      ssize_t n = ::write(fd, s.data() + off, s.size() - off);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      off += static_cast<size_t>(n);
    }
    return true;
  }
};

bool alive(long pid) { return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM; }

}  // namespace

std::optional<bool> FileLedger::try_reserve(const Reservation& mine,
                                            const std::function<bool(const std::vector<Reservation>&)>& admit) {
  LockedFile f(path_);
  if (f.fd < 0) return std::nullopt;
  auto text = f.read_all();
  if (!text) return std::nullopt;
  std::vector<Reservation> live;
  for (const auto& r : parse_ledger(*text))
    if (r.pid != mine.pid && alive(r.pid)) live.push_back(r);  // a killed compile leaves no stale reservation
  const bool ok = admit(live);
  if (ok) live.push_back(mine);
  if (!f.write_all(format_ledger(live))) return std::nullopt;
  return ok;
}

void FileLedger::release(long pid) {
  LockedFile f(path_);
  if (f.fd < 0) return;
  auto text = f.read_all();
  if (!text) return;
  std::vector<Reservation> keep;
  for (const auto& r : parse_ledger(*text))
    if (r.pid != pid && alive(r.pid)) keep.push_back(r);
  f.write_all(format_ledger(keep));
}

GovernorResult acquire(Ledger& ledger, io::Clock& clock, long pid, std::uint64_t want_kib, std::uint64_t budget_kib,
                       std::chrono::milliseconds poll, std::chrono::milliseconds max_wait) {
  GovernorResult g;
  const auto t0 = clock.now();
  for (;;) {
    auto r = ledger.try_reserve({pid, want_kib}, [&](const std::vector<Reservation>& running) {
      return admits(running, want_kib, budget_kib) || clock.now() - t0 >= max_wait;
    });
    g.waited = std::chrono::duration_cast<std::chrono::milliseconds>(clock.now() - t0);
    if (!r) return g;  // ledger unusable: run ungoverned
    if (*r) {
      g.governed = true;
      return g;
    }
    clock.sleep_for(poll);
  }
}

GovernorResult acquire_decided(Ledger& ledger, io::Clock& clock, long pid,
                               const std::function<std::optional<Reservation>(const std::vector<Reservation>&)>& decide,
                               const Reservation& fallback, Reservation& decided, std::chrono::milliseconds poll,
                               std::chrono::milliseconds max_wait) {
  GovernorResult g;
  const auto t0 = clock.now();
  for (;;) {
    auto r = ledger.try_reserve_decided(pid, [&](const std::vector<Reservation>& running) -> std::optional<Reservation> {
      if (auto d = decide(running)) return decided = *d;
      // Waited long enough: run anyway with the plain reservation, as acquire does.
      if (clock.now() - t0 >= max_wait) return decided = fallback;
      return std::nullopt;
    });
    g.waited = std::chrono::duration_cast<std::chrono::milliseconds>(clock.now() - t0);
    if (!r) return g;
    if (*r) {
      g.governed = true;
      return g;
    }
    clock.sleep_for(poll);
  }
}

}  // namespace kiln::run
