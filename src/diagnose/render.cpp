#include "diagnose/render.hpp"

#include <fmt/format.h>

#include <sstream>

#include "core/terminal_text.hpp"

namespace kiln::diagnose {

namespace {

using json = nlohmann::ordered_json;

// Log lines can be megabytes long (a whole compile command); a person needs the start.
std::string clip(std::string_view s, size_t n = 240) {
  if (s.size() <= n) return std::string(s);
  return fmt::format("{}... [{} more characters]", s.substr(0, n), s.size() - n);
}

void print_finding(std::ostream& out, const Finding& f, std::string_view src, bool context, bool root) {
  const Signature& s = *f.signature;
  out << fmt::format("{}{}  [{}]\n", root ? "root cause: " : "", s.title, s.id);
  if (context && !f.context.empty()) {
    for (const auto& l : f.context) {
      bool ev =
          std::any_of(f.evidence.begin(), f.evidence.end(), [&](const LogLine& e) { return e.number == l.number; });
      out << fmt::format("  {} {}:{}: {}\n", ev ? '>' : ' ', src, l.number, clip(l.text));
    }
    for (const auto& e : f.evidence)
      if (e.number > f.context.back().number) out << fmt::format("  > {}:{}: {}\n", src, e.number, clip(e.text));
  } else {
    for (const auto& e : f.evidence) out << fmt::format("  {}:{}: {}\n", src, e.number, clip(e.text));
  }
  if (f.count > f.evidence.size()) out << fmt::format("  ({} matching lines in all)\n", f.count);
  out << "cause: " << f.cause << "\n";
  out << "fix:   " << f.fix << "\n";
  out << "docs:  " << s.docs << "\n";
}

json line_json(const LogLine& l) { return {{"line", l.number}, {"text", l.text}}; }

json finding_json(const Finding& f) {
  const Signature& s = *f.signature;
  json j;
  j["id"] = s.id;
  j["category"] = s.category;
  j["severity"] = s.severity == Severity::error ? "error" : "warning";
  j["priority"] = s.priority;
  j["title"] = s.title;
  j["line"] = f.first_line;
  j["count"] = f.count;
  j["captures"] = json::object();
  for (const auto& [k, v] : f.captures) j["captures"][k] = v;
  j["evidence"] = json::array();
  for (const auto& e : f.evidence) j["evidence"].push_back(line_json(e));
  j["context"] = json::array();
  for (const auto& c : f.context) j["context"].push_back(line_json(c));
  j["cause"] = f.cause;
  j["fix"] = f.fix;
  j["docs"] = s.docs;
  return j;
}

}  // namespace

namespace {

void render_raw(std::ostream& out, const Diagnosis& d, std::string_view source, const RenderOptions& opts) {
  std::string src = source == "-" ? "<stdin>" : std::string(source);
  const Finding* root = d.root_cause();
  if (!root) {
    out << fmt::format("no failure found in {} ({} lines)\n", src, d.lines);
    size_t warnings = d.findings.size();
    if (warnings && !opts.all)
      out << fmt::format("{} warning{}; run with --all to see {}\n", warnings, warnings == 1 ? "" : "s",
                         warnings == 1 ? "it" : "them");
    if (opts.all)
      for (const auto& f : d.findings) {
        out << "\nwarning: ";
        print_finding(out, f, src, opts.context, false);
      }
    return;
  }
  print_finding(out, *root, src, opts.context, true);
  // The command that failed, when a build tool named it and it is not already the finding.
  const Finding* step = d.find("build-tool.ninja-failed-command");
  auto shown = [&](uint64_t n) {
    return opts.context &&
           std::any_of(root->context.begin(), root->context.end(), [&](const LogLine& l) { return l.number == n; });
  };
  if (step && step != root && step->evidence.size() > 1 && !opts.all &&
      !(shown(step->evidence[0].number) && shown(step->evidence[1].number))) {
    out << "failing step:\n";
    for (size_t i = 0; i < step->evidence.size() && i < 2; ++i)
      out << fmt::format("  {}:{}: {}\n", src, step->evidence[i].number, clip(step->evidence[i].text));
  }
  // Where a Slurm build compiled the failing unit: a fault of that node reads like the project's.
  if (const Finding* node = d.find("resources.slurm-unit-failed-on-node"); node && node != root && !opts.all)
    out << "node:  " << node->cause << "\n";
  if (!opts.all) {
    size_t more = d.findings.size() - 1;
    if (more) out << fmt::format("({} more finding{}; run with --all)\n", more, more == 1 ? "" : "s");
    return;
  }
  for (size_t i = 1; i < d.findings.size(); ++i) {
    out << "\n" << (d.findings[i].is_error() ? "" : "warning: ");
    print_finding(out, d.findings[i], src, opts.context, false);
  }
}

}  // namespace

// Everything shown comes from the log (lines, captures in the cause and fix): escaped for a terminal.
void render_text(std::ostream& out, const Diagnosis& d, std::string_view source, const RenderOptions& opts) {
  std::ostringstream text;
  render_raw(text, d, source, opts);
  out << core::terminal_safe(text.str());
}

json to_json(const Diagnosis& d, std::string_view source) {
  json j;
  j["log"] = source == "-" ? "<stdin>" : std::string(source);
  j["lines"] = d.lines;
  j["bytes"] = d.bytes;
  j["failed"] = d.failed();
  j["root_cause"] = d.root_cause() ? finding_json(*d.root_cause()) : json(nullptr);
  j["findings"] = json::array();
  for (const auto& f : d.findings) j["findings"].push_back(finding_json(f));
  return j;
}

}  // namespace kiln::diagnose
