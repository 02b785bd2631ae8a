#include "plan/stale_config.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "probe/cmake_cache.hpp"
#include "read/cmake_lang.hpp"
#include "plan/plan.hpp"
#include "read/pytorch_options.hpp"

namespace kiln::plan {
namespace {

// ON/1/TRUE and OFF/0/FALSE compare as the same switch; anything else (90-real, a path) as text.
bool switch_word(const std::string& v) {
  std::string u;
  for (char ch : v) u += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return u == "ON" || u == "OFF" || u == "TRUE" || u == "FALSE" || u == "YES" || u == "NO" || u == "Y" || u == "N" ||
         u == "0" || u == "1";
}

bool same_value(const std::string& a, const std::string& b) {
  if (switch_word(a) && switch_word(b)) return read::cmake::value_truth(a) == read::cmake::value_truth(b);
  return a == b;
}

}  // namespace

std::map<std::string, std::string> planned_entries(const Plan& p) {
  std::map<std::string, std::string> out;
  if (p.kind == read::ProjectKind::cmake) {
    for (const auto& a : p.configure_argv()) {
      if (a.rfind("-D", 0) != 0) continue;
      auto eq = a.find('=');
      if (eq == std::string::npos) continue;
      std::string key = a.substr(2, eq - 2);
      if (auto colon = key.find(':'); colon != std::string::npos) key = key.substr(0, colon);
      out[key] = a.substr(eq + 1);
    }
    return out;
  }
  if (p.kind != read::ProjectKind::pytorch) return out;
  for (const auto& o : p.options)
    if (read::option_is_passed(o)) out[o.name] = o.on ? "ON" : "OFF";
  if (auto it = p.env.find("TORCH_CUDA_ARCH_LIST"); it != p.env.end()) out["TORCH_CUDA_ARCH_LIST"] = it->second;
  out["CMAKE_BUILD_TYPE"] = p.build_type;
  return out;
}

std::string stamp_text(const std::map<std::string, std::string>& entries) {
  nlohmann::ordered_json j = {{"schema", 1}, {"entries", entries}};
  return j.dump(2) + "\n";
}

std::map<std::string, std::string> parse_stamp(const std::string& text) {
  std::map<std::string, std::string> out;
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object() || !j.contains("entries") || !j["entries"].is_object()) return out;
  for (const auto& [k, v] : j["entries"].items())
    if (v.is_string()) out[k] = v.get<std::string>();
  return out;
}

namespace {

// A cache CMake refuses before reading any entry: made in another folder (the build folder was
// moved or copied: nothing in it is of use here, so a fresh configure), or from another source
// (another project's build folder: kiln will not remove that, the plan says so). True when the
// entries need no comparing.
bool check_home(const io::Filesystem& fs, const Plan& p, const std::vector<probe::CacheEntry>& entries,
                ConfigCheck& c) {
  c.created_in = probe::cache_created_elsewhere(fs, entries, c.cmake_dir);
  const std::string source = p.kind == read::ProjectKind::pytorch ? p.project_dir : p.configure_source();
  for (const auto& e : entries)
    if (e.name == "CMAKE_HOME_DIRECTORY" && !e.value.empty() && !fs.same_file(e.value, source) &&
        !fs.same_file(e.value, p.project_dir))
      c.made_for = e.value;
  if (c.created_in.empty()) return !c.made_for.empty();
  c.made_for.clear();  // moved with its source (an in-tree build folder): both paths are old
  c.reconfigure = true;
  c.fresh = FreshConfigure::remove_cache;  // kiln removes it itself, whatever setup.py reads
  c.how = fmt::format(
      "{} was created in {} (the build folder was moved or copied), which CMake refuses: kiln "
      "removes it so CMake configures afresh",
      c.cache_path(), c.created_in);
  return true;
}

}  // namespace

ConfigCheck check_configuration(const io::Filesystem& fs, const Plan& p, const std::string& setup_py_text) {
  ConfigCheck c;
  c.cmake_dir = p.kind == read::ProjectKind::pytorch ? p.project_dir + "/build" : p.build_dir;
  auto cache_text = fs.read(c.cache_path());
  c.cache_exists = cache_text.has_value();
  if (!c.cache_exists) return c;  // the first configure takes everything
  const auto entries = probe::parse_cmake_cache(*cache_text);
  if (check_home(fs, p, entries, c)) return c;
  std::map<std::string, probe::CacheEntry> cache;
  for (auto& e : entries)
    if (e.type != "INTERNAL" && e.type != "STATIC") cache[e.name] = e;
  std::map<std::string, std::string> stamp;
  if (auto t = fs.read(c.stamp_path())) stamp = parse_stamp(*t);

  const auto planned = planned_entries(p);
  for (const auto& [key, value] : planned) {
    auto last = stamp.find(key);
    const bool same_as_last = last != stamp.end() && same_value(last->second, value);
    if (auto it = cache.find(key); it != cache.end()) {
      if (same_value(it->second.value, value)) continue;
      if (same_as_last) {
        c.cmake_changed.push_back(fmt::format("{} (passed {}, CMake keeps {})", key, value, it->second.value));
        continue;
      }
      c.changed.push_back({key, it->second.value, value, "CMakeCache.txt"});
    } else if (last != stamp.end() && !same_as_last) {
      // Not a cache entry (TORCH_CUDA_ARCH_LIST is read from the environment): the stamp knows.
      c.changed.push_back({key, last->second, value, "last configure"});
    }
  }
  for (const auto& [key, value] : stamp)
    if (!planned.count(key) && cache.count(key)) c.dropped.push_back(key);

  if (p.kind == read::ProjectKind::pytorch) {
    c.reconfigure = !c.changed.empty() || !c.dropped.empty();
    c.fresh = setup_py_text.find("CMAKE_FRESH") != std::string::npos ? FreshConfigure::cmake_fresh
                                                                     : FreshConfigure::remove_cache;
    if (c.reconfigure)
      c.how = c.fresh == FreshConfigure::cmake_fresh
                  ? "CMAKE_FRESH=1: setup.py re-runs CMake from a fresh cache"
                  : "kiln removes " + c.cache_path() + " (as setup.py --cmake does) so setup.py re-runs CMake";
  } else if (!c.changed.empty() || !c.dropped.empty()) {
    std::string how;
    if (!c.changed.empty())
      how = fmt::format("-D sets the {} changed entr{} on this configure", c.changed.size(),
                        c.changed.size() == 1 ? "y" : "ies");
    if (!c.dropped.empty()) {
      std::string keys;
      for (const auto& k : c.dropped) keys += (keys.empty() ? "" : " ") + k;
      how += fmt::format("{}-U {} removes what the last configure set and this one does not", how.empty() ? "" : "; ",
                         keys);
    }
    c.how = how;
  }
  return c;
}

}  // namespace kiln::plan
