#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/render.hpp"

namespace kiln::report {
namespace {

std::string esc(std::string_view s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&':
        o += "&amp;";
        break;
      case '<':
        o += "&lt;";
        break;
      case '>':
        o += "&gt;";
        break;
      case '"':
        o += "&quot;";
        break;
      default:
        o += c;
    }
  }
  return o;
}

const char* color(UnitKind kind) {
  switch (kind) {
    case UnitKind::cuda:
      return "#76b900";
    case UnitKind::cxx:
      return "#3b82f6";
    case UnitKind::link:
      return "#f59e0b";
    case UnitKind::other:
      break;
  }
  return "#9ca3af";
}

constexpr int kLeft = 60, kWidth = 1200;

// Time axis ticks under a chart of `height` pixels.
std::string axis(long span_ms, int y) {
  std::string o = fmt::format("<line x1='{}' y1='{}' x2='{}' y2='{}' class='ax'/>", kLeft, y, kLeft + kWidth, y);
  for (int k = 0; k <= 10; ++k) {
    double x = kLeft + kWidth * k / 10.0;
    o += fmt::format(
        "<line x1='{:.1f}' y1='{}' x2='{:.1f}' y2='{}' class='ax'/><text x='{:.1f}' y='{}' class='tick'>{}</text>", x,
        y, x, y + 4, x, y + 16, human_ms(span_ms * k / 10.0));
  }
  return o;
}

std::string line_chart(const std::vector<Sample>& s, long span, double ymax, const std::string& unit, double scale,
                       const char* stroke, std::optional<double> ref, const std::string& ref_label) {
  const int h = 160;
  // Drawn 12 px down so the top tick label is not clipped.
  std::string o = fmt::format("<svg width='{}' height='{}' role='img'><g transform='translate(0,12)'>",
                              kLeft + kWidth + 40, h + 42);
  if (ymax <= 0) ymax = 1;
  std::string pts = fmt::format("{},{} ", kLeft, h);
  const double bw = s.empty() ? 0 : static_cast<double>(kWidth) / s.size();
  for (size_t i = 0; i < s.size(); ++i) {
    double y = h - h * (s[i].value / ymax);
    pts += fmt::format("{:.1f},{:.1f} {:.1f},{:.1f} ", kLeft + bw * i, y, kLeft + bw * (i + 1), y);
  }
  pts += fmt::format("{},{}", kLeft + kWidth, h);
  o += fmt::format("<polygon points='{}' fill='{}' fill-opacity='0.35' stroke='{}'/>", pts, stroke, stroke);
  for (int k = 0; k <= 4; ++k) {
    double y = h - h * k / 4.0;
    o += fmt::format(
        "<line x1='{}' y1='{:.1f}' x2='{}' y2='{:.1f}' class='grid'/><text x='{}' y='{:.1f}' class='tick' "
        "text-anchor='end'>{:.3g}{}</text>",
        kLeft, y, kLeft + kWidth, y, kLeft - 4, y + 4, ymax * k / 4.0 * scale, unit);
  }
  if (ref && *ref <= ymax) {
    double y = h - h * (*ref / ymax);
    o += fmt::format(
        "<line x1='{}' y1='{:.1f}' x2='{}' y2='{:.1f}' class='ref'/><text x='{}' y='{:.1f}' class='tick'>{}</text>",
        kLeft, y, kLeft + kWidth, y, kLeft + kWidth - 120, y - 4, esc(ref_label));
  }
  o += axis(span, h) + "</g></svg>";
  return o;
}

std::string timeline(const Profile& p) {
  const int lane_h = p.lanes > 48 ? 8 : 16;
  const int h = std::max(1, p.lanes) * lane_h;
  std::string o = fmt::format("<svg id='timeline' width='{}' height='{}' role='img'>", kLeft + kWidth + 40, h + 30);
  const long t0 = p.units.empty() ? 0 : std::min_element(p.units.begin(), p.units.end(), [](auto& a, auto& b) {
                                          return a.start_ms < b.start_ms;
                                        })->start_ms;
  const double span = std::max(1L, p.makespan_ms);
  for (int l = 0; l < p.lanes; ++l)
    o += fmt::format("<text x='{}' y='{}' class='tick' text-anchor='end'>{}</text>", kLeft - 4, l * lane_h + lane_h - 4,
                     l + 1);
  for (const auto& u : p.units) {
    double x = kLeft + kWidth * (u.start_ms - t0) / span;
    double w = std::max(1.0, kWidth * u.duration_ms() / span - 1);
    o += fmt::format(
        "<rect x='{:.1f}' y='{}' width='{:.1f}' height='{}' fill='{}'{} data-n='{}' data-d='{}' data-k='{}' "
        "data-t='{}' data-m='{}'><title>{} ({})</title></rect>",
        x, u.lane * lane_h + 1, w, lane_h - 2, color(u.kind), u.critical ? " class='crit'" : "", esc(u.name),
        human_ms(u.duration_ms()), to_string(u.kind), esc(u.target), human_kib(u.peak_rss_kib), esc(u.name),
        human_ms(u.duration_ms()));
  }
  o += axis(p.makespan_ms, h + 2) + "</svg>";
  return o;
}

std::string bars(const Profile& p, size_t top) {
  auto idx = slowest(p, top);
  const int bar_h = 20;
  const int label_w = 420;
  std::string o = fmt::format("<svg width='{}' height='{}' role='img'>", label_w + 760, idx.size() * bar_h + 10);
  const double longest = idx.empty() ? 1 : std::max(1L, p.units[idx.front()].duration_ms());
  for (size_t r = 0; r < idx.size(); ++r) {
    const Unit& u = p.units[idx[r]];
    std::string name = u.name.size() > 60 ? "..." + u.name.substr(u.name.size() - 57) : u.name;
    double w = 640.0 * u.duration_ms() / longest;
    int y = static_cast<int>(r) * bar_h;
    o += fmt::format("<text x='{}' y='{}' class='lbl' text-anchor='end'>{}</text>", label_w - 6, y + 14, esc(name));
    o += fmt::format("<rect x='{}' y='{}' width='{:.1f}' height='{}' fill='{}'{}><title>{}</title></rect>", label_w,
                     y + 2, std::max(1.0, w), bar_h - 4, color(u.kind), u.critical ? " class='crit'" : "", esc(u.name));
    o += fmt::format("<text x='{:.1f}' y='{}' class='lbl'>{}{}</text>", label_w + w + 6, y + 14,
                     human_ms(u.duration_ms()), u.peak_rss_kib >= 0 ? ", " + human_kib(u.peak_rss_kib) : "");
  }
  return o + "</svg>";
}

}  // namespace

std::string render_html(const Profile& p, size_t top) {
  std::string o = R"(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>kiln report</title>
<style>
body{font:14px system-ui,sans-serif;margin:24px;color:#111;background:#fff}
h1{font-size:20px;margin:0 0 4px} h2{font-size:16px;margin:24px 0 6px}
table{border-collapse:collapse} td,th{padding:3px 10px;text-align:left;border-bottom:1px solid #e5e7eb}
td.n{text-align:right;font-variant-numeric:tabular-nums}
.ax{stroke:#6b7280} .grid{stroke:#e5e7eb} .ref{stroke:#dc2626;stroke-dasharray:4 3}
.tick{font-size:10px;fill:#4b5563} .lbl{font-size:12px;fill:#111}
rect.crit{stroke:#dc2626;stroke-width:1.5}
.key span{display:inline-block;width:12px;height:12px;margin:0 4px 0 12px;vertical-align:-2px}
#info{min-height:1.4em;color:#374151;font-family:monospace}
.muted{color:#6b7280}
</style></head><body>
)";
  o += fmt::format("<h1>kiln report</h1><div class='muted'>{} &middot; .ninja_log v{} &middot; {} jobs</div>\n",
                   esc(p.build_dir), p.log_version, p.units.size());
  o += "<h2>Summary</h2><table>";
  auto row = [&](const std::string& k, const std::string& v, const std::string& note) {
    o += fmt::format("<tr><th>{}</th><td class='n'>{}</td><td class='muted'>{}</td></tr>", esc(k), esc(v), esc(note));
  };
  row("wall time", human_ms(p.makespan_ms), "first job start to last job end");
  row("total CPU", human_ms(p.total_cpu_ms),
      p.cpu_from_exec ? "cpu_ms from kiln-exec.jsonl where recorded" : "sum of job durations");
  row("critical path", human_ms(p.critical_path_ms), p.critical_path_method);
  row("lower bound", human_ms(p.lower_bound_ms),
      p.split_critical_path_ms >= 0
          ? fmt::format("max(CPU / {} cores, critical path with device phases split over the cores = {}); bound by {}",
                        p.cores, human_ms(p.split_critical_path_ms), to_string(p.bound_by))
          : fmt::format("max(CPU / {} cores, critical path); bound by {}", p.cores, to_string(p.bound_by)));
  row("cores", std::to_string(p.cores), "from " + p.cores_source);
  row("efficiency", fmt::format("{:.2f}x", p.efficiency), "wall time / lower bound (1.00 is the limit)");
  if (!p.remedy.empty()) row("remedy", "one unit", p.remedy);
  row("parallelism", fmt::format("{:.1f} avg, {} peak", p.avg_parallelism, p.max_parallelism), "concurrent jobs");
  row("peak memory", human_kib(p.peak_memory_kib),
      p.peak_memory_kib >= 0 ? "sum of the peak RSS of concurrent compiles" : "unknown: no kiln-exec.jsonl records");
  if (p.cache)
    row("cache", fmt::format("{:.0f}% hits", 100 * p.cache->hit_rate()),
        fmt::format("{} hits ({} remote), {} misses{}", p.cache->hits, p.cache->remote_hits, p.cache->misses,
                    p.cache_builds_ago ? std::string(" (of an earlier build: the last compiled nothing through ccache)")
                                       : std::string()));
  o += "</table>\n";

  o += "<h2>Jobs per core</h2><div class='key'><span style='background:#76b900'></span>CUDA<span "
       "style='background:#3b82f6'></span>C++<span style='background:#f59e0b'></span>link<span "
       "style='background:#9ca3af'></span>other<span style='background:#fff;border:2px solid #dc2626'></span>critical "
       "path</div><div id='info'>&nbsp;</div>\n";
  o += timeline(p) + "\n";
  o += "<h2>Parallelism over time</h2>\n";
  o += line_chart(p.parallelism, p.makespan_ms, 4 * std::ceil(std::max<double>(p.max_parallelism, p.cores) / 4.0), "",
                  1, "#3b82f6", static_cast<double>(p.cores), fmt::format("{} cores", p.cores)) +
       "\n";
  o += "<h2>Memory over time</h2>\n";
  if (!p.memory.empty()) {
    double mx = 0;
    for (const auto& s : p.memory) mx = std::max(mx, s.value);
    const bool gib = mx >= 2.0 * 1024 * 1024;
    o += line_chart(p.memory, p.makespan_ms, mx * 1.1, gib ? " GiB" : " MiB", gib ? 1.0 / 1024 / 1024 : 1.0 / 1024,
                    "#8b5cf6", std::nullopt, "") +
         "\n";
  } else {
    o += "<p class='muted'>Unknown: the build has no kiln-exec.jsonl records (memory is recorded when compiles run "
         "through kiln exec).</p>\n";
  }
  o += fmt::format("<h2>Slowest {} units</h2>\n", std::min(top, p.units.size())) + bars(p, top) + "\n";
  o += "<h2>Slowest targets</h2><table><tr><th>target</th><th>units</th><th>time</th></tr>";
  for (size_t i = 0; i < p.targets.size() && i < top; ++i)
    o += fmt::format("<tr><td>{}</td><td class='n'>{}</td><td class='n'>{}</td></tr>", esc(p.targets[i].name),
                     p.targets[i].units, human_ms(p.targets[i].total_ms));
  o += "</table>\n";
  if (!p.arch_times.empty()) {
    o += fmt::format(
        "<h2>Time per architecture</h2><p class='muted'>{}</p><table><tr><th>arch</th><th>time</th><th>units</th></tr>",
        esc(p.arch_method));
    for (const auto& a : p.arch_times)
      o += fmt::format("<tr><td>sm_{}</td><td class='n'>{}</td><td class='n'>{}</td></tr>", a.arch, human_ms(a.ms),
                       a.units);
    o += "</table>\n";
  }
  {
    std::string rows;
    for (size_t i : slowest(p, top)) {
      const Unit& u = p.units[i];
      if (u.phases.archs.empty()) continue;
      std::string archs;
      for (const auto& [a, ph] : u.phases.archs)
        archs += fmt::format("{}sm_{} {} / {}", archs.empty() ? "" : "<br>", a, human_ms(ph.device_ms),
                             human_ms(ph.ptxas_ms));
      rows += fmt::format(
          "<tr><td>{}</td><td class='n'>{}</td><td class='n'>{}</td><td class='n'>{}</td><td class='n'>{}</td>"
          "<td class='n'>{}</td><td class='n'>{}</td><td>{}</td></tr>",
          esc(u.name), human_ms(u.duration_ms()), human_ms(u.phases.front_end_ms), archs, human_ms(u.phases.host_ms),
          human_ms(u.phases.link_ms), human_ms(u.phases.other_ms),
          u.split > 1 || u.threads > 1
              ? fmt::format("split {} threads {}", std::max(1, u.split), std::max(1, u.threads))
              : esc(u.grant.empty() ? std::string("1") : "1 (" + u.grant + ")"));
    }
    if (!rows.empty())
      o += "<h2>nvcc phases per unit</h2><p class='muted'>nvcc --time, recorded per unit by kiln exec; device = front "
           "end "
           "+ cicc per architecture</p><table><tr><th>unit</th><th>time</th><th>front end</th><th>device / ptxas</th>"
           "<th>host</th><th>link</th><th>other</th><th>threads</th></tr>" +
           rows + "</table>\n";
  }
  for (const auto& n : p.notes) o += "<p class='muted'>note: " + esc(n) + "</p>\n";
  o += R"(<script>
// Hovering a job shows its details; no network, no libraries.
const info = document.getElementById('info');
document.querySelectorAll('#timeline rect').forEach(r => r.addEventListener('mouseenter', () => {
  const d = r.dataset;
  info.textContent = `${d.n}  ${d.d}  ${d.k}  target ${d.t}  peak RSS ${d.m}`;
}));
</script>
</body></html>
)";
  return o;
}

}  // namespace kiln::report
