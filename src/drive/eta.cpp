#include "drive/eta.hpp"

#include <algorithm>
#include <cmath>
#include <queue>
#include <tuple>

#include "core/launcher_env.hpp"
#include "core/text.hpp"
#include "drive/ninja_folders.hpp"
#include "drive/ninja_log.hpp"
#include "launch/exec_record.hpp"
#include "launch/learned_cost.hpp"
#include "launch/plan_weights.hpp"
#include "launch/unit_plan.hpp"

namespace kiln::drive {

std::string output_of(const std::string& description) {
  // A command line (Ninja -v, as a torch extension's Ninja runs): the word after its last -o.
  if (auto o = description.rfind(" -o "); o != std::string::npos) {
    const auto start = description.find_first_not_of(' ', o + 4);
    if (start != std::string::npos) return description.substr(start, description.find(' ', start) - start);
  }
  const auto end = description.find_last_not_of(' ');
  if (end == std::string::npos) return {};
  const auto start = description.find_last_of(' ', end);
  return description.substr(start == std::string::npos ? 0 : start + 1,
                            end - (start == std::string::npos ? 0 : start + 1) + 1);
}

std::map<std::string, long> learned_from_exec_log(const std::string& text) {
  std::map<std::string, long> out;
  for (const auto& r : launch::parse_exec_log(text).records)
    if (!r.output.empty() && r.exit == 0 && r.wall_ms > 0) out[r.output] = r.wall_ms;  // the last run counts
  return out;
}

std::map<std::string, long> learned_from_last_build(const io::Filesystem& fs, const plan::Plan& plan) {
  std::map<std::string, long> learned;
  if (auto text = fs.read(plan.build_dir + "/.ninja_log")) learned = last_durations(*text);
  if (learned.empty())
    if (auto text = fs.read(plan.exec_log_path())) learned = learned_from_exec_log(*text);
  return learned;
}

bool same_output(const std::string& a, const std::string& b) {
  if (a == b) return true;
  const auto& [longer, shorter] = a.size() > b.size() ? std::tie(a, b) : std::tie(b, a);
  return !shorter.empty() && core::ends_with(longer, "/" + shorter);
}

namespace {

using FreeAt = std::priority_queue<double, std::vector<double>, std::greater<>>;

// The end of the build when the queued units, each of its time, take the first lane to free.
double last_end(FreeAt free_at, const std::vector<double>& queued_ms, double now_ms) {
  for (double unit_ms : queued_ms) {
    const double t = free_at.top();
    free_at.pop();
    free_at.push(t + unit_ms);
  }
  double end = now_ms;
  for (; !free_at.empty(); free_at.pop()) end = std::max(end, free_at.top());
  return end;
}

// A lane's end as a distribution: (ms, share) pairs in order of time, the shares summing to 1.
using EndDist = std::vector<std::pair<double, double>>;

// The expected end of the last of the lanes, their ends taken together: each lane at the same
// quantile of its own distribution (units that run side by side share the machine and kiln's error
// on their kind, so where one runs long the others tend to). The latest of the lanes' expected ends
// is earlier wherever several end close together: replayed, the last of flash-attention's units on
// 32 cores ended up to 15 s after it (issue 35; Sessions 17 and 19).
double expected_last_end(const std::vector<EndDist>& lanes) {
  constexpr int kQuantiles = 100;
  std::vector<size_t> at(lanes.size(), 0);
  std::vector<double> below(lanes.size(), 0.0);
  double sum = 0;
  for (int k = 0; k < kQuantiles; ++k) {
    const double q = (k + 0.5) / kQuantiles;
    double last = 0;
    for (size_t i = 0; i < lanes.size(); ++i) {
      const auto& lane = lanes[i];
      if (lane.empty()) continue;
      // The first end at or past the quantile (the quantiles rise: each lane's place only moves on).
      while (at[i] + 1 < lane.size() && below[i] + lane[at[i]].second < q) below[i] += lane[at[i]++].second;
      last = std::max(last, lane[at[i]].first);
    }
    sum += last;
  }
  return sum / kQuantiles;
}

double last_end(FreeAt free_at, int queued, double unit_ms, double now_ms) {
  return last_end(std::move(free_at), std::vector<double>(static_cast<size_t>(std::max(0, queued)), unit_ms), now_ms);
}

}  // namespace

namespace {

// The build's unit plans: kiln's own and each torch extension build's.
std::vector<std::string> unit_plan_paths(const io::Filesystem& fs, const plan::Plan& plan) {
  std::vector<std::string> plans{plan.unit_plan_path()};
  const std::string temp_root = extension_build_root(fs, plan.build_dir, plan.project_dir);
  if (!temp_root.empty())
    for (const auto& name : fs.list(temp_root))
      if (name.rfind("temp.", 0) == 0) plans.push_back(temp_root + "/" + name + "/kiln-units.plan");
  return plans;
}

// The build's unit plans read, or nullopt while none names a unit (asked again later: a torch
// extension's helper writes its plan once the build has started).
std::optional<std::vector<launch::UnitPlan>> read_unit_plans(const io::Filesystem& fs, const plan::Plan& plan) {
  std::vector<launch::UnitPlan> plans;
  size_t planned = 0;
  for (const auto& path : unit_plan_paths(fs, plan))
    if (auto text = fs.read(path)) planned += plans.emplace_back(launch::parse_unit_plan(*text)).units.size();
  if (planned == 0) return std::nullopt;
  return plans;
}

}  // namespace

std::optional<std::vector<UnitWeight>> unit_plan_weights(const io::Filesystem& fs, const plan::Plan& plan,
                                                         const io::Environment& env) {
  const auto plans = read_unit_plans(fs, plan);
  if (!plans) return std::nullopt;
  size_t planned = 0;
  for (const auto& units : *plans) planned += units.units.size();
  if (planned > kMaxWeighedUnits) return std::vector<UnitWeight>{};
  const auto at = launch::HistoryPlaces::from_env(core::LauncherEnv::from_env(plan.child_env(env)));
  std::vector<UnitWeight> out;
  for (const auto& units : *plans) {
    std::map<std::string, double> weight;
    for (const auto& u : launch::weigh_plan(fs, at, units).units) weight[u.output] = u.weight;
    for (const auto& u : units.units) out.push_back({u.output, weight[u.output]});
  }
  return out;
}

std::optional<std::map<std::string, long>> learned_from_unit_history(const io::Filesystem& fs, const plan::Plan& plan,
                                                                     const io::Environment& env, long long since_ms) {
  const auto at = launch::HistoryPlaces::from_env(core::LauncherEnv::from_env(plan.child_env(env)));
  if (at.units_dir.empty()) return std::map<std::string, long>{};
  const auto plans = read_unit_plans(fs, plan);
  if (!plans) return std::nullopt;
  std::map<std::string, long> out;
  for (const auto& units : *plans) out.merge(launch::learned_walls(fs, at, units));
  if (since_ms > 0 && !out.empty())
    if (auto text = fs.read(plan.exec_log_path()))
      for (const auto& r : launch::parse_exec_log(*text).records)
        if (r.start_ms >= since_ms) std::erase_if(out, [&](const auto& kv) { return same_output(kv.first, r.output); });
  return out;
}

EtaModel::EtaModel(std::map<std::string, long> learned_ms, int jobs) : jobs_(std::max(1, jobs)) {
  learn(std::move(learned_ms));
}

EtaModel::EtaModel(std::map<std::string, long> learned_ms, int jobs,
                   std::function<std::optional<std::map<std::string, long>>()> late)
    : EtaModel(std::move(learned_ms), jobs) {
  if (learned_.empty()) late_ = std::move(late);
}

void EtaModel::learn(std::map<std::string, long> learned_ms) {
  learned_ = std::move(learned_ms);
  unseen_ms_ = 0;
  for (const auto& [_, ms] : learned_) unseen_ms_ += static_cast<double>(ms);
  if (!learned_.empty()) mean_ms_ = unseen_ms_ / static_cast<double>(learned_.size());
}

double EtaModel::lane_end_ms(int total, int done, double elapsed_ms, double unit_ms,
                             const std::vector<std::chrono::milliseconds>& running_for) const {
  const int lanes = std::max(1, std::min(jobs_, total));
  // The i-th unit to start took a lane at the build's start, or when the unit `lanes` finishes
  // before it ended.
  auto start = [&](int i) {
    const int freed = i - lanes;
    return freed < 0
               ? 0.0
               : finished_ms_[static_cast<size_t>(std::min<int>(freed, static_cast<int>(finished_ms_.size()) - 1))];
  };
  const int left = total - done;
  const int running = std::min(lanes, left);
  FreeAt free_at;
  // A running unit started when the launcher says it did, where it says (the heavy units of a
  // tail started minutes apart); else when the unit `lanes` before it ended. The youngest first: a
  // compile that just ended may still be listed (the files are read once a second), and it is old.
  std::vector<std::chrono::milliseconds> ages = running_for;
  std::sort(ages.begin(), ages.end());
  for (int i = done; i < done + running; ++i) {
    const auto k = static_cast<size_t>(i - done);
    const double began = k < ages.size() ? elapsed_ms - static_cast<double>(ages[k].count()) : start(i);
    free_at.push(std::max(elapsed_ms, began + unit_ms));
  }
  return last_end(std::move(free_at), left - running, unit_ms, elapsed_ms);
}

namespace {

// The compiles in `before` that `now` no longer lists: compiles that ended. Each list is sorted by
// start; a start is the same compile's within 1.5 s (the launcher's list is read once a second).
template <class B>
std::vector<B> gone_from(const std::vector<B>& before, const std::vector<B>& now) {
  constexpr double kSame = 1500;
  std::vector<B> gone;
  size_t i = 0, j = 0;
  while (i < before.size() && j < now.size()) {
    if (std::abs(before[i].at - now[j].at) <= kSame)
      ++i, ++j;
    else if (before[i].at < now[j].at)
      gone.push_back(before[i++]);
    else
      ++j;
  }
  gone.insert(gone.end(), before.begin() + static_cast<std::ptrdiff_t>(i), before.end());
  return gone;
}

// The time a unit takes as a distribution over the units' times: Kaplan-Meier, each unit still
// running counted as lasting at least as long as it has run; the mass past the last unit that ended
// is put at the longest time seen. (time, share) pairs.
std::vector<std::pair<double, double>> unit_times(std::vector<std::pair<double, bool>> obs) {
  std::sort(obs.begin(), obs.end());
  std::vector<std::pair<double, double>> dist;
  double survive = 1.0;
  size_t i = 0;
  while (i < obs.size()) {
    const double t = obs[i].first;
    const auto at_risk = static_cast<double>(obs.size() - i);
    int ended = 0;
    for (; i < obs.size() && obs[i].first == t; ++i) ended += obs[i].second ? 1 : 0;
    if (ended == 0) continue;
    const double share = survive * ended / at_risk;
    dist.emplace_back(t, share);
    survive -= share;
  }
  if (survive > 1e-9 && !obs.empty()) dist.emplace_back(obs.back().first, survive);
  return dist;
}

}  // namespace

void EtaModel::follow_running(int total, int done, double now_ms, const std::vector<RunningCompile>& running) {
  if (running.empty()) return;  // no launcher, or nothing listed yet: nothing new
  std::vector<Began> began;
  for (const auto& r : running) {
    began.push_back({now_ms - static_cast<double>(r.ran.count()), r.output});
    mark_started(r.output);
  }
  std::sort(began.begin(), began.end(), [](const Began& a, const Began& b) { return a.at < b.at; });
  const bool first_list = !first_start_ms_;
  first_start_ms_ = std::min(first_start_ms_.value_or(began.front().at), began.front().at);
  if (first_list) {
    // The units that ended before the list was first read were never listed: the first wave's
    // started with the build's first compile (the earliest start listed, when the list came with
    // the first status line, as kiln build reads it every second; else the build's start), the later
    // ones when the unit `jobs` before them ended.
    const int lanes = std::max(1, std::min(jobs_, total));
    const double wave = updates_ == 1 ? *first_start_ms_ : 0.0;
    for (int k = 0; k < done && k < static_cast<int>(finished_ms_.size()); ++k) {
      const double end = finished_ms_[static_cast<size_t>(k)];
      const double start = std::min(end, k < lanes ? wave : finished_ms_[static_cast<size_t>(k - lanes)]);
      const auto& output = ended_[static_cast<size_t>(k)];
      finished_.push_back({start, end - start, true, output, weight_of(output)});
    }
  } else {
    for (const auto& b : gone_from(running_began_, began))
      if (static_cast<int>(finished_.size()) < done)
        finished_.push_back({b.at, now_ms - b.at, true, b.output, weight_of(b.output)});
  }
  running_began_ = std::move(began);
}

void EtaModel::mark_started(const std::string& output) {
  if (weights_.empty() || output.empty() || !named_.insert(output).second) return;
  for (size_t i = 0; i < weights_.size(); ++i)
    if (!started_[i] && same_output(weights_[i].output, output)) {
      started_[i] = true;
      return;
    }
}

double EtaModel::weight_of(const std::string& output) const {
  if (output.empty()) return 0;
  for (const auto& u : weights_)
    if (same_output(u.output, output)) return u.weight;
  return 0;
}

std::optional<EtaModel::Scale> EtaModel::weight_power(const std::vector<Unit>& window) {
  // Least squares of log time on log weight over the finished units: the power, and how much of
  // the spread of their times it explains. Used once the weights explain 90% of their spread, kept
  // while 80%: eta_live.sh's units
  // (times 5-32 s, weights 4.5-8.5) 93-98% at a power of about 2; flash-attention's records never
  // above 87% on 32 cores or 74% on 16 with kiln de1e5b9's weights (docs/benchmarks.md, helper he2).
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0, heaviest = 0;
  for (const auto& u : window) {
    if (u.w <= 0) return scaled_ = false, std::nullopt;  // a unit kiln did not weigh: the times alone
    if (!u.done || u.ms <= 0) continue;
    const double x = std::log(u.w), y = std::log(u.ms);
    n += 1, sx += x, sy += y, sxx += x * x, sxy += x * y, syy += y * y;
    heaviest = std::max(heaviest, u.w);
  }
  if (n < 3) return scaled_ = false, std::nullopt;
  const double vx = sxx - sx * sx / n, vy = syy - sy * sy / n, cxy = sxy - sx * sy / n;
  if (vx <= 1e-9 || vy <= 1e-9) return scaled_ = false, std::nullopt;
  const double explained = cxy * cxy / (vx * vy), power = cxy / vx;
  scaled_ = power > 0 && explained >= (scaled_ ? 0.8 : 0.9);
  return scaled_ ? std::optional<Scale>(Scale{power, heaviest}) : std::nullopt;
}

std::optional<EtaModel::Scale> EtaModel::weight_gap_power(const std::vector<Unit>& window) const {
  // Where the fit cannot tell (the finished units' weights too alike to fit a power to, or their
  // times too scattered), kiln's weights are believed as far as they say the units left differ from
  // those finished: not at all where they are alike on average (the estimate's own error between
  // kernel families, about 25% on flash-attention, would only add noise), fully (a unit's time in
  // proportion to its weight) where the units left are e^0.5 = 1.65 times lighter or heavier on
  // average. Flash-attention in full, heaviest first, on 32 cores (Session 17): the first wave's
  // units weighed 273-345 and took 317-538 s, the 65 queued weighed 104-239 and took 123-338 s; the
  // times alone said 1.8 to 2.5 times the time left from the first wave on.
  constexpr double kFullyBelieved = 0.5;  // |difference of the mean log weights|
  double finished_log = 0, finished_n = 0, left_log = 0, left_n = 0, heaviest = 0;
  for (const auto& u : finished_)
    if (u.w > 0) finished_log += std::log(u.w), finished_n += 1;
  for (const auto& u : window) {
    if (u.w <= 0) return std::nullopt;  // a unit kiln did not weigh: the times alone (as weight_power)
    heaviest = std::max(heaviest, u.w);
    if (!u.done) left_log += std::log(u.w), left_n += 1;
  }
  for (size_t i = 0; i < weights_.size(); ++i)
    if (!started_[i] && weights_[i].weight > 0) left_log += std::log(weights_[i].weight), left_n += 1;
  if (finished_n == 0 || left_n == 0 || heaviest <= 0) return std::nullopt;
  const double power = std::min(1.0, std::abs(left_log / left_n - finished_log / finished_n) / kFullyBelieved);
  return power > 0.05 ? std::optional<Scale>(Scale{power, heaviest}) : std::nullopt;
}

std::optional<double> EtaModel::cold_end_ms(int total, int done, double now_ms) {
  if (finished_.empty()) return std::nullopt;
  const int lanes = std::max(1, std::min(jobs_, total));
  const int left = total - done;
  // At most a unit per lane runs: the oldest listed beyond that ended a moment ago (the list is read
  // once a second), as in lane_end_ms.
  std::vector<Began> running = running_began_;
  std::sort(running.begin(), running.end(),
            [](const Began& a, const Began& b) { return a.at > b.at; });  // youngest first
  running.resize(std::min(running.size(), static_cast<size_t>(std::max(0, std::min(lanes, left)))));
  // The units that started last, ended or running, are what the units left are like (kiln starts
  // the heaviest first, so the first wave says little about the last).
  std::vector<Unit> recent = finished_;
  for (const auto& b : running) recent.push_back({b.at, now_ms - b.at, false, b.output});
  std::sort(recent.begin(), recent.end(), [](const Unit& a, const Unit& b) { return a.began < b.began; });
  const size_t window = static_cast<size_t>(2 * lanes);
  if (recent.size() > window) recent.erase(recent.begin(), recent.end() - static_cast<std::ptrdiff_t>(window));
  if (std::none_of(recent.begin(), recent.end(), [](const Unit& u) { return u.done; }))
    recent.push_back(finished_.back());
  for (auto& u : recent)
    if (!u.done) u.w = weight_of(u.output);  // a finished unit was weighed once, as it ended
  // The units left are what the fit is for: a finished unit more than twice as heavy as any of them
  // (eta_live.sh's torch binding, 48 among CUDA units of 4.5-8.5) is left out of it.
  double heaviest_left = 0;
  for (const auto& u : recent)
    if (!u.done) heaviest_left = std::max(heaviest_left, u.w);
  for (size_t i = 0; i < weights_.size(); ++i)
    if (!started_[i]) heaviest_left = std::max(heaviest_left, weights_[i].weight);
  std::vector<Unit> like_left;
  for (const auto& u : recent)
    if (!u.done || u.w <= 2 * heaviest_left) like_left.push_back(u);
  // Once a wave's worth of units (`lanes`) has finished in the window and the weights explain their
  // times (weight_power), each unit's time is taken over its weight to the fitted power, the weight
  // never past the heaviest the fit saw (a torch binding running among CUDA units); else to the power
  // weight_gap_power gives, from the first unit finished on.
  const auto finished = std::count_if(recent.begin(), recent.end(), [](const Unit& u) { return u.done; });
  auto power = weights_.empty() || finished < lanes ? std::nullopt : weight_power(like_left);
  if (!power && !weights_.empty()) power = weight_gap_power(like_left);
  const Scale by = power.value_or(Scale{0, 0});  // power 0: every unit as its time alone
  if (power) recent = std::move(like_left);
  auto scale = [by](double w) { return w > 0 && by.power > 0 ? std::pow(std::min(w, by.heaviest), by.power) : 1.0; };
  std::vector<std::pair<double, bool>> obs;
  for (const auto& u : recent) obs.emplace_back(u.ms / scale(u.w), u.done);
  const auto dist = unit_times(std::move(obs));
  double mean = 0;
  for (const auto& [t, share] : dist) mean += t * share;
  // A running unit's time left: as the units' times past what it has run, their shares renormalised
  // (empty once it ran past every time: it ends now).
  auto left_after = [&dist](double ran) {
    double weight = 0;
    for (const auto& [t, share] : dist)
      if (t > ran) weight += share;
    EndDist out;
    for (const auto& [t, share] : dist)
      if (t > ran) out.emplace_back(t - ran, share / weight);
    return out;
  };
  const int listed = static_cast<int>(running.size());
  const int queued = left - std::max(listed, std::min(lanes, left));
  // Nothing queued: the build ends with the last of the units running, each ending as a unit that has
  // run as long does, any of the times. Scaled by kiln's weights, the times are each unit's over its
  // weight, and a unit's place among them is a place its neighbours share; without them the times are
  // of every kind of unit the build has (flash-attention's two waves: 99 to 416 s), whose spread says
  // nothing of how the units running now end together: their expected ends.
  if (queued <= 0 && by.power > 0) {
    std::vector<EndDist> lanes_end{EndDist{{now_ms, 1.0}}};  // never before now
    for (const auto& b : running) {
      const double s = scale(weight_of(b.output));
      auto& lane = lanes_end.emplace_back();
      for (const auto& [t, share] : left_after((now_ms - b.at) / s)) lane.emplace_back(now_ms + s * t, share);
      if (lane.empty()) lane.emplace_back(now_ms, 1.0);
    }
    return expected_last_end(lanes_end);
  }
  // Else each running unit ends when a unit that has run as long ends, on average.
  FreeAt free_at;
  for (const auto& b : running) {
    const double s = scale(weight_of(b.output));
    double rest = 0;
    for (const auto& [t, share] : left_after((now_ms - b.at) / s)) rest += t * share;
    free_at.push(now_ms + s * rest);
  }
  for (int k = listed; k < std::min(lanes, left); ++k) free_at.push(now_ms);  // a lane free now
  const auto queued_ms = queued_times(queued, mean, by.power > 0 ? std::function<double(double)>(scale) : nullptr);
  return last_end(std::move(free_at), queued_ms, now_ms);
}

std::vector<double> EtaModel::queued_times(int queued, double mean, const std::function<double(double)>& scale) const {
  // In the plan's order, each unit's time its weight's scale times the mean; a unit the plan does not
  // name (or all, unscaled) the mean's.
  std::vector<double> out;
  double sum = 0;
  int weighed = 0;
  if (scale)
    for (size_t i = 0; i < weights_.size() && static_cast<int>(out.size()) < queued; ++i)
      if (!started_[i] && weights_[i].weight > 0) {
        out.push_back(scale(weights_[i].weight) * mean);
        sum += weights_[i].weight, ++weighed;
      }
  out.resize(static_cast<size_t>(std::max(0, queued)), weighed ? scale(sum / weighed) * mean : mean);
  return out;
}

std::optional<std::chrono::seconds> EtaModel::update(const NinjaStatus& s, std::chrono::milliseconds elapsed,
                                                     const std::vector<std::chrono::milliseconds>& running_for) {
  std::vector<RunningCompile> running;
  for (const auto& ran : running_for) running.push_back({"", ran});
  return update(s, elapsed, running);
}

std::optional<std::chrono::seconds> EtaModel::update(const NinjaStatus& s, std::chrono::milliseconds elapsed,
                                                     const std::vector<RunningCompile>& running) {
  // Asked from the first unit's end, then at each status line until a unit plan is there: kiln
  // build's first line (an extension's "starting", 0 of its units) comes before the extension's
  // helper writes its plan, and a plan being written may be read in part; by the time a unit has
  // ended, its Ninja (started after the plan was written) has run. Asked once at that first line,
  // the weights never came: live, flash-attention's ETA stayed unweighed (Session 18).
  if (late_ && s.done >= 1)
    if (auto learned = late_()) {
      learn(std::move(*learned));
      late_ = nullptr;
    }
  if (weigh_late_ && !learned_.empty()) weigh_late_ = nullptr;
  if (weigh_late_ && !late_ && s.done >= 1)
    if (auto weights = weigh_late_()) {
      weights_ = std::move(*weights);
      started_.assign(weights_.size(), false);
      for (const auto& output : ended_) mark_started(output);
      for (auto& u : finished_) u.w = weight_of(u.output);
      weigh_late_ = nullptr;
    }
  ++updates_;
  const auto now_ms = static_cast<double>(elapsed.count());
  // Each status line is a step finished; a jump (two lines in one read) finished together.
  while (static_cast<int>(finished_ms_.size()) < s.done) {
    finished_ms_.push_back(now_ms);
    ended_.push_back(static_cast<int>(finished_ms_.size()) == s.done ? output_of(s.description) : "");
  }
  mark_started(ended_.empty() ? "" : ended_.back());
  std::vector<std::chrono::milliseconds> running_for;
  for (const auto& r : running) running_for.push_back(r.ran);
  const long left = s.total - s.done;
  if (left <= 0) return std::chrono::seconds(0);
  double unit_ms;
  std::optional<double> end_ms;
  if (learned_.empty()) {
    follow_running(s.total, s.done, now_ms, running);
    if (finished_ms_.empty() || s.done < 1 || now_ms < 1000) return std::nullopt;
    // What the finished units really took: each one's own time where the launcher lists them, else
    // each on its lane.
    const bool was_scaled = scaled_;
    end_ms = cold_end_ms(s.total, s.done, now_ms);
    // The weights begin to scale the units left: a new estimate, not a step of the old one.
    if (scaled_ && !was_scaled) smoothed_end_ms_.reset();
    const int lanes = std::max(1, std::min(jobs_, s.total));
    double sum = 0;
    for (size_t k = 0; k < finished_ms_.size(); ++k)
      sum += finished_ms_[k] - (static_cast<int>(k) < lanes ? 0.0 : finished_ms_[k - static_cast<size_t>(lanes)]);
    unit_ms = sum / static_cast<double>(finished_ms_.size());
  } else {
    const std::string out = output_of(s.description);
    if (auto it = learned_.find(out); it != learned_.end() && seen_.insert(out).second) {
      seen_ms_ += static_cast<double>(it->second);
      unseen_ms_ -= static_cast<double>(it->second);
    }
    const size_t unseen = learned_.size() - seen_.size();
    // The steps left: the learned outputs not finished yet when as many remain (a full rebuild),
    // else that many steps of their average length (which ones will run is not known).
    double work_ms;
    if (static_cast<size_t>(left) >= unseen)
      work_ms = unseen_ms_ + static_cast<double>(left - static_cast<long>(unseen)) * mean_ms_;
    else
      work_ms = static_cast<double>(left) * (unseen ? unseen_ms_ / static_cast<double>(unseen) : mean_ms_);
    // This build's pace against the last one: cache hits make it faster, a loaded machine slower.
    // Judged only once a few seconds of learned work have finished, and bounded, so one odd step
    // cannot swing the estimate.
    double pace = 1.0;
    const double expected_so_far = seen_ms_ / jobs_;
    if (seen_.size() >= 3 && expected_so_far >= 2000) pace = std::clamp(now_ms / expected_so_far, 0.05, 20.0);
    unit_ms = work_ms * pace / static_cast<double>(left);
  }
  if (!end_ms) end_ms = lane_end_ms(s.total, s.done, now_ms, unit_ms, running_for);
  // Smooth the predicted end, not the countdown, so the figure ticks down steadily.
  smoothed_end_ms_ = smoothed_end_ms_ ? 0.7 * *smoothed_end_ms_ + 0.3 * *end_ms : *end_ms;
  const double shown = std::max(0.0, *smoothed_end_ms_ - now_ms);
  return std::chrono::seconds(static_cast<long>(shown / 1000.0 + 0.5));
}

}  // namespace kiln::drive
