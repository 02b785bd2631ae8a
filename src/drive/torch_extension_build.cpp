#include "drive/torch_extension_build.hpp"

#include <fmt/format.h>

#include <optional>

#include "core/fnv.hpp"
#include "drive/cmake_build.hpp"
#include "drive/pytorch_build.hpp"
#include "drive/step_runner.hpp"
#include "drive/wheel_build.hpp"
#include "io/file_lock.hpp"
#include "io/user_cache.hpp"
#include "launch/wheel_cache.hpp"
#include "launch/wheel_index.hpp"
#include "plan/install_command.hpp"

namespace kiln::drive {
namespace {

// The wheel cache's answer for this build: a wheel kept from the same inputs, copied into the
// wheel folder, or nothing (then the backend builds).
struct CacheLookup {
  launch::WheelKey key;
  std::string root;
  std::optional<launch::CachedWheel> kept;
  std::string wheel;  // the copy in the wheel folder when kept
};

CacheLookup look_up_wheel(BuildContext& ctx) {
  const auto& plan = ctx.plan;
  CacheLookup c;
  const auto t0 = ctx.s.clock.now();
  c.key = launch::wheel_key(wheel_inputs(plan), ctx.s);
  c.root = launch::wheel_cache_root(plan.cache_dir, ctx.s.env);
  c.kept = launch::find_cached_wheel(ctx.s.fs, c.root, c.key);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(ctx.s.clock.now() - t0).count();
  ctx.o.wheel_cache = {c.key.hex, c.root, c.kept.has_value(), false};
  ctx.log << fmt::format("kiln: wheel cache: {} {} ({} project files and the plan hashed in {} ms; {})\n",
                         c.kept ? "hit" : "miss", c.key.hex, c.key.files, ms,
                         c.root.empty() ? "no cache folder" : c.root);
  if (!c.kept) return c;
  auto bytes = ctx.s.fs.read(c.kept->path);
  if (bytes && ctx.s.fs.write(plan.wheel_dir() + "/" + c.kept->name, *bytes)) {
    c.wheel = plan.wheel_dir() + "/" + c.kept->name;
    ctx.log << "kiln: wheel cache: " << c.kept->name << " was built from the same inputs: the backend does not run\n";
  } else {
    ctx.log << "kiln: wheel cache: could not copy " << c.kept->path << ": building\n";
    c.kept.reset();
    ctx.o.wheel_cache.hit = false;
  }
  return c;
}

// The project's backend builds the wheel; its name comes back on the script's output.
bool build_wheel(BuildContext& ctx, std::string& wheel) {
  const auto& plan = ctx.plan;
  ctx.s.fs.write(plan.wheel_script_path(), std::string(wheel_build_script()));
  const std::string script_dir = plan.wheel_script_path().substr(0, plan.wheel_script_path().rfind('/'));
  ctx.s.fs.write(script_dir + "/" + std::string(kParallelExtensionsModule), std::string(parallel_extensions_helper()));
  ctx.steps.watch([&](std::string_view line) {
    if (auto w = built_wheel_name(line)) wheel = plan.wheel_dir() + "/" + *w;
  });
  auto r = ctx.steps.run("build", plan.build_argv(), true);
  ctx.steps.watch(nullptr);
  ctx.o.build_time = r.took;
  return r.ok;
}

// Keeps a freshly built wheel in the cache, or marks a kept one as used.
void update_cache(BuildContext& ctx, const CacheLookup& c, const std::string& wheel) {
  if (!c.kept && ctx.plan.wheel_cache && !c.root.empty()) {
    ctx.o.wheel_cache.stored = launch::store_wheel(ctx.s.fs, c.root, c.key, wheel);
    ctx.log << "kiln: wheel cache: " << (ctx.o.wheel_cache.stored ? "kept as " : "could not keep as ") << c.key.hex
            << " in " << c.root << "\n";
  } else if (c.kept) {
    launch::touch_wheel(ctx.s.fs, c.root, c.key);
  }
}

// The wheel checked against its RECORD (every member's size and sha256, each shared library an
// ELF file) and its libraries unpacked for verify, before it is kept or installed: what is kept
// and installed is what was checked (issue 34, case 1: three builds sharing setuptools' build
// folder cached and installed a 0-byte _C.so with exit 0).
bool check_wheel(BuildContext& ctx, const std::string& wheel, const CacheLookup& c) {
  const auto& plan = ctx.plan;
  auto u = ctx.steps.run("check", wheel_unpack_argv(plan.python, wheel, plan.wheel_dir() + "/contents"), false);
  ctx.o.build_time += u.took;
  if (u.ok) return true;
  if (c.kept) {
    ctx.log << "kiln: wheel cache: the kept wheel " << c.kept->path
            << " failed the check; it is dropped from the cache: run the build again\n";
    launch::drop_wheel(ctx.s.fs, c.root, c.key.hex);
  } else {
    ctx.log << "kiln: the wheel the backend built failed the check: it is neither kept nor installed\n";
  }
  return false;
}

// pip installs the wheel, one install into an interpreter at a time: two builds of one project
// installing at once would each remove what the other installs. The wait is bounded.
bool install(BuildContext& ctx, const std::string& wheel) {
  const auto& plan = ctx.plan;
  std::optional<io::FileLock> one_at_a_time;
  const auto cache = io::kiln_user_cache(ctx.s.env);
  if (!cache.empty() && dynamic_cast<io::RealFilesystem*>(&ctx.s.fs)) {
    ctx.s.fs.make_dirs(cache + "/locks");
    one_at_a_time.emplace(fmt::format("{}/locks/pip-{:016x}.lock", cache, core::fnv1a64(plan.python)),
                          io::FileLockOptions{.wait = std::chrono::minutes(10)});
    if (!one_at_a_time->held())
      ctx.log << "kiln: install: " << one_at_a_time->error() << "; installing without waiting further\n";
  }
  auto r = ctx.steps.run("install", plan::wheel_install_argv(plan.python, wheel), false);
  ctx.o.install_time = r.took;
  ctx.o.build_time += r.took;
  return r.ok;
}

}  // namespace

launch::WheelInputs wheel_inputs(const plan::Plan& p) {
  return {.project_dir = p.project_dir,
          .build_dir = p.build_dir,
          .targets = p.targets,
          .prune_archs = p.prune_archs,
          .build_type = p.build_type,
          .python = p.python,
          .torch_package = p.torch_package,
          .nvcc = p.nvcc,
          .nvcc_version = p.nvcc_version,
          .real_cxx = p.real_cxx,
          .env = p.env,
          .knobs = p.knobs.knobs};
}

void TorchExtensionDriver::build(BuildContext& ctx) {
  const auto& plan = ctx.plan;
  // A wheel left by an earlier build must not pass for this one's.
  ctx.s.fs.make_dirs(plan.wheel_dir());
  for (const auto& name : ctx.s.fs.list(plan.wheel_dir()))
    if (name.ends_with(".whl")) ctx.s.fs.remove(plan.wheel_dir() + "/" + name);
  CacheLookup cache;
  if (plan.wheel_cache) cache = look_up_wheel(ctx);
  const bool kept = cache.kept.has_value();
  std::string wheel = cache.wheel;
  if (!kept && !build_wheel(ctx, wheel)) return;
  if (wheel.empty() || !ctx.s.fs.exists(wheel)) {
    ctx.log << "kiln: build: the backend reported no wheel in " << plan.wheel_dir() << "\n";
    ctx.o.failed_step = "build";
    ctx.o.exit_code = 1;
    return;
  }
  ctx.o.wheel = wheel;
  if (!check_wheel(ctx, wheel, cache)) return;
  update_cache(ctx, cache, wheel);
  if (!install(ctx, wheel)) {
    if (kept) {  // the kept wheel is the suspect: named, and dropped so the next build runs the backend
      ctx.log << "kiln: wheel cache: pip could not install the kept wheel " << cache.kept->path
              << "; it is dropped from the cache: run the build again (or pass --no-wheel-cache)\n";
      launch::drop_wheel(ctx.s.fs, cache.root, cache.key.hex);
    }
    return;
  }
  ctx.o.ok = true;
  // The libraries of the wheel installed, as it holds them: not setuptools' build folder.
  ctx.o.artifacts = find_artifacts(ctx.s.fs, plan.wheel_dir() + "/contents");
}

}  // namespace kiln::drive
