#pragma once
// The memory governor: a compile is admitted only when its expected peak fits under the budget
// beside the compiles already running. Ninja can then run -j <cores> while memory, not a guessed
// job count, decides how many heavy compiles overlap (the seeds' "Killed signal terminated
// program cc1plus"). Several `kiln exec` processes share one ledger file under a lock.
//
// Nothing here waits without bound: the lock is taken with a timeout (then the compile runs
// ungoverned, with a warning), and an entry counts only while its process is the one that wrote
// it (pid and start time), so a killed, reused or made-up pid never holds a build back.
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "io/clock.hpp"
#include "io/process_table.hpp"

namespace kiln::launch {

// One running compile. The file form is one line of `key=value` fields:
//   pid=4242 kib=2097152 start=123456789 threads=4 until=1790000000000
// Fields this version does not know are kept as they were (later versions add their own), and a
// line without a start time (an older kiln's "pid kib [threads until]") is stale.
struct Reservation {
  long pid = 0;
  std::uint64_t kib = 0;
  // Added for nvcc thread grants (launch/thread_grant.hpp); a ledger line without them reads as 1 and 0.
  int threads = 1;         // cores the compile may keep busy
  long long until_ms = 0;  // expected end (unix epoch ms) from its learned duration; 0 unknown
  // The process's start time (/proc/PID/stat field 22): with the pid, what names the process. 0:
  // unknown; FileLedger fills it in for the reservation it adds.
  std::uint64_t start = 0;
  std::vector<std::pair<std::string, std::string>> extra;
  std::string field(const std::string& key) const;  // an extra field's value, "" when absent
};

// Whether `r` is still held by the process that wrote it. A reused pid has another start time; a
// made-up one (pid 1, a long-lived daemon) too.
bool holds(const Reservation& r, const io::ProcessTable& procs);

// The shared list of running compiles and what each reserved.
class Ledger {
public:
  virtual ~Ledger() = default;
  // Atomically: drop entries of dead processes, then add `mine` if `admit(live entries)` says so.
  // Returns whether it was added. nullopt when the ledger cannot be used (the caller then runs the
  // compiler ungoverned rather than break the build). `mine` is read after `admit` returns (so a
  // decided reservation can be written into it by the callback).
  virtual std::optional<bool> try_reserve(const Reservation& mine,
                                          const std::function<bool(const std::vector<Reservation>&)>& admit) = 0;
  // The same, when what to reserve depends on what runs (a thread grant): `decide` returns the
  // reservation to add, or nullopt to wait. The default builds on try_reserve: `decide` runs
  // inside its admit callback, under the same lock, and the reservation added is the decided one.
  virtual std::optional<bool> try_reserve_decided(
      long pid, const std::function<std::optional<Reservation>(const std::vector<Reservation>&)>& decide);
  virtual void release(long pid) = 0;
  // Why the last call could not use the ledger ("" when it could).
  virtual std::string error() const { return ""; }

  // A compile waiting for a slot of its build's pool (launch/compile_pool) says so in the ledger:
  // set, `entry` is written (marked waiting, is_waiting) in place of this compile's line each time
  // admit says no, and a reservation replaces it when admit says yes. The others' waiting entries
  // are never among admit's running ones: waiting() holds them, as the current try_reserve read
  // them (for its admit callback). A waiting entry holds no memory or cores; it goes with its
  // process, as a reservation does, and with release.
  void wait_as(std::optional<Reservation> entry) { waiting_entry_ = std::move(entry); }
  const std::vector<Reservation>& waiting() const { return waiting_; }

protected:
  std::optional<Reservation> waiting_entry_;
  std::vector<Reservation> waiting_;
};

// Whether a ledger line is a compile waiting for its turn (`wait=1`), not one running.
bool is_waiting(const Reservation& r);
Reservation waiting_entry(Reservation r);  // `r` marked waiting, with no memory

// A file under flock(2). The lock is polled for at most `lock_timeout`; a holder that never lets
// go (a stopped or hung process) makes try_reserve fail, and the compile runs ungoverned.
class FileLedger final : public Ledger {
public:
  explicit FileLedger(std::string path, const io::ProcessTable& procs = io::system_processes(),
                      std::chrono::milliseconds lock_timeout = std::chrono::seconds(10))
      : path_(std::move(path)), procs_(procs), lock_timeout_(lock_timeout) {}
  std::optional<bool> try_reserve(const Reservation& mine,
                                  const std::function<bool(const std::vector<Reservation>&)>& admit) override;
  void release(long pid) override;
  std::string error() const override { return error_; }

private:
  std::string path_;
  const io::ProcessTable& procs_;
  std::chrono::milliseconds lock_timeout_;
  std::string error_;
};

// The rule: admit when nothing else runs (a compile bigger than the budget must still run, alone),
// or when the running reservations plus this one fit.
bool admits(const std::vector<Reservation>& running, std::uint64_t want_kib, std::uint64_t budget_kib);

struct GovernorResult {
  bool governed = false;  // false: the ledger failed and the compile ran without a reservation
  std::chrono::milliseconds waited{0};
  std::string warning;  // why it ran ungoverned, or past the wait's limit, for the log
};

// Waits (polling through the clock seam) until admitted, up to `max_wait`; after that it runs
// anyway (with a warning), so a stuck ledger can slow a build but never hang or break it.
GovernorResult acquire(Ledger& ledger, io::Clock& clock, long pid, std::uint64_t want_kib, std::uint64_t budget_kib,
                       std::chrono::milliseconds poll = std::chrono::milliseconds(200),
                       std::chrono::milliseconds max_wait = std::chrono::minutes(30));

// Like acquire, with the reservation decided from the running ones each time it polls (a thread
// grant may shrink as other compiles start). `decided` receives what was reserved. `pause`, when
// set, says how long to wait before the next try instead of `poll` (a compile far back in its
// pool's queue tries less often: every try holds the ledger's lock).
GovernorResult acquire_decided(Ledger& ledger, io::Clock& clock, long pid,
                               const std::function<std::optional<Reservation>(const std::vector<Reservation>&)>& decide,
                               const Reservation& fallback, Reservation& decided,
                               std::chrono::milliseconds poll = std::chrono::milliseconds(200),
                               std::chrono::milliseconds max_wait = std::chrono::minutes(30),
                               const std::function<std::chrono::milliseconds()>& pause = {});

std::vector<Reservation> parse_ledger(const std::string& text);
std::string format_ledger(const std::vector<Reservation>& r);

}  // namespace kiln::launch
