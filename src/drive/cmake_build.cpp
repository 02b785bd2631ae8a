#include <algorithm>
#include "drive/cmake_build.hpp"

#include "io/interrupt.hpp"
#include "drive/wheel_build.hpp"
#include "core/build_names.hpp"
#include "plan/install_command.hpp"
#include "plan/stale_config.hpp"
#include "launch/wheel_cache.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <tuple>

namespace kiln::drive {
namespace {

std::string join(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

}  // namespace

std::string configure_stamp(const plan::Plan& plan, const std::map<std::string, std::string>& env) {
  std::string s = "kiln configure stamp 1\n";
  for (const auto& a : plan.configure_argv()) s += "arg " + a + "\n";
  // The variables CMake reads while configuring; the rest of the environment does not change what
  // it generates, and a stamp over all of it (SHLVL, OLDPWD, ...) would never match.
  static const std::vector<std::string> kRead = core::configure_variables();
  for (const auto& [k, v] : env) {
    if (std::find(kRead.begin(), kRead.end(), k) != kRead.end() || k.rfind("CMAKE_", 0) == 0)
      s += "env " + k + "=" + v + "\n";
  }
  return s;
}

std::vector<std::string> find_artifacts(const io::Filesystem& fs, const std::string& dir) {
  std::vector<std::string> out;
  std::vector<std::string> stack = {dir};
  while (!stack.empty()) {
    std::string d = stack.back();
    stack.pop_back();
    for (const auto& name : fs.list(d)) {
      const std::string path = d + "/" + name;
      if (fs.is_directory(path)) {
        if (name != "CMakeFiles" && name[0] != '.') stack.push_back(path);
        continue;
      }
      if (fs.is_symlink(path)) continue;  // libx.so -> libx.so.0 -> libx.so.0.1.0: count the file once
      const bool lib = name.find(".so") != std::string::npos;
      if (!lib && !fs.is_executable(path)) continue;
      auto head = fs.read_head(path, 4);
      if (head && head->size() == 4 && head->compare(0, 4, "\x7f" "ELF") == 0) out.push_back(path);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> linked_outputs(const io::Filesystem& fs, const std::string& build_dir) {
  // CMake's Ninja generator names each link step's rule *_LINKER__<target>_<config>; a project may
  // put the library anywhere (bitsandbytes links into its source tree), and build.ninja says where.
  std::vector<std::string> out;
  auto text = fs.read(build_dir + "/build.ninja");
  if (!text) return out;
  size_t pos = 0;
  while ((pos = text->find("\nbuild ", pos)) != std::string::npos) {
    pos += 7;
    size_t eol = text->find('\n', pos);
    std::string line = text->substr(pos, eol == std::string::npos ? std::string::npos : eol - pos);
    size_t colon = line.find(": ");
    if (colon == std::string::npos || line.find("_LINKER__", colon) == std::string::npos) continue;
    std::string path = line.substr(0, colon);
    if (path.find("$ ") != std::string::npos || path.find(' ') != std::string::npos) continue;  // several outputs
    if (path.empty() || path[0] != '/') path = build_dir + "/" + path;
    auto head = fs.read_head(path, 4);
    if (head && head->size() == 4 && head->compare(0, 4, "\x7f" "ELF") == 0) out.push_back(path);
  }
  return out;
}

BuildOutcome run_cmake_build(const plan::Plan& plan, io::Seams& s, const ProgressSink& progress) {
  BuildOutcome o;
  s.fs.make_dirs(plan.build_dir);
  if (plan.governed()) s.fs.make_dirs(plan.build_dir + "/.kiln");
  if (plan.wraps_compilers()) {
    s.fs.make_dirs(plan.wrapper_dir());
    for (const char* name : {"c++", "nvcc"}) s.fs.symlink(plan.kiln_exe, plan.wrapper_dir() + "/" + name);
  }
  s.fs.write(plan.build_dir + "/kiln-build.json", plan.build_record_json());
  std::ofstream log(plan.log_path(), std::ios::trunc);
  if (!plan.ccache.empty()) s.fs.write(plan.ccache_log_path(), "");
  const auto env = plan.child_env(s.env);

  std::function<void(std::string_view)> watch;  // what the running step's output tells kiln itself
  auto step = [&](const char* name, const std::vector<std::string>& argv, bool ninja) {
    log << "kiln: " << name << ": " << join(argv) << "\n";
    log.flush();
    const auto t0 = s.clock.now();
    io::ProcessSpec spec{.argv = argv, .env = env, .cwd = plan.project_dir};
    spec.new_process_group = true;
    spec.on_line = [&](std::string_view line) {
      log << line << "\n";
      if (watch) watch(line);
      if (ninja)
        if (auto st = parse_ninja_status(line)) {
          o.steps_run = st->total;
          if (progress.on_status)
            progress.on_status(*st, std::chrono::duration_cast<std::chrono::milliseconds>(s.clock.now() - t0));
          return;
        }
      if (progress.on_output) progress.on_output(line);
    };
    if (progress.on_step) progress.on_step(name, true);
    auto r = s.proc.run(spec);
    if (progress.on_step) progress.on_step(name, false);
    log.flush();
    o.peak_rss_kib = std::max(o.peak_rss_kib, r.peak_rss_kib);
    if (ninja) o.build_peak_rss_kib = r.peak_rss_kib;
    if (!r.started) {
      log << "kiln: could not start " << argv[0] << ": " << r.spawn_error << "\n";
      o.failed_step = name;
      o.exit_code = 127;
      return std::make_pair(false, std::chrono::milliseconds(0));
    }
    const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(s.clock.now() - t0);
    if (!r.ok()) {
      o.failed_step = name;
      o.exit_code = r.exit_code;
      o.term_signal = r.term_signal;
      log << fmt::format("kiln: {} failed ({})\n", name,
                         r.term_signal ? fmt::format("signal {}", r.term_signal) : fmt::format("exit {}", r.exit_code));
      return std::make_pair(false, took);
    }
    return std::make_pair(true, took);
  };

  // Never build a stale configuration in silence (run/stale_config): say what differs, make CMake
  // take it, and remember what this configure passes.
  if (plan.kind == read::ProjectKind::cmake || plan.kind == read::ProjectKind::pytorch) {
    for (const auto& c : plan.config.changed)
      log << fmt::format("kiln: configuration: {} was {} ({}), now {}\n", c.key, c.cached.empty() ? "unset" : c.cached,
                         c.source, c.planned);
    for (const auto& k : plan.config.dropped) log << fmt::format("kiln: configuration: {} no longer passed\n", k);
    if (!plan.config.how.empty()) log << "kiln: configuration: " << plan.config.how << "\n";
    if (plan.config.reconfigure && plan.config.how.rfind("CMAKE_FRESH", 0) != 0) {
      if (!s.fs.remove(plan.config.cache_path())) {
        log << "kiln: could not remove " << plan.config.cache_path() << "\n";
        o.failed_step = "configure";
        o.exit_code = 1;
        return o;
      }
    }
    s.fs.make_dirs(plan.config.cmake_dir);
    s.fs.write(plan.config.stamp_path(), plan::stamp_text(plan::planned_entries(plan)));
  }
  if (plan.kind == read::ProjectKind::cmake) {
    // The fast no-op path: a folder CMake already configured with these very arguments is not
    // configured again (3 s on the example, against 0.03 s for ninja to say "no work to do").
    // Ninja's build.ninja re-runs CMake by itself when a CMakeLists.txt or a file it reads changed.
    const std::string stamp_path = plan.build_dir + "/.kiln/configure-stamp";
    const std::string stamp = configure_stamp(plan, env);
    if (s.fs.exists(plan.build_dir + "/build.ninja") && s.fs.exists(plan.build_dir + "/CMakeCache.txt") &&
        s.fs.read(stamp_path).value_or("") == stamp) {
      o.configure_skipped = true;
      log << "kiln: configure: skipped: " << plan.build_dir
          << " is configured with the same arguments (ninja re-runs CMake if its inputs changed)\n";
    } else {
      if (s.fs.exists(stamp_path)) s.fs.write(stamp_path, "");  // a failed configure must not leave a match
      auto [configured, ct] = step("configure", plan.configure_argv(), false);
      o.configure_time = ct;
      if (!configured) return o;
      s.fs.make_dirs(plan.build_dir + "/.kiln");
      s.fs.write(stamp_path, stamp);
      if (io::BuildInterrupts::received()) {  // told to stop between the steps: do not start Ninja
        o.failed_step = "configure";
        return o;
      }
    }
  }
  std::string wheel;
  std::optional<launch::CachedWheel> kept;  // a wheel built before from these very inputs (run/wheel_cache)
  launch::WheelKey key;
  std::string root;
  if (plan.kind == read::ProjectKind::extension) {
    // A wheel left by an earlier build must not pass for this one's.
    s.fs.make_dirs(plan.wheel_dir());
    for (const auto& name : s.fs.list(plan.wheel_dir()))
      if (name.ends_with(".whl")) s.fs.remove(plan.wheel_dir() + "/" + name);
    if (plan.wheel_cache) {
      const auto t0 = s.clock.now();
      key = launch::wheel_key(plan, s);
      root = launch::wheel_cache_root(plan, s.env);
      kept = launch::find_cached_wheel(s.fs, root, key);
      const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(s.clock.now() - t0).count();
      o.wheel_cache = {key.hex, root, kept.has_value(), false};
      log << fmt::format("kiln: wheel cache: {} {} ({} project files and the plan hashed in {} ms; {})\n",
                         kept ? "hit" : "miss", key.hex, key.files, ms, root.empty() ? "no cache folder" : root);
      if (kept) {
        auto bytes = s.fs.read(kept->path);
        if (bytes && s.fs.write(plan.wheel_dir() + "/" + kept->name, *bytes)) {
          wheel = plan.wheel_dir() + "/" + kept->name;
          log << "kiln: wheel cache: " << kept->name << " was built from the same inputs: the backend does not run\n";
        } else {
          log << "kiln: wheel cache: could not copy " << kept->path << ": building\n";
          kept.reset();
          o.wheel_cache.hit = false;
        }
      }
    }
    if (!kept) {
      s.fs.write(plan.wheel_script_path(), std::string(wheel_build_script()));
      watch = [&](std::string_view line) {
        if (auto w = built_wheel_name(line)) wheel = plan.wheel_dir() + "/" + *w;
      };
    }
  }
  bool built = true;
  std::chrono::milliseconds bt{0};
  if (!kept) std::tie(built, bt) = step("build", plan.build_argv(), true);
  watch = nullptr;
  o.build_time = bt;
  if (built && plan.kind == read::ProjectKind::extension) {
    if (wheel.empty() || !s.fs.exists(wheel)) {
      log << "kiln: build: the backend reported no wheel in " << plan.wheel_dir() << "\n";
      o.failed_step = "build";
      o.exit_code = 1;
      built = false;
    } else {
      o.wheel = wheel;
      if (!kept && plan.wheel_cache && !root.empty()) {
        o.wheel_cache.stored = launch::store_wheel(s.fs, root, key, wheel);
        log << "kiln: wheel cache: " << (o.wheel_cache.stored ? "kept as " : "could not keep as ") << key.hex << " in " << root << "\n";
      } else if (kept) {
        launch::touch_wheel(s.fs, root, key);
      }
      auto [installed, it] = step("install", plan::wheel_install_argv(plan.python, wheel), false);
      o.install_time = it;
      o.build_time += it;
      built = installed;
      // Nothing was built in this copy: the checks read the libraries out of the kept wheel.
      if (built && kept) {
        auto [unpacked, ut] = step("unpack", wheel_unpack_argv(plan.python, wheel, plan.wheel_dir() + "/contents"), false);
        o.build_time += ut;
        built = unpacked;
      }
    }
  }
  if (!plan.ccache.empty())
    if (auto text = s.fs.read(plan.ccache_log_path())) {
      o.has_cache_stats = true;
      o.cache = launch::parse_ccache_stats_log(*text);
    }
  // torch.utils.cpp_extension builds in its own Ninja folder (build/temp.*): the record goes there
  // too, so kiln report on that folder finds the machine's cores and kiln's logs.
  if (plan.kind != read::ProjectKind::cmake)
    for (const auto& d : s.fs.list(plan.project_dir + "/build"))
      if (s.fs.exists(plan.project_dir + "/build/" + d + "/.ninja_log"))
        s.fs.write(plan.project_dir + "/build/" + d + "/kiln-build.json", plan.build_record_json());
  if (!built) return o;
  o.ok = true;
  // setup.py builds leave their libraries under build/ (and PyTorch under torch/lib).
  if (plan.kind == read::ProjectKind::cmake) {
    o.artifacts = find_artifacts(s.fs, plan.build_dir);
    for (auto& a : linked_outputs(s.fs, plan.build_dir))
      if (std::find(o.artifacts.begin(), o.artifacts.end(), a) == o.artifacts.end()) o.artifacts.push_back(a);
  } else if (kept) {
    o.artifacts = find_artifacts(s.fs, plan.wheel_dir() + "/contents");
  } else {
    for (const char* sub : {"/build", "/torch/lib"})
      for (auto& a : find_artifacts(s.fs, plan.project_dir + sub)) o.artifacts.push_back(a);
  }
  return o;
}

}  // namespace kiln::drive
