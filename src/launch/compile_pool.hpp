#pragma once
// One pool of compile slots per build (issue 35, "No oversubscription"): a torch project's
// extensions build side by side (data/parallel_extensions.py), each with its own Ninja at -j jobs,
// so N extensions ran up to N x jobs compiles at once (pytorch_scatter on 2 cores: 7 at once; apex
// on 32: 37, its heaviest unit granted 5 threads), though the plan said `jobs J`. `kiln exec`
// therefore admits a compile of a source only while fewer than the plan's jobs compiles of the
// same build run (KILN_POOL_JOBS; the build's reservations carry its pool's id), under the
// governor's ledger lock, beside the memory rule.
//
// A compile that waits leaves a waiting entry in the ledger (launch/governor: wait_as) with its
// weight (launch/unit_weight), so that a freed slot goes to the heaviest unit waiting, as each
// Ninja starts its own units heaviest first. A unit that has waited kAgedMs goes before the
// others, the longest-waiting first, so that a light unit does not wait until the governor's limit
// and then run beyond the pool; a unit whose turn came but whose memory does not fit yet lets a
// lighter one that fits take the slot. The wait is the governor's: bounded (30 minutes), and a ledger
// that cannot be used lets the compile run at once, with a warning in its record.
//
// Not for a Slurm job step (kiln build --slurm): the allocation bounds those. Links and other
// commands that compile no source take no slot.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "core/launcher_env.hpp"
#include "launch/governor.hpp"
#include "launch/unit_weight.hpp"

namespace kiln::launch {

struct CompilePool {
  int jobs = 1;    // slots: the plan's jobs
  std::string id;  // whose: this build's (its exec log's place, hashed)
};

// The build's pool, from what kiln build told its launchers; nullopt without one.
std::optional<CompilePool> compile_pool(const core::LauncherEnv& kiln);

// The fields of a ledger entry in the pool: its id, and since when (epoch ms) a waiting one waits.
inline constexpr const char* kPoolField = "pool";
inline constexpr const char* kPoolSinceField = "since";
// A unit waiting this long goes before heavier ones.
inline constexpr long long kAgedMs = 5 * 60 * 1000;

// `r` (a reservation or a waiting entry) as a member of `pool`, waiting since `since_ms`.
void join_pool(Reservation& r, const CompilePool& pool, long long since_ms);

// The compiles of `pool` running (reservations that hold one of its slots).
int pool_slots_taken(const CompilePool& pool, const std::vector<Reservation>& running);

// Before a compile's first try: `plain`, its reservation once the wait reaches the governor's
// limit, joins the pool (it runs in a slot all the same), and while it waits the ledger keeps an
// entry with its weight, so that a freed slot goes to the heaviest. Returns that entry.
Reservation enter_pool(Ledger& ledger, const CompilePool& pool, long pid, long long since_ms, const UnitWork& work,
                       Reservation& plain);

// What a waiting entry waits for: a slot, or memory once its turn in the pool has come. A unit
// waiting for memory is no one's ahead (pool_turn): a lighter unit that fits takes the slot rather
// than leave it idle (work-conserving, as the governor alone was).
enum class PoolWait { slot, memory };
inline constexpr const char* kPoolWaitField = "waits";
void waits_for(Ledger& ledger, Reservation entry, PoolWait why);

struct PoolTurn {
  bool go = false;  // a slot is free and no more units of the pool ahead of this one wait than slots are free
  int taken = 0;    // slots held by the compiles running
  int ahead = 0;    // units of the pool waiting that rank before this one
};

// Whether the compile `me` (its weight; waiting since `since_ms`, its pid breaking ties) takes a slot
// now, given the ledger's running and waiting entries. Ranked: units aged kAgedMs first (the
// oldest first), then the heaviest (weights on one scale, launch/unit_weight), then the first come;
// units waiting for memory are not ranked.
PoolTurn pool_turn(const CompilePool& pool, const std::vector<Reservation>& running,
                   const std::vector<Reservation>& waiting, const UnitWork& me, long pid, long long since_ms,
                   long long now_ms);

// How long a compile that waits its turn pauses before it tries again: kPoolPoll at the front of
// the queue (or waiting for memory), kPoolPoll more per unit that goes before it, at most
// kPoolPollMost. Every try holds the ledger's lock and reads every entry (200 compiles waiting
// at a fixed 200 ms held it for more than 5 s at a time: 27 of them ran without the governor).
inline constexpr std::chrono::milliseconds kPoolPoll{200}, kPoolPollMost{10000};
std::chrono::milliseconds pool_pause(const CompilePool& pool, const PoolTurn& turn);

}  // namespace kiln::launch
