#include "launch/compile_pool.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

#include "core/fnv.hpp"
#include "core/text.hpp"
#include "launch/thread_grant.hpp"

namespace kiln::launch {

std::optional<CompilePool> compile_pool(const core::LauncherEnv& kiln) {
  if (!kiln.pool_jobs || *kiln.pool_jobs == 0) return std::nullopt;
  return CompilePool{.jobs = static_cast<int>(std::min<std::uint64_t>(*kiln.pool_jobs, 1 << 20)),
                     .id = fmt::format("{:016x}", core::fnv1a64(kiln.exec_log))};
}

void join_pool(Reservation& r, const CompilePool& pool, long long since_ms) {
  std::erase_if(r.extra, [](const auto& kv) { return kv.first == kPoolField || kv.first == kPoolSinceField; });
  r.extra.emplace_back(kPoolField, pool.id);
  r.extra.emplace_back(kPoolSinceField, std::to_string(since_ms));
}

Reservation enter_pool(Ledger& ledger, const CompilePool& pool, long pid, long long since_ms, const UnitWork& work,
                       Reservation& plain) {
  join_pool(plain, pool, since_ms);
  Reservation waits{pid, 0};
  join_pool(waits, pool, since_ms);
  set_work(waits, work);
  ledger.wait_as(waits);
  return waits;
}

void waits_for(Ledger& ledger, Reservation entry, PoolWait why) {
  std::erase_if(entry.extra, [](const auto& kv) { return kv.first == kPoolWaitField; });
  if (why == PoolWait::memory) entry.extra.emplace_back(kPoolWaitField, "memory");
  ledger.wait_as(std::move(entry));
}

int pool_slots_taken(const CompilePool& pool, const std::vector<Reservation>& running) {
  return static_cast<int>(std::count_if(running.begin(), running.end(),
                                        [&](const Reservation& r) { return r.field(kPoolField) == pool.id; }));
}

PoolTurn pool_turn(const CompilePool& pool, const std::vector<Reservation>& running,
                   const std::vector<Reservation>& waiting, const UnitWork& me, long pid, long long since_ms,
                   long long now_ms) {
  PoolTurn t;
  t.taken = pool_slots_taken(pool, running);
  // Me first, then the others of the pool that wait: their weights on one scale.
  std::vector<UnitWork> works{me};
  std::vector<std::pair<long, long long>> who{{pid, since_ms}};
  for (const auto& r : waiting)
    if (r.pid != pid && r.field(kPoolField) == pool.id && r.field(kPoolWaitField) != "memory") {
      works.push_back(work_of(r));
      // Any local process can write the ledger: a time before the epoch or after now is taken as
      // the nearest of those (now - since must not overflow).
      who.emplace_back(r.pid, std::clamp<long long>(core::parse_int(r.field(kPoolSinceField)).value_or(now_ms), 0,
                                                    std::max(0LL, now_ms)));
    }
  const auto w = unit_weights(works).w;
  // The rank's key: aged first (the oldest first), then the heaviest, then the first come.
  auto key = [&](size_t i) {
    const long long since = who[i].second;
    const bool aged = now_ms - since >= kAgedMs;
    const double weight = i < w.size() ? w[i] : 0;
    return std::make_tuple(aged ? 0 : 1, aged ? since : 0, -weight, since, who[i].first);
  };
  const auto mine = key(0);
  for (size_t i = 1; i < works.size(); ++i)
    if (key(i) < mine) ++t.ahead;
  const int free = pool.jobs - t.taken;
  t.go = free > 0 && t.ahead < free;
  return t;
}

std::chrono::milliseconds pool_pause(const CompilePool& pool, const PoolTurn& turn) {
  if (turn.go) return kPoolPoll;
  // The slots that must free before its turn: those the units ahead take, and its own.
  const int behind = std::max(1, turn.ahead - std::max(0, pool.jobs - turn.taken) + 1);
  return std::min(kPoolPollMost, kPoolPoll * behind);
}

}  // namespace kiln::launch
