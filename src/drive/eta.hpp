#pragma once
// The time left in a build, from what each step took last time. Extrapolating the rate so far
// jumps around: code generation and C++ steps finish first and fast, CUDA steps come later and are
// slow, so the rate early on says 18 s when 117 s are left. Ninja's own log of the previous build
// (.ninja_log) knows each output's duration; weighting the steps left by it, and scaling by how
// this build's finished steps compare with their last durations (ccache hits, a busier machine),
// gives an estimate that holds still.
// The time left is then laid out on the build's parallel lanes (its jobs): the units running end
// where they started plus a unit's time, the queued ones take the lanes as they free. Heavy uniform
// units come in waves (flash-attention 2: 97 units of about 4.6 CPU-minutes on 32 lanes is four
// waves, the last of one unit), which the work left over the lanes alone misses by a wave. With no
// history (a cold first build) a unit's time is what the finished ones really took: where the
// launcher says what runs (launch/running_units), each unit's own start and end, and the units still
// running count as at least as long as they have run (a Kaplan-Meier estimate over the units that
// started last, so that the short units of a wave, which end first, do not stand for all of it);
// else each lane's unit started when the unit `jobs` finishes before it ended (issue 35: "45m16s
// left" after the first unit of a 28-minute build, from the rate so far).
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "drive/ninja_progress.hpp"
#include "io/environment.hpp"
#include "io/fs.hpp"
#include "plan/plan.hpp"

namespace kiln::drive {

// A compile running now, as the launcher lists it (launch/running_units): its output and how long it
// has run.
struct RunningCompile {
  std::string output;
  std::chrono::milliseconds ran{0};
  bool operator==(const RunningCompile&) const = default;
};

// A unit of the build and kiln's weight of it before any history (launch/plan_weights: what its
// source includes and instantiates), in the order Ninja starts them.
struct UnitWeight {
  std::string output;
  double weight = 0;
};

class EtaModel {
public:
  // `learned_ms`: output path (relative to the build folder, as .ninja_log writes it) -> duration.
  // `jobs`: how many steps run at once.
  EtaModel(std::map<std::string, long> learned_ms, int jobs);
  // `late`: asked when nothing was learned before the build, from the first status line that reports
  // a unit ended until it answers (nullopt: no unit plan yet): a fresh clone's history is keyed by
  // its units (launch/learned_cost), which only the build's unit plan names, and that plan is
  // written once the build has started.
  EtaModel(std::map<std::string, long> learned_ms, int jobs,
           std::function<std::optional<std::map<std::string, long>>()> late);

  // Feed every status line as it arrives (ninja prints it when a step finishes); returns the time
  // left, or nullopt while there is nothing to go on yet. `running_for`: how long each compile
  // running now has run (the launcher's files, launch/running_units), when known.
  std::optional<std::chrono::seconds> update(const NinjaStatus& s, std::chrono::milliseconds elapsed,
                                             const std::vector<RunningCompile>& running);
  // The same without the compiles' names (times only, or no launcher).
  std::optional<std::chrono::seconds> update(const NinjaStatus& s, std::chrono::milliseconds elapsed,
                                             const std::vector<std::chrono::milliseconds>& running_for = {});
  // Cold, each unit's weight (asked as `late` is, when nothing was learned: the unit plan is
  // written once the build has started). Once the weights explain most of the spread
  // of the times the finished units took, the units left are scaled by theirs: kiln starts the
  // heaviest first, so the units that finished say little of the lighter ones queued.
  void weigh_late(std::function<std::optional<std::vector<UnitWeight>>()> weights) { weigh_late_ = std::move(weights); }

  bool learned() const { return !learned_.empty(); }

private:
  void learn(std::map<std::string, long> learned_ms);
  std::function<std::optional<std::map<std::string, long>>()> late_;
  std::map<std::string, long> learned_;
  int jobs_;
  // The end of the build if each unit left takes `unit_ms`, laid out on the lanes.
  double lane_end_ms(int total, int done, double elapsed_ms, double unit_ms,
                     const std::vector<std::chrono::milliseconds>& running_for) const;
  // Cold, with the launcher's list of running compiles: each compile's start (ms on the build's
  // clock) while it runs, and its start and time once it has gone from the list.
  struct Unit {
    double began = 0, ms = 0;
    bool done = false;
    std::string output;
    double w = 0;  // kiln's weight of the unit (a finished one's set as it ends); 0: none
  };
  struct Began {
    double at = 0;
    std::string output;
  };
  void follow_running(int total, int done, double now_ms, const std::vector<RunningCompile>& running);
  std::optional<double> cold_end_ms(int total, int done, double now_ms);
  // Each unit's time as the power of its weight that a fit over the window's finished units finds,
  // or nullopt while the weights explain too little of their spread.
  struct Scale {
    double power = 1, heaviest = 0;  // a unit's time goes as min(weight, heaviest) ^ power
  };
  std::optional<Scale> weight_power(const std::vector<Unit>& window);
  // Else a power from how far the units left (the window's running ones and those not started)
  // differ by weight from every unit finished, or nullopt where they are alike.
  std::optional<Scale> weight_gap_power(const std::vector<Unit>& window) const;
  double weight_of(const std::string& output) const;
  // The times of the `queued` units not started yet, each `mean` scaled by its weight (`scale`:
  // where the weights are used).
  std::vector<double> queued_times(int queued, double mean, const std::function<double(double)>& scale) const;
  void mark_started(const std::string& output);
  std::function<std::optional<std::vector<UnitWeight>>()> weigh_late_;
  std::vector<UnitWeight> weights_;
  std::vector<bool> started_;       // per weights_: named by a status line or the launcher's list
  std::set<std::string> named_;     // the outputs marked so far
  std::vector<std::string> ended_;  // the output each status line names, in order
  bool scaled_ = false;             // the weights explained the spread at the last line
  std::vector<Began> running_began_;
  std::vector<Unit> finished_;
  std::optional<double> first_start_ms_;  // the first compile's start: the build's first wave
  int updates_ = 0;                       // status lines fed
  std::set<std::string> seen_;
  std::vector<double> finished_ms_;  // when each step finished, in order
  double seen_ms_ = 0;               // last durations of the outputs finished so far
  double unseen_ms_ = 0;             // of the learned outputs not finished yet
  double mean_ms_ = 0;               // of all learned outputs
  std::optional<double> smoothed_end_ms_;
};

// The output a status line names: its last word ("Building CUDA object CMakeFiles/k.dir/k.cu.o"),
// or in a command line (Ninja -v) the word after its last "-o".
std::string output_of(const std::string& description);

// One output spelled by two tools (the unit plan or the launcher, and Ninja's line or the
// compiler's -o): the same path, or one ends with the other at a folder boundary (a relative -o
// against the plan's path in the build folder).
bool same_output(const std::string& a, const std::string& b);

// What each output took in the last build whose compiles went through `kiln exec` (kiln-exec.jsonl,
// absolute paths as the compiler got them): a torch extension build has no .ninja_log in kiln's
// build folder, and its extensions' Ninja logs do not survive a fresh copy of the build folder.
std::map<std::string, long> learned_from_exec_log(const std::string& text);

// What each output took in the previous build in this folder, over the whole build: Ninja's
// .ninja_log (drive/ninja_log), else kiln exec's records (a torch extension's compiles, every
// extension's Ninja). Empty when neither is there.
std::map<std::string, long> learned_from_last_build(const io::Filesystem& fs, const plan::Plan& plan);

// What each unit of the build's unit plan took when it last compiled in any checkout of the project
// (the user's history, launch/learned_cost): a fresh clone's ETA. The plan is kiln's own
// (BUILD/.kiln/units.plan) or a torch extension's (build/temp.*/kiln-units.plan, written by
// data/parallel_extensions.py); nullopt while no plan names a unit (ask again later). Units this build compiled (kiln
// exec's records that started at or after `since_ms`, the build's start) are not history: kiln exec writes a unit's
// history as it ends, before Ninja reports it, so the first status line read the build's own first, shortest unit back
// as the history of a "learned" build and held the ETA to it (issue 35: "4m25s left" at 2m31s of a 14-minute
// flash-attention build, "3m34s" at 7m31s).
std::optional<std::map<std::string, long>> learned_from_unit_history(const io::Filesystem& fs, const plan::Plan& plan,
                                                                     const io::Environment& env,
                                                                     long long since_ms = 0);

// Each unit of the build's unit plans (those learned_from_unit_history reads) with kiln's weight of
// it (launch/plan_weights, what `kiln exec --weigh` prints: learned CPU time, else the estimate from
// its source), in each plan's order: for a torch extension the order its Ninja starts them
// (data/parallel_extensions.py writes the plan heaviest first). nullopt while no plan names a unit.
// Weighing reads every unit's source and project headers: about 10 ms a unit (flash-attention's 97
// in 1 s), once, at the first status line of a cold build that finds a plan, on the thread that reads
// Ninja's lines.
// So a build of more than kMaxWeighedUnits planned units (a PyTorch checkout's thousands: a minute)
// is not weighed, and its ETA is the unweighted one.
inline constexpr size_t kMaxWeighedUnits = 256;
std::optional<std::vector<UnitWeight>> unit_plan_weights(const io::Filesystem& fs, const plan::Plan& plan,
                                                         const io::Environment& env);

}  // namespace kiln::drive
