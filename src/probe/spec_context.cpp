#include "probe/spec_context.hpp"

#include "probe/local_gpus.hpp"
#include "probe/nvcc.hpp"

namespace kiln::probe {

core::SpecContext spec_context_for(std::string_view spec, const io::Seams& s) {
  core::SpecContext ctx;
  if (spec.find("all") != std::string_view::npos)
    if (auto nvcc = probe_nvcc(s)) {
      ctx.nvcc_known = true;
      ctx.nvcc_sass = nvcc->sass;
      ctx.nvcc_ptx = nvcc->ptx;
    }
  if (spec.find("native") != std::string_view::npos) {
    SystemGpuQuery q(s);
    LocalGpus local = q.query();
    ctx.gpus_known = !local.source.empty();
    for (const auto& g : local.gpus)
      if (g.cc) ctx.local_gpus.push_back(g.cc);
  }
  return ctx;
}

}  // namespace kiln::probe
