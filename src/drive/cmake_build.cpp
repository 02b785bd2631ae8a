#include "drive/cmake_build.hpp"

#include <algorithm>

#include "core/build_names.hpp"
#include "drive/stale_step.hpp"
#include "drive/step_runner.hpp"
#include "drive/ninja_dry_run.hpp"

namespace kiln::drive {

std::string configure_stamp(const plan::Plan& plan, const std::map<std::string, std::string>& env) {
  std::string s = "kiln configure stamp 1\n";
  for (const auto& a : plan.configure_argv()) s += "arg " + a + "\n";
  // The variables CMake reads while configuring; the rest of the environment does not change what
  // it generates, and a stamp over all of it (SHLVL, OLDPWD, ...) would never match.
  static const std::vector<std::string> kRead = core::configure_variables();  // core/build_names
  for (const auto& [k, v] : env) {
    if (std::find(kRead.begin(), kRead.end(), k) != kRead.end() || k.rfind("CMAKE_", 0) == 0)
      s += "env " + k + "=" + v + "\n";
  }
  return s;
}

namespace {

bool is_elf(const io::Filesystem& fs, const std::string& path) {
  auto head = fs.read_head(path, 4);
  return head && *head == "\177ELF";  // octal: \x7f would swallow the E
}

bool is_archive(const io::Filesystem& fs, const std::string& path) {
  auto head = fs.read_head(path, 8);
  return head && *head == "!<arch>\n";
}

}  // namespace

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
      if (is_elf(fs, path)) out.push_back(path);
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
    // CUDA_SEPARABLE_COMPILATION's device link (*_DEVICE_LINKER__) makes an object the final link
    // takes in (CMakeFiles/t.dir/cmake_device_link.o), not a product.
    const size_t rule_end = line.find(' ', colon + 2);
    if (line.substr(colon + 2, rule_end == std::string::npos ? std::string::npos : rule_end - colon - 2)
            .find("_DEVICE_LINKER__") != std::string::npos)
      continue;
    std::string path = line.substr(0, colon);
    if (path.find("$ ") != std::string::npos || path.find(' ') != std::string::npos) continue;  // several outputs
    if (path.empty() || path[0] != '/') path = build_dir + "/" + path;
    // A static library (*_STATIC_LIBRARY_LINKER__) is a product too: a CUDA library project may
    // make nothing else, and its kernels are in the archive's members.
    if (is_elf(fs, path) || is_archive(fs, path)) out.push_back(path);
  }
  return out;
}

namespace {

// The link CMake configures through (Plan::source_link, make_plan says why), made before configure.
// It points at this checkout; when it pointed at another one (a checkout moved, or another project
// built here), Ninja's mtimes and log belong to that one, so its log goes and every step runs again
// (through ccache: hits where the sources are the same). Returns whether the link changed.
bool link_source(BuildContext& ctx) {
  const auto& plan = ctx.plan;
  if (plan.source_link.empty()) return false;
  const std::string record = plan.build_dir + "/.kiln/source-link";
  auto& fs = ctx.s.fs;
  const auto before = fs.read(record);
  fs.make_dirs(plan.build_dir + "/.kiln");
  if (!fs.symlink(plan.project_dir, plan.source_link))
    ctx.log << "kiln: configure: could not link " << plan.source_link << " to " << plan.project_dir << "\n";
  fs.write(record, plan.project_dir);
  if (!before || *before == plan.project_dir) return false;
  fs.remove(plan.build_dir + "/.ninja_log");
  ctx.log << "kiln: configure: " << plan.build_dir << " was built from " << *before << ", now from " << plan.project_dir
          << ": every step runs again\n";
  return true;
}

// The fast no-op path: a folder CMake already configured with these very arguments is not
// configured again (3 s on the example, against 0.03 s for ninja to say "no work to do").
// Ninja's build.ninja re-runs CMake by itself when a CMakeLists.txt or a file it reads changed.
bool configure(BuildContext& ctx) {
  const auto& plan = ctx.plan;
  const std::string stamp_path = plan.build_dir + "/.kiln/configure-stamp";
  const std::string stamp = configure_stamp(plan, plan.child_env(ctx.s.env));
  const bool moved = link_source(ctx);
  if (!moved && ctx.s.fs.exists(plan.build_dir + "/build.ninja") &&
      ctx.s.fs.exists(plan.build_dir + "/CMakeCache.txt") && ctx.s.fs.read(stamp_path).value_or("") == stamp) {
    ctx.o.configure_skipped = true;
    ctx.log << "kiln: configure: skipped: " << plan.build_dir
            << " is configured with the same arguments (ninja re-runs CMake if its inputs changed)\n";
    return true;
  }
  if (ctx.s.fs.exists(stamp_path)) ctx.s.fs.write(stamp_path, "");  // a failed configure must not leave a match
  auto r = ctx.steps.run("configure", plan.configure_argv(), false);
  ctx.o.configure_time = r.took;
  if (!r.ok) return false;
  ctx.s.fs.make_dirs(plan.build_dir + "/.kiln");
  ctx.s.fs.write(stamp_path, stamp);
  if (ctx.steps.interrupted()) {  // told to stop between the steps: do not start Ninja
    ctx.o.failed_step = "configure";
    return false;
  }
  return true;
}

// What Ninja is about to compile, for kiln exec's thread grants (launch/unit_plan): its dry run
// lists only the steps it will run, in its order. Best effort: without it the grants see only the
// compiles already running.
void write_unit_plan(BuildContext& ctx) {
  const plan::Plan& plan = ctx.plan;
  const std::string path = plan.unit_plan_path();
  ctx.s.fs.remove(path);
  if (!plan.governed() || !plan.split_threads || plan.generator != "Ninja") return;
  io::ProcessSpec dry{.argv = {plan.ninja, "-C", plan.build_dir, "-n", "-v", "-j", std::to_string(plan.jobs.jobs)},
                      .env = plan.child_env(ctx.s.env)};
  auto r = ctx.s.proc.run(dry);
  if (r.ok()) ctx.s.fs.write(path, unit_plan_from_dry_run(r.out, "build", plan.jobs.jobs));
}

}  // namespace

void CMakeProjectDriver::build(BuildContext& ctx) {
  if (!apply_config_check(ctx) || !configure(ctx)) return;
  write_unit_plan(ctx);
  auto r = ctx.steps.run("build", ctx.plan.build_argv(), true);
  ctx.o.build_time = r.took;
  if (!r.ok) return;
  ctx.o.ok = true;
  ctx.o.artifacts = find_artifacts(ctx.s.fs, ctx.plan.build_dir);
  for (auto& a : linked_outputs(ctx.s.fs, ctx.plan.build_dir))
    if (std::find(ctx.o.artifacts.begin(), ctx.o.artifacts.end(), a) == ctx.o.artifacts.end())
      ctx.o.artifacts.push_back(a);
}

}  // namespace kiln::drive
