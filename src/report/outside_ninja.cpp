#include "report/outside_ninja.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/text.hpp"
#include "drive/compile_span.hpp"

namespace kiln::report {
namespace {

// A link as a unit of the projection: its run and CPU time from the record, on the head node.
Unit link_unit(const ExecRecord& r) {
  Unit u;
  u.name = r.output;
  u.outputs = {r.output};
  u.kind = UnitKind::link;
  u.end_ms = std::max(0L, r.wall_ms);
  u.run_ms = u.end_ms;
  u.cpu_ms = r.cpu_ms;
  u.peak_rss_kib = r.peak_rss_kib;
  u.cores = std::max(1, r.cores);
  return u;
}

// The Ninja folder an extension's link follows: with the extensions built at once each has its own,
// kiln-ninja/<extension> by its dotted name (multiext.alpha links lib.*/multiext/alpha.cpython-*.so);
// else every folder's units.
std::vector<std::string> needs_of(const std::string& link_output, std::span<const ProfileInput> parts) {
  std::vector<std::string> all, own;
  for (const auto& p : parts) {
    auto module = core::base_name(p.build_dir);
    std::replace(module.begin(), module.end(), '.', '/');
    const bool its = parts.size() > 1 && link_output.find("/" + module + ".") != std::string::npos;
    for (const auto& j : p.log.jobs) {
      all.push_back(j.name());
      if (its) own.push_back(j.name());
    }
  }
  return own.empty() ? all : own;
}

}  // namespace

OutsideNinja outside_ninja(const io::Filesystem& fs, std::span<const ProfileInput> parts) {
  OutsideNinja out;
  if (parts.empty()) return out;
  // A Ninja folder that is not kiln's build folder is cpp_extension's (a CMake build's is kiln's).
  const std::string kiln_dir = core::without_trailing_slashes(parts.front().kiln_dir);
  const bool extension = !kiln_dir.empty() && std::any_of(parts.begin(), parts.end(), [&](auto& p) {
    return core::without_trailing_slashes(p.build_dir) != kiln_dir;
  });
  if (!extension) return out;
  const std::string what =
      "setuptools' links and the time before the first compile and after the last (Python, setup.py, import "
      "torch; the wheel, pip install)";
  const auto path = drive::compile_span_path(kiln_dir);
  std::optional<drive::CompileSpan> span;
  if (!io::read_refusal(fs, path, io::kBuildRecordMaxBytes))
    if (auto text = fs.read(path)) span = drive::parse_compile_span(*text);
  if (!span) {
    out.left_out.push_back(
        fmt::format("{}: kiln build keeps them in {}, and this build has none (made before kiln kept it)", what, path));
    return out;
  }
  // The outputs Ninja's logs have, as the launcher names them (absolute, or relative to the folder).
  std::set<std::string> in_ninja;
  for (const auto& p : parts)
    for (const auto& j : p.log.jobs)
      for (const auto& o : j.outputs) {
        in_ninja.insert(o);
        if (!o.empty() && o.front() != '/') in_ninja.insert(p.build_dir + "/" + o);
      }
  // This build's records (the last one per output): a rebuilt output appears more than once.
  std::map<std::string, const ExecRecord*> last;
  if (parts.front().exec)
    for (const auto& r : parts.front().exec->records)
      if (r.start_ms >= span->from_ms && r.start_ms <= span->to_ms) last[r.output] = &r;
  const bool ours = std::any_of(last.begin(), last.end(), [&](auto& kv) { return in_ninja.count(kv.first) > 0; });
  if (!ours) {
    out.left_out.push_back(
        fmt::format("{}: {} is of another build than these logs (none of its compiles is in them)", what, path));
    return out;
  }
  out.serial_ms = std::lround((span->before_s + span->after_s) * 1000);
  int compiles = 0;
  for (const auto& [output, r] : last) {
    if (in_ninja.count(output)) continue;
    // A record without a source compiled none: a link (launch/exec_launcher runs it on the head node).
    if (!r->source.empty()) {
      ++compiles;
      continue;
    }
    out.links.push_back(link_unit(*r));
    out.needs.push_back(needs_of(output, parts));
  }
  if (compiles)
    out.left_out.push_back(
        fmt::format("{} compile(s) of this build that no Ninja log here has (an earlier Ninja run in the same "
                    "folder): their time is not in the projection",
                    compiles));
  return out;
}

}  // namespace kiln::report
