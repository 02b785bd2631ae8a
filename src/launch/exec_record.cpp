#include "launch/exec_record.hpp"

#include <climits>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/text.hpp"
#include "core/json_text.hpp"

namespace kiln::launch {

std::string record_json_line(const ExecRecord& r) {
  nlohmann::ordered_json j = {
      {"output", r.output}, {"source", r.source}, {"start_ms", r.start_ms}, {"wall_ms", r.wall_ms}};
  // -1 is "not recorded": such a field is left out, since the reader takes only non-negative
  // numbers (written as -1, the record did not read back: fuzz_text).
  if (r.cpu_ms >= 0) j["cpu_ms"] = r.cpu_ms;
  if (r.peak_rss_kib >= 0) j["peak_rss_kib"] = r.peak_rss_kib;
  j["exit"] = r.exit;
  j["waited_ms"] = r.waited_ms;
  j["archs"] = r.archs;
  j["expected_kib"] = r.expected_kib;
  j["pruned"] = r.pruned;
  if (!r.warning.empty()) j["warning"] = r.warning;
  if (!r.node.empty()) j["node"] = r.node, j["attempts"] = r.attempts;
  if (r.step_cpus > 0) j["step_cpus"] = r.step_cpus;
  if (!r.grant.empty()) {
    j["split"] = r.split;
    j["threads"] = r.threads;
    j["cores"] = r.cores;
    j["grant"] = r.grant;
    if (r.nice > 0) j["nice"] = r.nice;
    if (r.share_nice >= 0) j["share_nice"] = r.share_nice;
  }
  if (!r.grant_basis.empty()) {
    j["grant_basis"] = r.grant_basis;
    j["grant_share"] = std::round(r.grant_share * 1000) / 1000;
    j["grant_units"] = r.grant_units;
  }
  if (!r.phases.empty()) {
    nlohmann::ordered_json archs = nlohmann::ordered_json::object();
    for (const auto& [a, p] : r.phases.archs)
      archs[std::to_string(a)] = {{"device_ms", std::lround(p.device_ms)}, {"ptxas_ms", std::lround(p.ptxas_ms)}};
    j["phases"] = {{"front_end_ms", std::lround(r.phases.front_end_ms)},
                   {"host_ms", std::lround(r.phases.host_ms)},
                   {"link_ms", std::lround(r.phases.link_ms)},
                   {"other_ms", std::lround(r.phases.other_ms)},
                   {"archs", archs}};
  }
  // Paths are bytes: an argument that is not UTF-8 must not make the launcher throw (core/json_text).
  return core::dump_json(std::move(j)) + "\n";
}

ExecLog parse_exec_log(const std::string& text) {
  ExecLog log;
  std::istringstream in(text);
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      log.problems.push_back(fmt::format("line {}: not a JSON object", lineno));
      continue;
    }
    auto text_field = [&](const char* k) -> std::string {
      auto it = j.find(k);
      return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    bool bad = false;
    // A non-negative number that fits the field's type; anything else marks the line bad. A float is
    // converted only when it fits (1e30 into a long long is undefined: UBSan, fuzz_text), and an int
    // field takes no more than INT_MAX (4294967295 as "exit" became -1 and was written back so).
    auto num = [&](const char* k, bool required, long long missing = 0, long long most = LLONG_MAX) -> long long {
      auto it = j.find(k);
      if (it == j.end() || it->is_null()) {
        if (required) bad = true;
        return missing;
      }
      long long v = -1;
      if (it->is_number_float()) {
        const double d = it->get<double>();
        if (d >= 0 && d < 9e18) v = static_cast<long long>(d);
      } else if (it->is_number_unsigned()) {
        if (it->get<std::uint64_t>() <= static_cast<std::uint64_t>(LLONG_MAX)) v = it->get<long long>();
      } else if (it->is_number_integer()) {
        v = it->get<long long>();
      }
      if (v < 0 || v > most) {
        bad = true;
        return 0;
      }
      return v;
    };
    auto small = [&](const char* k, long long missing = 0) {
      return static_cast<int>(num(k, false, missing, INT_MAX));
    };
    ExecRecord r;
    r.output = text_field("output");
    r.source = text_field("source");
    r.start_ms = num("start_ms", true);
    r.wall_ms = static_cast<long>(num("wall_ms", true, 0, LONG_MAX));
    r.cpu_ms = static_cast<long>(num("cpu_ms", false, -1, LONG_MAX));
    r.peak_rss_kib = static_cast<long>(num("peak_rss_kib", false, -1, LONG_MAX));
    r.exit = small("exit");
    r.waited_ms = static_cast<long>(num("waited_ms", false, 0, LONG_MAX));
    r.archs = small("archs");
    r.split = small("split");
    r.threads = small("threads");
    r.cores = std::max(1, small("cores", 1));
    r.grant = text_field("grant");
    r.grant_basis = text_field("grant_basis");
    r.grant_units = small("grant_units");
    r.nice = std::min(19, small("nice"));
    r.share_nice = std::min(19, small("share_nice", -1));
    if (auto sh = j.find("grant_share"); sh != j.end() && sh->is_number() && sh->get<double>() >= 0)
      r.grant_share = std::min(1.0, sh->get<double>());
    r.warning = text_field("warning");
    r.node = text_field("node");
    r.attempts = std::max(1, small("attempts", 1));
    r.step_cpus = small("step_cpus");
    r.expected_kib = static_cast<std::uint64_t>(num("expected_kib", false));
    if (auto pr = j.find("pruned"); pr != j.end() && pr->is_boolean()) r.pruned = pr->get<bool>();
    if (auto ph = j.find("phases"); ph != j.end() && ph->is_object()) {
      // Up to 1e15 ms (31,000 years): the writer rounds with lround, which has no answer for 1e300.
      auto ms = [](const nlohmann::json& o, const char* k) {
        auto it = o.find(k);
        const double d = it != o.end() && it->is_number() ? it->get<double>() : 0.0;
        return d >= 0 && d < 1e15 ? d : 0.0;
      };
      r.phases.front_end_ms = ms(*ph, "front_end_ms");
      r.phases.host_ms = ms(*ph, "host_ms");
      r.phases.link_ms = ms(*ph, "link_ms");
      r.phases.other_ms = ms(*ph, "other_ms");
      if (auto a = ph->find("archs"); a != ph->end() && a->is_object())
        for (const auto& [k, v] : a->items()) {
          const auto arch = core::parse_int(k).value_or(0);
          if (arch <= 0 || arch > INT_MAX || !v.is_object()) continue;
          r.phases.archs[static_cast<int>(arch)] = {ms(v, "device_ms"), ms(v, "ptxas_ms")};
        }
      r.phases.rows = 1;
    }
    // A compiler run that produced nothing (a version probe: `c++ --version`) has no unit to describe.
    if (r.output.empty() && !bad && r.source.empty()) continue;
    if (r.output.empty() || bad) {
      log.problems.push_back(
          fmt::format("line {}: needs a string \"output\" and non-negative numbers "
                      "start_ms, wall_ms (cpu_ms, peak_rss_kib, waited_ms, archs optional)",
                      lineno));
      continue;
    }
    log.records.push_back(std::move(r));
  }
  return log;
}

}  // namespace kiln::launch
