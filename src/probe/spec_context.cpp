#include "probe/spec_context.hpp"

#include <cctype>
#include <string>

#include "core/cuda_archs.hpp"
#include "probe/local_gpus.hpp"
#include "probe/nvcc.hpp"

namespace kiln::probe {

core::SpecContext spec_context_for(std::string_view spec, const io::Seams& s) {
  core::SpecContext ctx;
  // `all`/`all-major` list what nvcc builds; CMake's false constants (OFF, FALSE, NO, 0...) leave
  // nvcc's default, which depends on its release.
  std::string low(spec);
  for (char& c : low) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const bool short_word = low.size() <= 16 && low.find_first_of(".;, ") == std::string::npos;
  const bool maybe_false = short_word && (low == "off" || low == "false" || low == "no" || low == "n" || low == "0" ||
                                          low == "ignore" || low.find("notfound") != std::string::npos);
  if (low.find("all") != std::string::npos || maybe_false)
    if (auto nvcc = probe_nvcc(s)) {
      ctx.nvcc_known = true;
      ctx.nvcc_sass = nvcc->sass;
      ctx.nvcc_ptx = nvcc->ptx;
      if (nvcc->version) ctx.nvcc_default = core::ArchCatalog::get().nvcc_default(*nvcc->version);
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
