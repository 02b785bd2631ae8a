#include "probe/machine.hpp"
#include "core/text.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <sstream>

namespace kiln::probe {
namespace {

std::optional<std::uint64_t> meminfo_field(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(key + ":", 0) == 0) {
      std::istringstream ls(line.substr(key.size() + 1));
      std::uint64_t kib = 0;
      if (ls >> kib) return kib * 1024;
    }
  return std::nullopt;
}

std::optional<std::uint64_t> read_number(const io::Filesystem& fs, const std::string& path) {
  auto text = fs.read(path);
  if (!text) return std::nullopt;
  std::istringstream in(*text);
  std::string word;
  if (!(in >> word) || word == "max") return std::nullopt;
  return core::parse_uint(word);
}

// The cgroup v2 path of this process from /proc/self/cgroup ("0::/some/path").
std::string cgroup2_path(const io::Filesystem& fs, const std::string& root) {
  auto text = fs.read(root + "/proc/self/cgroup");
  if (!text) return "";
  std::istringstream in(*text);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("0::", 0) == 0) return line.substr(3);
  return "";
}

}  // namespace

int online_cpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

std::uint64_t MachineInfo::build_memory() const {
  std::uint64_t avail = mem_available ? mem_available : mem_total;
  if (cgroup_limit) {
    std::uint64_t headroom = *cgroup_limit > cgroup_usage ? *cgroup_limit - cgroup_usage : 0;
    avail = std::min(avail, headroom);
  }
  return avail;
}

int MachineInfo::usable_cores() const { return cgroup_cpus ? std::min(cores, *cgroup_cpus) : cores; }

MachineInfo probe_machine(const io::Filesystem& fs, int cpus, const std::string& root) {
  MachineInfo m;
  m.cores = cpus;
  if (auto text = fs.read(root + "/proc/meminfo")) {
    m.mem_total = meminfo_field(*text, "MemTotal").value_or(0);
    m.mem_available = meminfo_field(*text, "MemAvailable").value_or(m.mem_total);
  }
  // cgroup v2: walk from this process's cgroup up to the root; the tightest memory.max wins.
  const std::string base = root + "/sys/fs/cgroup";
  std::string rel = cgroup2_path(fs, root);
  for (std::string dir = rel;; dir = dir.substr(0, dir.find_last_of('/'))) {
    const std::string at = base + (dir == "/" ? "" : dir);
    if (auto lim = read_number(fs, at + "/memory.max"); lim && (!m.cgroup_limit || *lim < *m.cgroup_limit)) {
      m.cgroup_limit = lim;
      m.cgroup_usage = read_number(fs, at + "/memory.current").value_or(0);
      m.cgroup_source = at + "/memory.max";
    }
    if (auto cpu = fs.read(at + "/cpu.max"); cpu && !m.cgroup_cpus) {
      std::istringstream in(*cpu);
      std::string quota;
      double period = 0;
      std::optional<double> q;
      if (in >> quota >> period && quota != "max" && period > 0 && (q = core::parse_double(quota)))
        m.cgroup_cpus = std::max(1, static_cast<int>(std::ceil(*q / period)));
    }
    if (dir.empty() || dir == "/") break;
  }
  // cgroup v1: the memory controller's own path ("4:memory:/docker/abc"), walked up like v2; an
  // unlimited limit_in_bytes reads as a huge number.
  if (!m.cgroup_limit) {
    std::string v1;
    if (auto text = fs.read(root + "/proc/self/cgroup")) {
      std::istringstream in(*text);
      std::string line;
      while (std::getline(in, line)) {
        auto c1 = line.find(':'), c2 = line.find(':', c1 + 1);
        if (c1 == std::string::npos || c2 == std::string::npos) continue;
        std::string controllers = "," + line.substr(c1 + 1, c2 - c1 - 1) + ",";
        if (controllers.find(",memory,") != std::string::npos) v1 = line.substr(c2 + 1);
      }
    }
    for (std::string dir = v1;; dir = dir.substr(0, dir.find_last_of('/'))) {
      const std::string at = base + "/memory" + (dir == "/" ? "" : dir);
      if (auto lim = read_number(fs, at + "/memory.limit_in_bytes");
          lim && *lim < (1ULL << 60) && (!m.cgroup_limit || *lim < *m.cgroup_limit)) {
        m.cgroup_limit = lim;
        m.cgroup_usage = read_number(fs, at + "/memory.usage_in_bytes").value_or(0);
        m.cgroup_source = at + "/memory.limit_in_bytes";
      }
      if (dir.empty() || dir == "/") break;
    }
  }
  return m;
}

}  // namespace kiln::probe
