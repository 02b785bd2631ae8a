#include "diagnose/diagnosis.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace kiln::diagnose {

const std::string* Finding::capture(std::string_view name) const {
  for (const auto& [k, v] : captures)
    if (k == name) return &v;
  return nullptr;
}

const Finding* Diagnosis::find(std::string_view id) const {
  for (const auto& f : findings)
    if (f.signature->id == id) return &f;
  return nullptr;
}

namespace {

std::optional<std::string> plan_value(std::string_view key, const PlanContext& p) {
  if (key == "jobs" && p.jobs) return std::to_string(*p.jobs);
  if (key == "memory_gib" && p.memory_gib) return fmt::format("{:g}", *p.memory_gib);
  if (key == "next_jobs") {
    if (p.next_jobs) return std::to_string(*p.next_jobs);
    if (p.jobs) return std::to_string(std::max(1, *p.jobs / 2));
  }
  if (key == "arch_list" && !p.arch_list.empty()) return p.arch_list;
  if (key == "cuda_version" && !p.cuda_version.empty()) return p.cuda_version;
  if (key == "force_build" && !p.force_build.empty()) return p.force_build;
  return std::nullopt;
}

bool is_name_char(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.'; }

// Calls f(name, begin, end) for each {name} placeholder (lower-case identifiers only, so shell
// text such as ${CUDA_HOME} or a Python dict literal passes through untouched).
template <class F>
void each_placeholder(std::string_view text, F&& f) {
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '{') continue;
    size_t j = i + 1;
    while (j < text.size() && is_name_char(text[j])) ++j;
    if (j < text.size() && text[j] == '}' && j > i + 1 && text[i + 1] >= 'a' && text[i + 1] <= 'z') {
      f(text.substr(i + 1, j - i - 1), i, j + 1);
      i = j;
    }
  }
}

}  // namespace

bool plan_can_fill(std::string_view text, const PlanContext& plan) {
  bool ok = true;
  each_placeholder(text, [&](std::string_view name, size_t, size_t) {
    if (name.substr(0, 5) == "plan." && !plan_value(name.substr(5), plan)) ok = false;
  });
  return ok;
}

std::string fill(std::string_view text, const std::vector<std::pair<std::string, std::string>>& captures,
                 const std::optional<PlanContext>& plan) {
  std::string out;
  size_t last = 0;
  each_placeholder(text, [&](std::string_view name, size_t b, size_t e) {
    out.append(text.substr(last, b - last));
    last = e;
    std::optional<std::string> v;
    if (name.substr(0, 5) == "plan.") {
      if (plan) v = plan_value(name.substr(5), *plan);
    } else {
      for (const auto& [k, val] : captures)
        if (k == name && !val.empty()) v = val;
    }
    if (v) {
      out += *v;
    } else {  // appended piecewise: "<" + std::string(name) trips GCC 12's -Wrestrict (a false positive)
      out += '<';
      out += name;
      out += '>';
    }
  });
  out.append(text.substr(last));
  return out;
}

}  // namespace kiln::diagnose
