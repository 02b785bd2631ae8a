#include "probe/gpu_check.hpp"

#include <fmt/format.h>

#include "core/arch.hpp"
#include "core/arch_spec.hpp"
#include "core/compat.hpp"
#include "core/cuda_archs.hpp"

namespace kiln::probe {

Findings check_gpus(const LocalGpus& gpus, const CudaToolkit& tk, const std::optional<TorchInfo>& torch) {
  Findings f;
  if (gpus.source.empty() || gpus.gpus.empty()) {
    f.push_back({Severity::note, "gpus", "gpus.none",
                 fmt::format("No GPU is visible here ({}), so builds need an explicit architecture list and cannot be "
                             "tested on this machine.",
                             gpus.source.empty() ? gpus.note : "the driver lists none"),
                 "name the target GPUs: kiln plan --gpu h100 (or TORCH_CUDA_ARCH_LIST=9.0)"});
    return f;
  }
  if (gpus.driver_cuda > 0 && tk.version) {
    const int dmaj = gpus.driver_cuda / 1000, dmin = gpus.driver_cuda % 1000 / 10;
    const int tmaj = tk.version->major(), tmin = tk.version->minor();
    const std::string drv = gpus.gpus[0].driver_version;
    if (tmaj > dmaj)
      f.push_back(
          {Severity::error, "gpus", "gpus.driver-too-old",
           fmt::format("Driver {} supports CUDA up to {}.{} but the toolkit is CUDA {}.{}: programs built here "
                       "fail with cudaErrorInsufficientDriver (minor-version compatibility does not cross a major "
                       "version).",
                       drv, dmaj, dmin, tmaj, tmin),
           fmt::format("install a driver for CUDA {}.{} or newer, or build with CUDA {}.x", tmaj, tmin, dmaj)});
    else if (tmaj == dmaj && tmin > dmin)
      f.push_back(
          {Severity::warning, "gpus", "gpus.driver-older-minor",
           fmt::format("Driver {} supports CUDA {}.{} and the toolkit is {}.{}: binaries run under minor-version "
                       "compatibility, but PTX built here cannot be JIT-compiled by this driver and newer APIs "
                       "fail at run time.",
                       drv, dmaj, dmin, tmaj, tmin),
           fmt::format("build SASS for every GPU (no PTX-only targets), or upgrade the driver to CUDA {}.{}", tmaj,
                       tmin)});
  }
  const auto& catalog = core::ArchCatalog::get();
  core::TargetSet torch_set;
  bool torch_known = false;
  if (torch && !torch->arch_list.empty()) {
    for (const auto& a : torch->arch_list)
      if (auto arch = core::parse_arch_name(a))
        torch_set.add(core::Target{*arch, a.rfind("compute_", 0) == 0 ? core::CodeKind::ptx : core::CodeKind::sass});
    torch_known = !torch_set.empty();
  }
  for (const auto& g : gpus.gpus) {
    if (!g.cc) continue;
    if (tk.version) {
      core::CudaVersion cv{tk.version->major(), tk.version->minor()};
      if (!catalog.supported_by(core::Arch{g.cc}, cv))
        f.push_back({Severity::error, "gpus", "gpus.arch-unsupported-by-nvcc",
                     fmt::format("GPU {} ({}) is sm_{}, which CUDA {} cannot build ({}).", g.index, g.name, g.cc,
                                 cv.str(), catalog.support_range(core::Arch{g.cc})),
                     "install a CUDA release that supports sm_" + std::to_string(g.cc)});
    }
    if (torch_known) {
      auto c = core::coverage(torch_set, g.cc);
      if (c.verdict == core::Verdict::none)
        f.push_back({Severity::error, "gpus", "gpus.torch-arch-missing",
                     fmt::format("torch {} has no kernels for GPU {} ({}, sm_{}): {}", torch->version, g.index, g.name,
                                 g.cc, c.why),
                     "install a torch build that includes sm_" + std::to_string(g.cc) +
                         ", or build it with TORCH_CUDA_ARCH_LIST=" + core::cc_string(g.cc)});
      else if (c.verdict == core::Verdict::ptx_jit)
        f.push_back({Severity::warning, "gpus", "gpus.torch-ptx-only",
                     fmt::format("torch {} runs on GPU {} ({}) only by JIT-compiling PTX ({}): slow first start.",
                                 torch->version, g.index, g.name, c.why),
                     "use a torch build with sm_" + std::to_string(g.cc) + " SASS"});
    }
  }
  return f;
}

}  // namespace kiln::probe
