#pragma once
// The memory governor: a compile is admitted only when its expected peak fits under the budget
// beside the compiles already running. Ninja can then run -j <cores> while memory, not a guessed
// job count, decides how many heavy compiles overlap (the seeds' "Killed signal terminated
// program cc1plus"). Several `kiln exec` processes share one ledger file under a lock.
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "io/clock.hpp"

namespace kiln::run {

struct Reservation {
  long pid = 0;
  std::uint64_t kib = 0;
  // Added for nvcc thread grants (run/thread_grant.hpp); a ledger line without them reads as 1 and 0.
  int threads = 1;           // cores the compile may keep busy
  long long until_ms = 0;    // expected end (unix epoch ms) from its learned duration; 0 unknown
};

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
};

// A file under flock(2); dead pids are detected with kill(pid, 0).
class FileLedger final : public Ledger {
 public:
  explicit FileLedger(std::string path) : path_(std::move(path)) {}
  std::optional<bool> try_reserve(const Reservation& mine,
                                  const std::function<bool(const std::vector<Reservation>&)>& admit) override;
  void release(long pid) override;

 private:
  std::string path_;
};

// The rule: admit when nothing else runs (a compile bigger than the budget must still run, alone),
// or when the running reservations plus this one fit.
bool admits(const std::vector<Reservation>& running, std::uint64_t want_kib, std::uint64_t budget_kib);

struct GovernorResult {
  bool governed = false;  // false: the ledger failed and the compile ran without a reservation
  std::chrono::milliseconds waited{0};
};

// Waits (polling through the clock seam) until admitted, up to `max_wait`; after that it runs
// anyway, so a stuck ledger can slow a build but never hang or break it.
GovernorResult acquire(Ledger& ledger, io::Clock& clock, long pid, std::uint64_t want_kib, std::uint64_t budget_kib,
                       std::chrono::milliseconds poll = std::chrono::milliseconds(200),
                       std::chrono::milliseconds max_wait = std::chrono::minutes(30));

// Like acquire, with the reservation decided from the running ones each time it polls (a thread
// grant may shrink as other compiles start). `decided` receives what was reserved.
GovernorResult acquire_decided(Ledger& ledger, io::Clock& clock, long pid,
                               const std::function<std::optional<Reservation>(const std::vector<Reservation>&)>& decide,
                               const Reservation& fallback, Reservation& decided,
                               std::chrono::milliseconds poll = std::chrono::milliseconds(200),
                               std::chrono::milliseconds max_wait = std::chrono::minutes(30));

std::vector<Reservation> parse_ledger(const std::string& text);
std::string format_ledger(const std::vector<Reservation>& r);

}  // namespace kiln::run
