#include "run/nvcc_phases.hpp"

#include <charconv>
#include <sstream>
#include <string_view>
#include <vector>

namespace kiln::run {
namespace {

std::string trim(std::string_view s) {
  size_t a = s.find_first_not_of(" \t\r"), b = s.find_last_not_of(" \t\r");
  return a == std::string_view::npos ? std::string() : std::string(s.substr(a, b - a + 1));
}

int arch_number(const std::string& s) {
  size_t us = s.find('_');
  if (us == std::string::npos) return 0;
  int n = 0;
  auto [p, ec] = std::from_chars(s.data() + us + 1, s.data() + s.size(), n);
  return ec == std::errc() ? n : 0;
}

bool starts(const std::string& s, std::string_view p) { return s.rfind(p, 0) == 0; }
bool has(const std::string& s, std::string_view p) { return s.find(p) != std::string::npos; }

}  // namespace

double NvccPhases::total_ms() const {
  double t = front_end_ms + host_ms + link_ms + other_ms;
  for (const auto& [a, p] : archs) t += p.device_ms + p.ptxas_ms;
  return t;
}

NvccPhases parse_nvcc_phases(const std::string& csv) {
  NvccPhases out;
  std::istringstream in(csv);
  std::string line;
  while (std::getline(in, line)) {
    if (starts(line, "source file name") || trim(line).empty()) continue;
    std::vector<std::string> f;
    std::string_view rest(line);
    for (size_t c; (c = rest.find(',')) != std::string_view::npos; rest.remove_prefix(c + 1)) f.push_back(trim(rest.substr(0, c)));
    f.push_back(trim(rest));
    double ms = 0;
    if (f.size() != 8 || std::from_chars(f[6].data(), f[6].data() + f[6].size(), ms).ec != std::errc() || ms < 0) continue;
    if (f[7] == "s") ms *= 1000;
    ++out.rows;
    const std::string& phase = f[1];
    const int arch = arch_number(f[4]);
    if (has(phase, "(preprocessing 1)") || starts(phase, "cicc") || starts(phase, "nvvm")) {
      if (arch) out.archs[arch].device_ms += ms;
      else out.other_ms += ms;
    } else if (starts(phase, "ptxas")) {
      if (arch) out.archs[arch].ptxas_ms += ms;
      else out.other_ms += ms;
    } else if (has(phase, "(preprocessing") || starts(phase, "cudafe")) {
      out.front_end_ms += ms;
    } else if (has(phase, "(compiling)")) {
      out.host_ms += ms;
    } else if (starts(phase, "fatbinary") || starts(phase, "nvlink")) {
      out.link_ms += ms;
    } else {
      out.other_ms += ms;
    }
  }
  return out;
}

}  // namespace kiln::run
