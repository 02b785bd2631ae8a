#include "probe/local_gpus.hpp"
#include "core/text.hpp"

#include <regex>
#include <sstream>

#include "core/arch.hpp"

namespace kiln::probe {
namespace {

using core::trim;

}  // namespace

int parse_driver_cuda(const std::string& text) {
  static const std::regex re(R"(CUDA Version\s*:\s*([0-9]+)\.([0-9]+))");
  std::smatch m;
  if (!std::regex_search(text, m, re)) return 0;
  return std::stoi(m[1].str()) * 1000 + std::stoi(m[2].str()) * 10;
}

std::vector<LocalGpu> parse_nvidia_smi_csv(const std::string& csv) {
  std::vector<LocalGpu> out;
  std::istringstream in(csv);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::istringstream ls(line);
    std::string cell;
    while (std::getline(ls, cell, ',')) f.push_back(trim(cell));
    if (f.size() < 5) continue;
    LocalGpu g;
    try {
      g.index = std::stoi(f[0]);
      g.memory_mib = std::stoll(f[4]);
    } catch (...) {
      continue;
    }
    g.name = f[1];
    g.cc = core::parse_compute_capability(f[2]).value_or(0);
    g.driver_version = f[3];
    out.push_back(g);
  }
  return out;
}

// nvidia-smi, NVML's own command-line tool, rather than NVML by dlopen: kiln is a static binary
// (it runs on any glibc), and a static program cannot load the driver's shared libraries.
LocalGpus SystemGpuQuery::query() {
  LocalGpus out;
  auto smi = io::which(s_, "nvidia-smi");
  if (!smi) {
    out.note = "nvidia-smi not on PATH (no NVIDIA driver)";
    return out;
  }
  auto r = s_.proc.run({.argv = {*smi, "--query-gpu=index,name,compute_cap,driver_version,memory.total",
                                 "--format=csv,noheader,nounits"}});
  if (!r.ok()) {
    out.note = "nvidia-smi failed: " + trim(r.err.empty() ? r.out : r.err);
    return out;
  }
  out.source = "nvidia-smi";
  out.gpus = parse_nvidia_smi_csv(r.out);
  // The CUDA version the driver supports is in the summary's header only.
  if (auto h = s_.proc.run({.argv = {*smi}}); h.ok()) out.driver_cuda = parse_driver_cuda(h.out);
  return out;
}

}  // namespace kiln::probe
