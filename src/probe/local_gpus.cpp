#include "probe/local_gpus.hpp"

#include <climits>
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
  const auto major = core::parse_int(m[1].str()), minor = core::parse_int(m[2].str());
  if (!major || !minor || *major > INT_MAX / 1000 || *minor > 99) return 0;  // 99: two digits
  return static_cast<int>(*major * 1000 + *minor * 10);
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
    const auto index = core::parse_int(f[0]), memory = core::parse_int(f[4]);
    if (!index || !memory || *index < 0 || *index > INT_MAX) continue;
    g.index = static_cast<int>(*index);
    g.memory_mib = *memory;
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
