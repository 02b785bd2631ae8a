#pragma once
// CPU priority among the compiles that run at once: a compile expected to finish well before the
// longest one beside it gets a higher nice value, so that on a full machine the long units keep
// their cores and the short ones fill what is left (work-conserving: an idle core still runs a
// nice compile). The thread grants (launch/thread_grant) decide how many threads a unit may use;
// this decides who gets the CPU when there are more threads than cores. A pure function of the
// units' work (launch/unit_weight) and threads, so it is unit-tested; `kiln exec` applies it to the
// compiler it starts (io::ProcessSpec::nice). Data: data/build_jobs.toml [priority].
#include <string>
#include <vector>

#include "launch/unit_weight.hpp"

namespace kiln::launch {

struct PriorityPolicy {
  double step = 1.25;  // the scheduler's weight ratio per nice level
  int max_nice = 8;
  // The cap for a unit known only by its estimate: one estimated far too short must not be starved.
  int max_nice_estimated = 4;
  double serial_fraction = 0.3;
  static PriorityPolicy from_data();
};

struct Priority {
  int nice = 0;     // how much to raise the compiler's nice value
  std::string why;  // empty when not considered (nothing known about the work)
};

// How many nice levels stand for a weight ratio of `ratio` (the scheduler's step per level), rounded:
// the one conversion behind a compile's priority, its share nice and its running threads' nice.
int nice_levels(double ratio, const PriorityPolicy& policy);

// Expected wall time of `work` on `threads` threads (Amdahl's law with the policy's serial part).
double unit_duration(double work, int threads, const PriorityPolicy& policy);

struct PeerUnit {
  UnitWork work;
  int threads = 1;
};

// `me`: this unit's work and the threads it was granted; `peers`: the compiles running beside it
// (their work and granted threads) and those the plan says start soon (one thread each).
Priority decide_priority(const UnitWork& me, int my_threads, const std::vector<PeerUnit>& peers,
                         const PriorityPolicy& policy);

// The same priority as one weight for the whole compile, for launch/thread_share: what its granted
// threads weigh at its nice, `threads` x step^-nice, as the nice of ONE thread of that weight, on a
// scale where a compile granted every core at nice 0 is nice 0 (so the build never outranks the
// rest of the machine). The watcher shares that weight among the threads the compile runs at each
// moment: in a serial phase (its front end, the one long part of a split, its host compile) its one
// thread keeps the whole weight instead of one thread's share beside the split threads of others.
int share_nice(int threads, int nice, int cores, const PriorityPolicy& policy);

}  // namespace kiln::launch
