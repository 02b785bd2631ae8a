#include "probe/doctor.hpp"

#include <fmt/format.h>

#include <future>
#include <memory>

#include "core/name_table.hpp"
#include "core/text.hpp"
#include "probe/gpu_check.hpp"

namespace kiln::probe {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::string cache_home(const io::Seams& s) {
  if (auto x = s.env.get("XDG_CACHE_HOME"); x && !x->empty()) return *x;
  return s.env.get("HOME").value_or("/tmp") + "/.cache";
}

DiskReport disk_for(const io::Seams& s, const DiskQuery& q, DiskRole role, const std::string& path) {
  DiskReport d{role, path, path, std::nullopt};
  // The folder may not exist yet; its nearest existing parent is where it will be created.
  while (!d.checked.empty() && d.checked != "/" && !s.fs.exists(d.checked)) d.checked = core::dir_name(d.checked);
  d.space = q.space(d.checked);
  return d;
}

void machine_findings(const MachineReport& m, Findings& f) {
  const auto& i = m.info;
  if (i.cgroup_limit && i.mem_total && *i.cgroup_limit < i.mem_total)
    f.push_back({Severity::note, "machine", "machine.cgroup-limit",
                 fmt::format("A cgroup limit ({}) caps this process at {:.1f} GiB of the machine's {:.1f} GiB; compile "
                             "jobs beyond it are OOM-killed, not slowed.",
                             i.cgroup_source, static_cast<double>(*i.cgroup_limit) / kGiB,
                             static_cast<double>(i.mem_total) / kGiB),
                 fmt::format("MAX_JOBS={} (kiln build chooses this itself)", m.jobs_cxx.jobs)});
  if (m.jobs_cxx.limited_by == "memory")
    f.push_back(
        {Severity::warning, "machine", "machine.memory-bound",
         fmt::format("Memory, not cores, limits parallel compiles: {} of {} cores can be used ({}).", m.jobs_cxx.jobs,
                     m.jobs_cxx.cores, m.jobs_cxx.arithmetic),
         fmt::format("MAX_JOBS={} (more jobs risk \"Killed signal terminated program cc1plus\")", m.jobs_cxx.jobs)});
  const double min_disk = min_build_disk_gib();
  for (const auto& d : m.disks)
    if (d.role == DiskRole::build && d.space && static_cast<double>(d.space->free_bytes) / kGiB < min_disk)
      f.push_back(
          {Severity::warning, "machine", "machine.low-disk",
           fmt::format("Only {:.1f} GiB free at {} (the build folder); a PyTorch build tree needs about {:.0f} GiB.",
                       static_cast<double>(d.space->free_bytes) / kGiB, d.checked, min_disk),
           "free space there, or build elsewhere: kiln build --build-dir /path/with/space"});
}

}  // namespace

bool DoctorReport::library_usable(const std::string& key) const {
  for (const auto& l : libraries)
    if (l.key == key) return l.usable();
  return false;
}

DoctorReport run_doctor(const io::Seams& s, const DoctorOptions& o) {
  const auto t0 = s.clock.now();
  DoctorReport r;
  auto take = [&](const Findings& f) { r.findings.insert(r.findings.end(), f.begin(), f.end()); };

  r.cuda = detect_cuda_toolkit(s, o.sysroot);
  take(r.cuda.findings);

  // Python first, because its site-packages hold pip-installed CUDA libraries; the probe prints
  // them before importing torch, so in parallel mode everything else proceeds during the import.
  PythonOptions po;
  po.python = o.python;
  po.import_torch = o.deep;
  std::vector<std::string> site_packages;
  std::future<PythonInfo> python_done;
  if (o.parallel) {
    auto sp = std::make_shared<std::promise<std::vector<std::string>>>();
    auto sp_ready = sp->get_future();
    po.on_site_packages = [sp](const std::vector<std::string>& v) { sp->set_value(v); };
    python_done = std::async(std::launch::async, [&s, &cuda = r.cuda, po] { return detect_python(s, cuda, po); });
    site_packages = sp_ready.get();
  } else {
    po.on_site_packages = [&site_packages](const std::vector<std::string>& v) { site_packages = v; };
    r.python = detect_python(s, r.cuda, po);
  }

  LibraryOptions lo;
  lo.sysroot = o.sysroot;
  lo.self_exe = o.self_exe;
  lo.site_packages = site_packages;
  lo.check_loads = !o.self_exe.empty();
  Findings lib_findings;
  r.libraries = detect_libraries(s, r.cuda, lo, lib_findings);
  take(lib_findings);

  ToolchainOptions to;
  to.deep = o.deep;
  to.work_dir = o.work_dir.empty() ? cache_home(s) + "/kiln/doctor" : o.work_dir;
  r.toolchain = detect_toolchain(s, r.cuda, to);
  take(r.toolchain.findings);

  SystemGpuQuery system_gpus(s);
  GpuQuery& gq = o.gpu_query ? *o.gpu_query : system_gpus;
  r.gpus = gq.query();
  if (o.parallel) r.python = python_done.get();
  take(r.python.findings);
  take(check_gpus(r.gpus, r.cuda, r.python.torch));

  r.machine.info = probe_machine(s.fs, o.online_cpus > 0 ? o.online_cpus : online_cpus(), o.sysroot);
  r.machine.jobs_cxx = safe_jobs(r.machine.info, JobKind::cxx);
  r.machine.jobs_cuda = safe_jobs(r.machine.info, JobKind::cuda, 1);
  StatvfsDiskQuery statvfs_disk;
  const DiskQuery& dq = o.disk_query ? *o.disk_query : statvfs_disk;
  r.machine.disks.push_back(disk_for(s, dq, DiskRole::build, o.build_dir));
  if (!r.toolchain.ccache_info.cache_dir.empty())
    r.machine.disks.push_back(disk_for(s, dq, DiskRole::ccache, r.toolchain.ccache_info.cache_dir));
  r.machine.disks.push_back(disk_for(s, dq, DiskRole::kiln_cache, cache_home(s) + "/kiln"));
  r.machine.disks.push_back(disk_for(s, dq, DiskRole::tmp, s.env.get("TMPDIR").value_or("/tmp")));
  Findings mf;
  machine_findings(r.machine, mf);
  take(mf);

  if (!o.cmake_cache.empty()) {
    auto a = audit_cmake_cache(s, o.cmake_cache, o.self_exe);
    if (a) {
      r.cmake_cache = std::move(*a);
      take(r.cmake_cache->findings);
    } else {
      r.cmake_cache_error = a.error();
    }
  }
  r.elapsed_ms = static_cast<long>(std::chrono::duration_cast<std::chrono::milliseconds>(s.clock.now() - t0).count());
  return r;
}

namespace {
constexpr core::NameTable<DiskRole, 4> kDiskRoleNames{{{{DiskRole::build, "build"},
                                                        {DiskRole::ccache, "ccache"},
                                                        {DiskRole::kiln_cache, "kiln cache"},
                                                        {DiskRole::tmp, "tmp"}}}};
}  // namespace

std::string_view to_string(DiskRole r) { return kDiskRoleNames.name(r, "disk"); }

}  // namespace kiln::probe
