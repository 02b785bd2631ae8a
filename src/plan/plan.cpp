#include "plan/plan.hpp"

#include "io/task_table.hpp"
#include "io/user_cache.hpp"

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "core/json_text.hpp"
#include "core/arch_spec.hpp"
#include "core/launcher_env.hpp"

namespace kiln::plan {

std::vector<std::string> Plan::configure_argv() const {
  std::vector<std::string> argv = {cmake, "-S", configure_source(), "-B", build_dir, "-G", generator};
  if (generator == "Ninja") argv.push_back("-DCMAKE_MAKE_PROGRAM=" + ninja);
  argv.push_back("-DCMAKE_BUILD_TYPE=" + build_type);
  argv.push_back("-DCMAKE_CUDA_COMPILER=" + nvcc);
  argv.push_back("-DCMAKE_CUDA_ARCHITECTURES=" + core::format_cmake(targets));
  std::string chain;
  for (const auto& l : launcher()) chain += (chain.empty() ? "" : ";") + l;
  for (const char* lang : {"C", "CXX", "CUDA"})
    argv.push_back(fmt::format("-DCMAKE_{}_COMPILER_LAUNCHER={}", lang, chain));
  if (libtorch()) {
    if (torch_dir_how != "-D Torch_DIR") argv.push_back("-DTorch_DIR=" + torch_dir);
    if (!torch_arch_list.empty()) argv.push_back("-DTORCH_CUDA_ARCH_LIST=" + torch_arch_list);
  }
  for (const auto& d : cmake_defines) argv.push_back("-D" + d);
  // Entries the last configure set and this one does not: CMake would keep them (plan/stale_config).
  for (const auto& k : config.dropped) {
    argv.push_back("-U");
    argv.push_back(k);
  }
  return argv;
}

std::string Plan::ccache_basedir() const {
  // Paths through the link are under the build folder; system headers stay absolute, as they are
  // the same in every checkout.
  if (!source_link.empty()) return build_dir;
  std::string a = project_dir + "/", b = build_dir + "/";
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  // Nothing in common but "/": then "/" it is. Paths become relative to the build folder, so two
  // build folders at the same depth still share every hit.
  std::string common = a.substr(0, a.rfind('/', n - 1));
  return common.empty() ? "/" : common;
}

std::string Plan::build_record_json() const {
  nlohmann::ordered_json j = {
      {"schema", 1},
      {"kiln_build_dir", build_dir},
      {"project_dir", project_dir},  // report: the project of a build folder anywhere (its kiln.toml, its Ninjas)
      {"cores", cores},
      {"jobs", jobs.jobs},
      {"mem_budget_kib", governed() ? nlohmann::ordered_json(mem_budget_kib) : nlohmann::ordered_json(nullptr)},
      {"split_threads", split_threads},
      {"cpu_share", cpu_share},
      {"exec_log", governed() ? nlohmann::ordered_json(exec_log_path()) : nlohmann::ordered_json(nullptr)},
      {"ccache_stats", ccache.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(ccache_log_path())}};
  return core::dump_json(std::move(j), 2) + "\n";  // paths are bytes: never throw on them
}

std::vector<std::string> Plan::launcher() const {
  std::vector<std::string> l;
  if (governed()) l = {kiln_exe, "exec", "--"};
  if (!ccache.empty()) l.push_back(ccache);
  return l;
}

std::vector<std::string> Plan::build_argv() const {
  switch (kind) {
    case read::ProjectKind::pytorch:
      if (pip) return {python, "-m", "pip", "install", "-e", ".", "--no-build-isolation", "--no-deps", "-v"};
      return {python, "setup.py", "develop"};
    case read::ProjectKind::extension:
      // The project's backend builds the wheel once; `pip install .` would run it twice, each
      // run importing torch. The install step (drive/wheel_build) never reaches for an index.
      return {python, wheel_script_path(), wheel_dir()};
    default:
      if (generator != "Ninja") return {cmake, "--build", build_dir, "-j", std::to_string(jobs.jobs)};
      return {ninja, "-C", build_dir, "-j", std::to_string(jobs.jobs)};
  }
}

std::map<std::string, std::string> Plan::child_env(const io::Environment& env) const {
  auto e = env.all();
  for (const auto& [k, v] : this->env) e[k] = v;
  if (!nvcc.empty()) e["PATH"] = nvcc.substr(0, nvcc.find_last_of('/')) + ":" + e["PATH"];
  if (libtorch() && !torch_arch_list.empty()) e["TORCH_CUDA_ARCH_LIST"] = torch_arch_list;
  if (!ccache.empty()) {
    e["CCACHE_STATSLOG"] = ccache_log_path();
    // Paths under the base hash as relative ones, so a second build folder hits the same cache. It
    // must hold the build folder too: generated headers live there.
    e["CCACHE_BASEDIR"] = ccache_basedir();
    if (!cache_dir.empty()) e["CCACHE_DIR"] = cache_dir;
  }
  core::LauncherEnv kiln;  // what the launchers are told
  if (wraps_compilers()) {
    // What the c++ and nvcc links run: the launchers after `kiln exec --`, then the compiler.
    std::string chain;
    for (const auto& l : launcher())
      if (l != kiln_exe && l != "exec" && l != "--") chain += l + '\x1f';
    kiln.wrap_cxx = chain + real_cxx;
    kiln.wrap_nvcc = chain + nvcc;
  }
  if (governed()) {
    kiln.exec_log = exec_log_path();
    kiln.exe = kiln_exe;  // for data/parallel_extensions.py: `kiln exec --weigh` orders its units
    kiln.running = running_dir();
    kiln.ledger = ledger.empty() ? build_dir + "/.kiln/ledger" : ledger;
    kiln.mem_history = build_dir + "/.kiln/mem";
    // The same units learned in another checkout of the project (a fresh clone elsewhere): keyed
    // by the output's path inside the project and the source's content (launch/exec_launcher).
    kiln.project_dir = project_dir;
    const std::string user = io::kiln_user_cache(env);
    if (!cache_dir.empty())
      kiln.unit_history = cache_dir + "/kiln-units";
    else if (!user.empty())
      kiln.unit_history = user + "/units";
    kiln.mem_budget_kib = mem_budget_kib;
    if (prune_archs) kiln.prune_archs = core::format_cmake(targets);
    kiln.cores = static_cast<std::uint64_t>(cores);
    kiln.split = split_threads;
    // What comes next, for the thread grants; a torch extension's helper names its own per Ninja.
    if (split_threads) kiln.unit_plan = unit_plan_path();
    if (nvcc_time) kiln.nvcc_time = build_dir + "/.kiln/time";
    // Always said: a KILN_CPU_SHARE=1 of the user's, refused where nice cannot be lowered again,
    // must not reach the launchers.
    kiln.cpu_share = cpu_share;
    if (pooled()) kiln.pool_jobs = static_cast<std::uint64_t>(std::max(1, jobs.jobs));
  }
  for (auto& [k, v] : kiln.to_env()) e[k] = std::move(v);
  // ccache hashes the working directory of a compile with -g (hash_dir), and Python's own CFLAGS
  // carry -g into every torch extension's host .cpp: a fresh copy of the project then misses on
  // each of them. kiln's paths are already relative to CCACHE_BASEDIR, so the folder adds nothing
  // but misses; the cost is that a hit's debug info may name the folder of the build that filled
  // the cache (ccache manual, "Compiling in different directories"). A user's own setting wins.
  if (!ccache.empty() && !e.count("CCACHE_HASHDIR") && !e.count("CCACHE_NOHASHDIR")) e["CCACHE_NOHASHDIR"] = "1";
  return e;
}

}  // namespace kiln::plan
