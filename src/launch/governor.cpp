#include "launch/governor.hpp"
#include "core/text.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "io/file_lock.hpp"

namespace kiln::launch {

std::string Reservation::field(const std::string& key) const {
  for (const auto& [k, v] : extra)
    if (k == key) return v;
  return "";
}

// A reservation holds while its process runs, as this user: another user's process cannot hold
// this user's budget even when its line got into the ledger (issue 34, case 4).
bool holds(const Reservation& r, const io::ProcessTable& procs) {
  auto start = procs.start_time(r.pid);
  if (!start || *start != r.start) return false;
  const auto uid = procs.owner(r.pid);
  return !uid || *uid == static_cast<unsigned>(::getuid());
}

bool is_waiting(const Reservation& r) { return r.field("wait") == "1"; }

Reservation waiting_entry(Reservation r) {
  std::erase_if(r.extra, [](const auto& kv) { return kv.first == "wait"; });
  r.extra.emplace_back("wait", "1");
  r.kib = 0;
  r.threads = 1;
  r.until_ms = 0;
  return r;
}

bool admits(const std::vector<Reservation>& running, std::uint64_t want_kib, std::uint64_t budget_kib) {
  if (running.empty()) return true;
  // Checked against the budget before each addition: a forged 2^64-1 KiB entry must not wrap the
  // sum and let everything in.
  std::uint64_t used = 0;
  for (const auto& r : running) {
    if (r.kib > budget_kib - used) return false;
    used += r.kib;
  }
  return want_kib <= budget_kib - used;
}

namespace {

std::optional<std::uint64_t> number(const std::string& s) {
  if (s.empty() || s.size() > 20 || s.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return core::parse_uint(s);
}

}  // namespace

std::vector<Reservation> parse_ledger(const std::string& text) {
  std::vector<Reservation> out;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream in(line);
    Reservation r;
    bool has_pid = false, has_kib = false;
    std::vector<std::string> bare;
    for (std::string tok; in >> tok;) {
      auto eq = tok.find('=');
      if (eq == std::string::npos) {
        bare.push_back(tok);  // the first format: "pid kib"
        continue;
      }
      const std::string k = tok.substr(0, eq), v = tok.substr(eq + 1);
      auto n = number(v);
      if (k == "pid" && n)
        r.pid = static_cast<long>(*n), has_pid = true;
      else if (k == "kib" && n)
        r.kib = *n, has_kib = true;
      else if (k == "start" && n)
        r.start = *n;
      else if (k == "threads" && n && *n >= 1 && *n <= 4096)
        r.threads = static_cast<int>(*n);
      else if (k == "until" && n)
        r.until_ms = static_cast<long long>(*n);
      else if (k != "pid" && k != "kib" && k != "start" && k != "threads" && k != "until")
        r.extra.emplace_back(k, v);
    }
    if (!has_pid && bare.size() >= 2) {  // "pid kib [threads until_ms]": no start time, so stale
      auto p = number(bare[0]), k = number(bare[1]);
      if (p && k) r.pid = static_cast<long>(*p), r.kib = *k, has_pid = has_kib = true;
      if (bare.size() >= 3)
        if (auto t = number(bare[2]); t && *t >= 1 && *t <= 4096) r.threads = static_cast<int>(*t);
      if (bare.size() >= 4)
        if (auto u = number(bare[3])) r.until_ms = static_cast<long long>(*u);
    }
    if (has_pid && has_kib && r.pid > 0) out.push_back(std::move(r));
  }
  return out;
}

std::string format_ledger(const std::vector<Reservation>& rs) {
  std::string s;
  for (const auto& r : rs) {
    s += "pid=" + std::to_string(r.pid) + " kib=" + std::to_string(r.kib) + " start=" + std::to_string(r.start) +
         " threads=" + std::to_string(r.threads) + " until=" + std::to_string(r.until_ms);
    for (const auto& [k, v] : r.extra) s += " " + k + "=" + v;
    s += "\n";
  }
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

constexpr std::size_t kLedgerMaxBytes = 1 << 20;

// The ledger file, opened and locked for the lifetime of this object, if the lock came in time.
struct LockedFile {
  // The machine-wide ledger's folder (plan/ledger_place) is made on first use, private to this
  // user; a link in the ledger's place is not followed.
  io::FileLock lock;
  int fd;
  LockedFile(const std::string& path, std::chrono::milliseconds timeout)
      : lock(path, {.wait = timeout, .mode = 0600, .make_folder = true}), fd(lock.fd()) {}
  // At most kLedgerMaxBytes (thousands of entries): a huge or forged ledger must not cost its size in
  // memory. A cut last line is dropped by the parser; what is beyond is rewritten away.
  std::optional<std::string> read_all() const {
    std::string s;
    char buf[4096];
    if (::lseek(fd, 0, SEEK_SET) < 0) return std::nullopt;
    for (ssize_t n; s.size() < kLedgerMaxBytes && (n = ::read(fd, buf, sizeof buf)) != 0;) {
      if (n < 0) {
        if (errno == EINTR) continue;
        return std::nullopt;
      }
      s.append(buf, static_cast<size_t>(n));
    }
    if (s.size() >= kLedgerMaxBytes) s.resize(s.rfind('\n') == std::string::npos ? 0 : s.rfind('\n') + 1);
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

}  // namespace

std::optional<bool> FileLedger::try_reserve(const Reservation& mine,
                                            const std::function<bool(const std::vector<Reservation>&)>& admit) {
  error_.clear();
  LockedFile f(path_, lock_timeout_);
  if (f.fd < 0) {
    error_ = f.lock.error();
    return std::nullopt;
  }
  auto text = f.read_all();
  if (!text) {
    error_ = "cannot read " + path_;
    return std::nullopt;
  }
  // Stale entries (dead, reused or made-up pids, lines without a start time) are cleared here, by
  // whoever takes the lock next.
  // Compiles waiting for a pool's slot are kept apart: admit weighs what runs.
  std::vector<Reservation> live;
  waiting_.clear();
  for (auto& r : parse_ledger(*text))
    if (r.pid != mine.pid && holds(r, procs_)) (is_waiting(r) ? waiting_ : live).push_back(std::move(r));
  const bool ok = admit(live);
  std::optional<Reservation> own;
  if (ok)
    own = mine;  // read after admit: a decided reservation was written into it
  else if (waiting_entry_)
    own = waiting_entry(*waiting_entry_);
  live.insert(live.end(), waiting_.begin(), waiting_.end());
  if (own) {
    own->pid = mine.pid;
    if (own->start == 0) own->start = procs_.start_time(own->pid).value_or(0);
    live.push_back(std::move(*own));
  }
  if (!f.write_all(format_ledger(live))) {
    error_ = "cannot write " + path_;
    return std::nullopt;
  }
  return ok;
}

void FileLedger::release(long pid) {
  LockedFile f(path_, lock_timeout_);
  if (f.fd < 0) return;  // the entry goes stale when this process exits, and is cleared then
  auto text = f.read_all();
  if (!text) return;
  std::vector<Reservation> keep;
  for (auto& r : parse_ledger(*text))
    if (r.pid != pid && holds(r, procs_)) keep.push_back(std::move(r));
  f.write_all(format_ledger(keep));
}

namespace {

std::string skipped(const Ledger& ledger) {
  const std::string why = ledger.error();
  return "memory governor skipped: " + (why.empty() ? std::string("the ledger is unusable") : why) +
         "; compiling without a reservation";
}

// One try's outcome for both acquire loops: the result to return once the ledger said yes or is
// unusable (then the compile runs ungoverned), nothing while it says wait.
template <typename TimePoint>
std::optional<GovernorResult> settled(const Ledger& ledger, io::Clock& clock, TimePoint t0,
                                      const std::optional<bool>& r, GovernorResult& g) {
  g.waited = std::chrono::duration_cast<std::chrono::milliseconds>(clock.now() - t0);
  if (!r) {
    g.warning = skipped(ledger);
    return g;
  }
  if (*r) {
    g.governed = true;
    return g;
  }
  return std::nullopt;
}

// A compile admitted because it had waited `max_wait` (the memory it wants, or a slot of its
// build's pool, never came): it runs anyway, and its record says so.
GovernorResult past_limit(GovernorResult g, bool late) {
  if (late && g.governed && g.warning.empty())
    g.warning = fmt::format("waited {} s for memory or a slot of the build's pool, the limit: compiling anyway",
                            std::chrono::duration_cast<std::chrono::seconds>(g.waited).count());
  return g;
}

}  // namespace

GovernorResult acquire(Ledger& ledger, io::Clock& clock, long pid, std::uint64_t want_kib, std::uint64_t budget_kib,
                       std::chrono::milliseconds poll, std::chrono::milliseconds max_wait) {
  GovernorResult g;
  const auto t0 = clock.now();
  bool late = false;
  for (;;) {
    auto r = ledger.try_reserve({pid, want_kib}, [&](const std::vector<Reservation>& running) {
      if (admits(running, want_kib, budget_kib)) return true;
      return late = clock.now() - t0 >= max_wait;
    });
    if (auto done = settled(ledger, clock, t0, r, g)) return past_limit(*done, late);
    clock.sleep_for(poll);
  }
}

GovernorResult acquire_decided(Ledger& ledger, io::Clock& clock, long pid,
                               const std::function<std::optional<Reservation>(const std::vector<Reservation>&)>& decide,
                               const Reservation& fallback, Reservation& decided, std::chrono::milliseconds poll,
                               std::chrono::milliseconds max_wait,
                               const std::function<std::chrono::milliseconds()>& pause) {
  GovernorResult g;
  const auto t0 = clock.now();
  bool late = false;
  for (;;) {
    auto r =
        ledger.try_reserve_decided(pid, [&](const std::vector<Reservation>& running) -> std::optional<Reservation> {
          if (auto d = decide(running)) return decided = *d;
          // Waited long enough: run anyway with the plain reservation, as acquire does.
          if ((late = clock.now() - t0 >= max_wait)) return decided = fallback;
          return std::nullopt;
        });
    if (auto done = settled(ledger, clock, t0, r, g)) return past_limit(*done, late);
    clock.sleep_for(pause ? std::clamp(pause(), std::chrono::milliseconds(1), max_wait) : poll);
  }
}

}  // namespace kiln::launch
