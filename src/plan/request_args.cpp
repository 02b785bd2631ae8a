#include "plan/request_args.hpp"

#include <algorithm>
#include <cctype>

namespace kiln::plan {

std::string shell_quote(std::string_view value) {
  // Single quotes keep everything literal (';' in CUDAARCHS=80-real;90-real, spaces, $, `, \);
  // a single quote itself is closed, escaped and reopened.
  std::string out = "'";
  for (char c : value) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::vector<std::string> request_args(const BuildRequest& req) {
  std::vector<std::string> a;
  auto add = [&a](const char* flag, const std::string& value) {
    if (!value.empty()) a.insert(a.end(), {flag, value});
  };
  auto each = [&a](const char* flag, const std::vector<std::string>& values) {
    for (const auto& v : values) a.insert(a.end(), {flag, v});
  };
  auto flag = [&a](const char* name, bool on) {
    if (on) a.emplace_back(name);
  };
  each("--gpu", req.gpus);
  add("--archs", req.archs);
  if (!req.archs.empty() && req.archs_from != "auto") add("--from", req.archs_from);
  add("--profile", req.profile);
  each("--set", req.sets);
  if (req.jobs) add("--jobs", std::to_string(*req.jobs));
  add("--build-dir", req.build_dir);
  add("--build-type", req.build_type);
  add("--cache-dir", req.cache_dir);
  flag("--no-ccache", !req.ccache);
  each("-D", req.cmake_defines);
  add("--python", req.python);
  flag("--no-governor", !req.governor);
  if (req.mem_budget_kib) add("--mem-budget", std::to_string(*req.mem_budget_kib) + "K");
  flag("--no-split", !req.split_threads);
  flag("--no-wheel-cache", !req.wheel_cache);
  flag("--prune-archs", req.prune_archs);
  each("--knob", req.knobs);
  flag("--no-knobs", req.no_knobs);
  flag("--set-unknown", req.set_unknown);
  flag("--pip", req.pip);
  return a;
}

std::string shell_args(const std::vector<std::string>& args) {
  auto plain = [](const std::string& s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("-_./=,:+").find(c) != std::string::npos;
    });
  };
  std::string out;
  for (const auto& v : args) out += (out.empty() ? "" : " ") + (plain(v) ? v : shell_quote(v));
  return out;
}

}  // namespace kiln::plan
