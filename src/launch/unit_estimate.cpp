#include "launch/unit_estimate.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "core/data_toml.hpp"
#include "launch/reachable_launches.hpp"

namespace kiln::launch {
namespace {

std::string dir_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

bool matches(const HeaderClass& c, const std::set<std::string>& angle) {
  if (c.includes.empty() && c.prefixes.empty()) return true;
  for (const auto& inc : angle) {
    for (const auto& name : c.includes)
      if (inc == name) return true;
    for (const auto& p : c.prefixes)
      if (inc.rfind(p, 0) == 0) return true;
  }
  return false;
}

std::vector<std::string> strings(const toml::node_view<const toml::node>& n) {
  std::vector<std::string> out;
  if (auto a = n.as_array())
    for (const auto& e : *a)
      if (auto s = e.value<std::string>()) out.push_back(*s);
  return out;
}

CostTable load_table() {
  CostTable t;
  try {
    const toml::table data = data::load_toml("unit_cost.toml");
    if (auto classes = data["headers"].as_array())
      for (const auto& node : *classes) {
        const auto* c = node.as_table();
        if (!c) continue;
        const toml::node_view<const toml::node> v{*c};
        t.classes.push_back({v["class"].value_or(std::string("?")), strings(v["includes"]), strings(v["prefixes"]),
                             v["host_seconds"].value_or(0.0), v["device_seconds"].value_or(0.0)});
      }
    if (auto libraries = data["device_libraries"].as_array())
      for (const auto& node : *libraries) {
        const auto* l = node.as_table();
        if (!l) continue;
        const toml::node_view<const toml::node> v{*l};
        t.libraries.push_back(
            {v["name"].value_or(std::string("?")), strings(v["prefixes"]), v["launch_factor"].value_or(1.0)});
      }
    t.seconds_per_kib = data["code"]["seconds_per_kib"].value_or(t.seconds_per_kib);
    t.seconds_per_launch = data["code"]["seconds_per_launch"].value_or(t.seconds_per_launch);
    t.macro_factor = data["code"]["macro_factor"].value_or(t.macro_factor);
    t.kernel_kib = data["code"]["kernel_kib"].value_or(t.kernel_kib);
    t.unrolled_share = data["code"]["unrolled_share"].value_or(t.unrolled_share);
    t.complex_factor = data["code"]["complex_factor"].value_or(t.complex_factor);
    if (auto constants = data["constants"].as_table())
      for (const auto& [name, value] : *constants)
        if (auto v = value.value<std::int64_t>()) t.constants[std::string(name.str())] = *v;
  } catch (...) {}  // the table is embedded; a broken one still leaves a usable estimate
  if (t.classes.empty() || !t.classes.back().includes.empty() || !t.classes.back().prefixes.empty())
    t.classes.push_back({"none", {}, {}, 2.0, 1.0});
  return t;
}

}  // namespace

const CostTable& CostTable::from_data() {
  static const CostTable table = load_table();
  return table;
}

std::string without_comments(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const char next = i + 1 < text.size() ? text[i + 1] : '\0';
    if (c == '"' || c == '\'') {  // a literal, escapes included, to its end or the line's
      out += c;
      for (++i; i < text.size() && text[i] != c && text[i] != '\n'; ++i) {
        out += text[i];
        if (text[i] == '\\' && i + 1 < text.size()) out += text[++i];
      }
      if (i < text.size()) out += text[i];
    } else if (c == '/' && next == '/') {
      while (i < text.size() && text[i] != '\n') ++i;
      if (i < text.size()) out += '\n';
    } else if (c == '/' && next == '*') {
      const auto end = text.find("*/", i + 2);
      i = end == std::string_view::npos ? text.size() : end + 1;
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::vector<std::string> includes_of(std::string_view text, char open) {
  const char close = open == '<' ? '>' : '"';
  std::vector<std::string> out;
  size_t pos = 0;
  while ((pos = text.find('#', pos)) != std::string_view::npos) {
    ++pos;
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t')) ++pos;
    if (text.compare(pos, 7, "include") != 0) continue;
    pos += 7;
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t')) ++pos;
    if (pos >= text.size() || text[pos] != open) continue;
    const auto end = text.find(close, pos + 1);
    if (end == std::string_view::npos || text.find('\n', pos) < end) continue;
    out.emplace_back(text.substr(pos + 1, end - pos - 1));
  }
  return out;
}

double weighted_launches(std::string_view text, double macro_factor) { return weigh_code(text, macro_factor).launches; }

UnitEstimate estimate_unit(const io::Filesystem& fs, const std::string& source, int device_targets,
                           const CostTable& table) {
  // Bounded: a project with a header web still costs a few dozen reads per launch.
  constexpr size_t kMaxFiles = 64;
  std::set<std::string> seen{source}, angle;
  std::vector<std::string> todo{source};
  UnitEstimate e;
  bool read_source = false;
  double bytes = 0, every_launch = 0;
  std::vector<std::string> texts;  // the source first
  while (!todo.empty() && seen.size() <= kMaxFiles) {
    const std::string path = todo.back();
    todo.pop_back();
    auto raw = fs.read(path);
    if (!raw) continue;
    read_source = read_source || path == source;
    std::string text = without_comments(*raw);
    bytes += static_cast<double>(text.size());
    every_launch += weighted_launches(text, table.macro_factor);
    for (auto& inc : includes_of(text, '<')) angle.insert(std::move(inc));
    for (const auto& inc : includes_of(text, '"')) {
      const std::string p = inc.front() == '/' ? inc : dir_of(path) + inc;
      if (seen.insert(p).second) todo.push_back(p);
    }
    if (path == source)
      texts.insert(texts.begin(), std::move(text));
    else
      texts.push_back(std::move(text));
  }
  if (!read_source) return {};
  // What the unit's functions reach; where they reach nothing (a call through a macro, a source of
  // launches only at file scope), every launch its text holds.
  const double reached = reachable_launches(texts, table.macro_factor, table.kernel_kib, table.constants,
                                            table.unrolled_share, table.complex_factor);
  e.launches = reached > 0 ? reached : every_launch;
  e.kib = bytes / 1024;
  const HeaderClass* cls = &table.classes.back();
  for (const auto& c : table.classes)
    if (matches(c, angle)) {
      cls = &c;
      break;
    }
  e.header_class = cls->name;
  for (const auto& l : table.libraries)
    if (!l.prefixes.empty() && matches({l.name, {}, l.prefixes}, angle))
      e.launch_factor = std::max(e.launch_factor, l.launch_factor);
  e.seconds = cls->host_seconds + e.kib * table.seconds_per_kib;
  if (device_targets > 0)
    e.seconds += device_targets * (cls->device_seconds + e.launches * table.seconds_per_launch * e.launch_factor);
  return e;
}

}  // namespace kiln::launch
