#pragma once
// Builds replayed into the ETA model (drive/eta), for test_drive_eta: real records of the GPU host
// (tests/fixtures/eta/*.tsv: each compile's start and end) and units laid out as Ninja runs them,
// fed as kiln build feeds the model, scored against when the build's last compile really ended.
#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cli/build_progress.hpp"
#include "drive/eta.hpp"
#include "test_support.hpp"

namespace kiln::testing {

struct RecordedUnit {
  long start_ms = 0, end_ms = 0;
  std::string output;
  double weight = 0;  // kiln's weight before any history (the fixtures' fourth column)
};

inline std::vector<RecordedUnit> recorded_units(const std::string& name) {
  std::ifstream in(source_dir() + "/tests/fixtures/eta/" + name);
  std::vector<RecordedUnit> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    RecordedUnit u;
    if (fields >> u.start_ms >> u.end_ms) {
      fields >> u.output >> u.weight;
      out.push_back(u);
    }
  }
  return out;
}

// Units laid out as Ninja runs them: each takes the first lane to free, after `startup_ms` of the
// backend's start (Python, setup.py, import torch) before the first compile. {start, end} per unit.
inline std::vector<RecordedUnit> laid_out(const std::vector<long>& ms, int lanes, long startup_ms) {
  std::vector<long> lane(static_cast<size_t>(lanes), startup_ms);
  std::vector<RecordedUnit> out;
  for (long d : ms) {
    auto it = std::min_element(lane.begin(), lane.end());
    out.push_back({*it, *it + d, "u" + std::to_string(out.size()) + ".o"});
    *it += d;
  }
  return out;
}

// "Building CUDA object OUTPUT" for the unit that ended at `end`, as a status line names it.
inline std::string ended_at(const std::vector<RecordedUnit>& units, long end) {
  for (const auto& u : units)
    if (u.end_ms == end) return "Building CUDA object " + u.output;
  return "x";
}

inline std::vector<long> sorted_ends(const std::vector<RecordedUnit>& units) {
  std::vector<long> ends;
  for (const auto& u : units) ends.push_back(u.end_ms);
  std::sort(ends.begin(), ends.end());
  return ends;
}

// The compiles running at `now` (ms on the record's clock) and their ages.
inline std::vector<drive::RunningCompile> running_ages(const std::vector<RecordedUnit>& units, long now) {
  std::vector<drive::RunningCompile> running;
  for (const auto& u : units)
    if (u.start_ms <= now && now < u.end_ms) running.push_back({u.output, std::chrono::milliseconds(now - u.start_ms)});
  return running;
}

// The model as kiln build makes it for a cold build; `weighed`: told each unit's weight, in the
// order the units started (kiln's order, the unit plan's), answering "no plan yet" the first
// `unanswered` times it is asked (the plan is written once the build has started).
inline drive::EtaModel cold_model(const std::vector<RecordedUnit>& units, int lanes, bool weighed, int unanswered = 0) {
  drive::EtaModel model({}, lanes);
  if (weighed) {
    auto by_start = units;
    std::stable_sort(by_start.begin(), by_start.end(),
                     [](const auto& a, const auto& b) { return a.start_ms < b.start_ms; });
    std::vector<drive::UnitWeight> weights;
    for (const auto& u : by_start) weights.push_back({u.output, u.weight});
    model.weigh_late([weights, unanswered]() mutable -> std::optional<std::vector<drive::UnitWeight>> {
      if (unanswered > 0) return --unanswered, std::nullopt;
      return weights;
    });
  }
  return model;
}

// The worst ETA against the truth from the `lanes`-th status line (or `first_line`, when given) on while at
// least `min_left_s` are left, as {shortest, longest} ratio: a status line as each unit ends, with the
// exact ages of the compiles running then. `clock_offset_ms`: how long the build step ran before the
// first compile.
inline std::pair<double, double> replayed_ratios(const std::vector<RecordedUnit>& units, int lanes, double min_left_s,
                                                 long clock_offset_ms = 0, bool weighed = false, int first_line = 0) {
  const auto ends = sorted_ends(units);
  auto model = cold_model(units, lanes, weighed);
  double lo = 1e9, hi = 0;
  for (size_t k = 0; k + 1 < ends.size(); ++k) {
    auto eta = model.update(
        drive::NinjaStatus{static_cast<int>(k + 1), static_cast<int>(units.size()), ended_at(units, ends[k])},
        std::chrono::milliseconds(ends[k] + clock_offset_ms), running_ages(units, ends[k]));
    const double truth = static_cast<double>(ends.back() - ends[k]) / 1000.0;
    if (!eta || static_cast<int>(k + 1) < (first_line > 0 ? first_line : lanes) || truth < min_left_s) continue;
    lo = std::min(lo, static_cast<double>(eta->count()) / truth);
    hi = std::max(hi, static_cast<double>(eta->count()) / truth);
  }
  return {lo, hi};
}

// What the model is told runs at a status line: from the launcher's files as last read (`read`),
// `since_read` before the line, and the outputs the status lines since that read reported ended.
using RunningFeed = std::function<std::vector<drive::RunningCompile>(
    const cli::RunningNow& read, std::chrono::milliseconds since_read, const std::vector<std::string>& ended)>;

struct LiveRatios {
  std::pair<double, double> status{1e9, 0}, lines{1e9, 0};  // {lowest, highest} said / true
};

// Replays a record as `kiln build` feeds the model (cli/build_progress): the launcher's files are
// read once a second, `phase_ms` into each second of the build step's clock (cli::longest_running);
// a status line comes as each unit ends ("Building CUDA object OUTPUT"), told what runs by `feed`;
// between status lines the estimate counts down each second (a terminal's line; a log prints every
// tenth). Scored from the `lanes`-th status line (or `first_line`, when given) on while more than `min_left_s` is
// left; `weighed`: the model is told each unit's weight (cold_model).
inline LiveRatios live_ratios(const std::vector<RecordedUnit>& units, int lanes, double min_left_s,
                              long clock_offset_ms, long phase_ms, const RunningFeed& feed, bool weighed = false,
                              int first_line = 0, int unanswered = 0) {
  const int scored_from = first_line > 0 ? first_line : lanes;
  using std::chrono::milliseconds;
  std::vector<RecordedUnit> by_end = units;
  for (auto& u : by_end) u.start_ms += clock_offset_ms, u.end_ms += clock_offset_ms;
  std::sort(by_end.begin(), by_end.end(), [](const auto& a, const auto& b) { return a.end_ms < b.end_ms; });
  const long last = by_end.back().end_ms;
  const int total = static_cast<int>(units.size());
  auto model = cold_model(units, lanes, weighed, unanswered);
  LiveRatios r;
  auto score = [](std::pair<double, double>& range, double said, double truth) {
    range = {std::min(range.first, said / truth), std::max(range.second, said / truth)};
  };
  cli::RunningNow read;
  long read_at = 0, status_at = 0;
  std::vector<std::string> ended;
  std::optional<std::chrono::seconds> eta;
  int done = 0;
  for (long t = phase_ms; t < last; t += 1000) {
    for (; done + 1 < total && by_end[static_cast<size_t>(done)].end_ms < t; ++done) {
      const auto& u = by_end[static_cast<size_t>(done)];
      ended.push_back(u.output);
      eta = model.update(drive::NinjaStatus{done + 1, total, "Building CUDA object " + u.output},
                         milliseconds(u.end_ms), feed(read, milliseconds(u.end_ms - read_at), ended));
      status_at = u.end_ms;
      const double truth = static_cast<double>(last - u.end_ms) / 1000.0;
      if (eta && done + 1 >= scored_from && truth > min_left_s)
        score(r.status, static_cast<double>(eta->count()), truth);
    }
    std::vector<launch::RunningUnit> listed;
    for (const auto& u : by_end)
      if (u.start_ms <= t && t < u.end_ms) listed.push_back({1, 1, u.start_ms, u.output});
    read = cli::longest_running(listed, t).value_or(cli::RunningNow{});
    read_at = t;
    ended.clear();
    const double truth = static_cast<double>(last - t) / 1000.0;
    if (eta && done >= scored_from && truth > min_left_s)
      score(r.lines, static_cast<double>(cli::eta_after(eta, std::chrono::seconds((t - status_at) / 1000))->count()),
            truth);
  }
  return r;
}

// live_ratios' lines at four phases of the launcher's reads against the status lines: the lowest
// and the highest said / true.
inline std::pair<double, double> live_lines(const std::vector<RecordedUnit>& units, int lanes, double min_left_s,
                                            long clock_offset_ms, const RunningFeed& feed, bool weighed = false,
                                            int first_line = 0, int unanswered = 0) {
  std::pair<double, double> range{1e9, 0};
  for (long phase : {0L, 250L, 500L, 750L}) {
    const auto lines =
        live_ratios(units, lanes, min_left_s, clock_offset_ms, phase, feed, weighed, first_line, unanswered).lines;
    range = {std::min(range.first, lines.first), std::max(range.second, lines.second)};
  }
  return range;
}

inline std::string range_text(std::pair<double, double> r) {
  return std::to_string(r.first) + ".." + std::to_string(r.second);
}

}  // namespace kiln::testing
