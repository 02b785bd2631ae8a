#include "drive/kill_evidence.hpp"

#include <fmt/format.h>

#include <array>
#include <string_view>

#include "launch/exec_record.hpp"

namespace kiln::drive {

namespace {

// The signatures that read a SIGKILL as memory (data/signatures.toml).
constexpr std::array<std::string_view, 3> kKillSignatures = {"resources.compiler-killed", "resources.killed",
                                                             "resources.nvcc-subprocess-killed"};

bool blames_a_kill(const diagnose::Diagnosis& d) {
  const auto* root = d.root_cause();
  if (!root || !root->signature) return false;
  for (auto id : kKillSignatures)
    if (root->signature->id == id) return true;
  return false;
}

// This build's units that kiln exec saw fail, with their recorded peaks (a compiler driver whose
// cc1plus or cicc was killed exits 1, not 128 + 9, so every failed unit is named).
std::string killed_units(const plan::Plan& plan, const BuildOutcome& o, const io::Seams& s) {
  const auto text = s.fs.read(plan.exec_log_path());
  if (!text) return "";
  std::string out;
  int n = 0;
  for (const auto& r : launch::parse_exec_log(*text).records) {
    if (r.exit == 0 || r.start_ms < o.started_ms) continue;
    if (++n > 3) continue;
    out += fmt::format("{}{}", out.empty() ? "" : ", ", r.output.empty() ? r.source : r.output);
    if (r.peak_rss_kib >= 0)
      out += fmt::format(" (its peak {} MiB{})", r.peak_rss_kib / 1024,
                         r.expected_kib ? fmt::format(" of the {} MiB reserved for it", r.expected_kib / 1024) : "");
  }
  if (n > 3) out += fmt::format(" and {} more", n - 3);
  return out;
}

}  // namespace

std::optional<std::string> killed_not_oom_line(const plan::Plan& plan, const BuildOutcome& outcome,
                                               const diagnose::Diagnosis& diagnosis, const io::Seams& s) {
  if (!outcome.oom_kills_before || !outcome.oom_kills_after || *outcome.oom_kills_after != *outcome.oom_kills_before)
    return std::nullopt;
  if (!blames_a_kill(diagnosis)) return std::nullopt;
  std::string units = killed_units(plan, outcome, s);
  return fmt::format(
      "kiln: killed, not out of memory: {} ended by SIGKILL; the kernel's OOM killer killed nothing during the "
      "build (/proc/vmstat oom_kill was {} before and after it){}",
      units.empty() ? "a compile" : units, *outcome.oom_kills_before,
      plan.governed() ? fmt::format(", and kiln's memory budget was {} MiB", plan.mem_budget_kib / 1024) : "");
}

}  // namespace kiln::drive
