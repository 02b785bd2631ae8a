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
  flag("--cpu-share", req.cpu_share);
  flag("--no-wheel-cache", !req.wheel_cache);
  flag("--keep-project-archs", !req.prune_archs);
  each("--knob", req.knobs);
  flag("--no-knobs", req.no_knobs);
  flag("--set-unknown", req.set_unknown);
  flag("--pip", req.pip);
  return a;
}

namespace {

// The flags of request_args that take a value, and of those the ones whose value is a path on this
// machine that another machine (an image) replaces with its own: one list beside request_args.
bool takes_value(std::string_view flag) {
  for (const char* f : {"--gpu", "--archs", "--from", "--profile", "--set", "--jobs", "--build-dir", "--build-type",
                        "--cache-dir", "-D", "--python", "--mem-budget", "--knob"})
    if (flag == f) return true;
  return false;
}
bool host_place(std::string_view flag) { return flag == "--build-dir" || flag == "--cache-dir" || flag == "--python"; }

}  // namespace

std::vector<std::string> portable_args(const std::vector<std::string>& args, const std::string& project_dir,
                                       const std::string& image_dir, std::vector<std::string>& left_out) {
  std::vector<std::string> out;
  for (size_t i = 0; i < args.size(); ++i) {
    if (!takes_value(args[i]) || i + 1 == args.size()) {
      out.push_back(args[i]);
      continue;
    }
    const std::string& flag = args[i];
    std::string value = args[++i];
    if (host_place(flag)) {
      left_out.push_back(flag + " " + value);
      continue;
    }
    // KEY=/abs/path (-D, --set, --knob) or /abs/path: inside the project it moves with it, else it
    // names this machine only.
    const auto eq = value.find('=');
    const size_t at = eq != std::string::npos && eq + 1 < value.size() && value[eq + 1] == '/' ? eq + 1 : 0;
    if (value.size() > at && value[at] == '/') {
      const std::string path = value.substr(at);
      if (path == project_dir || path.rfind(project_dir + "/", 0) == 0) {
        value = value.substr(0, at) + image_dir + path.substr(project_dir.size());
      } else {
        left_out.push_back(flag + " " + value);
        continue;
      }
    }
    out.insert(out.end(), {flag, value});
  }
  return out;
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
