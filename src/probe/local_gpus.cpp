#include "probe/local_gpus.hpp"

#include <dlfcn.h>

#include <sstream>

#include "core/arch.hpp"

namespace kiln::probe {
namespace {

// The handful of NVML entry points kiln needs, declared here so no NVML header is required.
using nvmlReturn_t = int;
using nvmlDevice_t = void*;
struct NvmlMemory {
  unsigned long long total, free, used;
};

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r')) s.pop_back();
  while (!s.empty() && s.front() == ' ') s.erase(0, 1);
  return s;
}

}  // namespace

LocalGpus query_nvml() {
  LocalGpus out;
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    out.note = "libnvidia-ml.so.1 not found (no NVIDIA driver)";
    return out;
  }
  auto sym = [&](const char* n) { return dlsym(lib, n); };
  auto init = reinterpret_cast<nvmlReturn_t (*)()>(sym("nvmlInit_v2"));
  auto shutdown = reinterpret_cast<nvmlReturn_t (*)()>(sym("nvmlShutdown"));
  auto count = reinterpret_cast<nvmlReturn_t (*)(unsigned*)>(sym("nvmlDeviceGetCount_v2"));
  auto by_index = reinterpret_cast<nvmlReturn_t (*)(unsigned, nvmlDevice_t*)>(sym("nvmlDeviceGetHandleByIndex_v2"));
  auto get_name = reinterpret_cast<nvmlReturn_t (*)(nvmlDevice_t, char*, unsigned)>(sym("nvmlDeviceGetName"));
  auto get_cc = reinterpret_cast<nvmlReturn_t (*)(nvmlDevice_t, int*, int*)>(sym("nvmlDeviceGetCudaComputeCapability"));
  auto get_mem = reinterpret_cast<nvmlReturn_t (*)(nvmlDevice_t, NvmlMemory*)>(sym("nvmlDeviceGetMemoryInfo"));
  auto drv = reinterpret_cast<nvmlReturn_t (*)(char*, unsigned)>(sym("nvmlSystemGetDriverVersion"));
  auto drv_cuda = reinterpret_cast<nvmlReturn_t (*)(int*)>(sym("nvmlSystemGetCudaDriverVersion_v2"));
  if (!init || !count || !by_index || !get_name || !get_cc) {
    out.note = "libnvidia-ml.so.1 lacks the expected entry points";
    dlclose(lib);
    return out;
  }
  if (init() != 0) {
    out.note = "nvmlInit failed (driver not loaded?)";
    dlclose(lib);
    return out;
  }
  out.source = "nvml";
  char buf[256] = {};
  std::string driver;
  if (drv && drv(buf, sizeof buf) == 0) driver = buf;
  if (drv_cuda) drv_cuda(&out.driver_cuda);
  unsigned n = 0;
  if (count(&n) == 0)
    for (unsigned i = 0; i < n; ++i) {
      nvmlDevice_t dev = nullptr;
      if (by_index(i, &dev) != 0) continue;
      LocalGpu g;
      g.index = static_cast<int>(i);
      if (get_name(dev, buf, sizeof buf) == 0) g.name = buf;
      int major = 0, minor = 0;
      if (get_cc(dev, &major, &minor) == 0) g.cc = major * 10 + minor;
      NvmlMemory mem{};
      if (get_mem && get_mem(dev, &mem) == 0) g.memory_mib = static_cast<long long>(mem.total / (1024 * 1024));
      g.driver_version = driver;
      out.gpus.push_back(g);
    }
  if (shutdown) shutdown();
  dlclose(lib);
  return out;
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

LocalGpus SystemGpuQuery::query() {
  LocalGpus nvml = query_nvml();
  if (!nvml.source.empty()) return nvml;
  auto smi = io::which(s_, "nvidia-smi");
  if (!smi) {
    nvml.note += "; nvidia-smi not on PATH";
    return nvml;
  }
  auto r = s_.proc.run({.argv = {*smi, "--query-gpu=index,name,compute_cap,driver_version,memory.total",
                                 "--format=csv,noheader,nounits"}});
  LocalGpus out;
  if (!r.ok()) {
    out.note = nvml.note + "; nvidia-smi failed: " + trim(r.err.empty() ? r.out : r.err);
    return out;
  }
  out.source = "nvidia-smi";
  out.gpus = parse_nvidia_smi_csv(r.out);
  return out;
}

}  // namespace kiln::probe
