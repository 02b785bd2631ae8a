#include "launch/nvcc_phases.hpp"
#include "core/text.hpp"

#include <charconv>
#include <filesystem>
#include <sstream>
#include <string_view>
#include <vector>

namespace kiln::launch {
namespace {

using core::trim;
bool starts(const std::string& s, std::string_view p) { return core::starts_with(s, p); }
bool has(const std::string& s, std::string_view p) { return s.find(p) != std::string::npos; }

}  // namespace

bool nvcc_time_filler(std::string_view line) { return line.rfind("source file name", 0) == 0 || trim(line).empty(); }

std::optional<NvccTimeRow> nvcc_time_row(std::string_view line) {
  NvccTimeRow row;
  size_t n = 0;
  std::string_view rest(line);
  for (size_t c; (c = rest.find(',')) != std::string_view::npos; rest.remove_prefix(c + 1)) {
    if (n == row.f.size()) return std::nullopt;
    row.f[n++] = trim(rest.substr(0, c));
  }
  if (n != row.f.size() - 1) return std::nullopt;
  row.f[n] = trim(rest);
  const std::string& t = row.f[6];
  if (std::from_chars(t.data(), t.data() + t.size(), row.ms).ec != std::errc()) return std::nullopt;
  if (row.f[7] == "s") row.ms *= 1000;
  return row;
}

int nvcc_time_arch(const std::string& s) {
  size_t us = s.find('_');
  if (us == std::string::npos) return 0;
  int n = 0;
  auto [p, ec] = std::from_chars(s.data() + us + 1, s.data() + s.size(), n);
  return ec == std::errc() ? n : 0;
}

double NvccPhases::total_ms() const {
  double t = front_end_ms + host_ms + link_ms + other_ms;
  for (const auto& [a, p] : archs) t += p.device_ms + p.ptxas_ms;
  return t;
}

void add_nvcc_time_row(NvccPhases& out, const NvccTimeRow& row) {
  const auto& f = row.f;
  const double ms = row.ms;
  ++out.rows;
  const std::string& phase = f[1];
  const int arch = nvcc_time_arch(f[4]);
  if (has(phase, "(preprocessing 1)") || starts(phase, "cicc") || starts(phase, "nvvm")) {
    if (arch)
      out.archs[arch].device_ms += ms;
    else
      out.other_ms += ms;
  } else if (starts(phase, "ptxas")) {
    if (arch)
      out.archs[arch].ptxas_ms += ms;
    else
      out.other_ms += ms;
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

std::optional<std::string> append_flags_path(const std::string& path, const std::string& cwd) {
  auto blank_free = [](const std::string& p) {
    return !p.empty() && p.find_first_of(" \t\n\r\f\v") == std::string::npos;
  };
  if (blank_free(path)) return path;
  if (cwd.empty()) return std::nullopt;
  const std::string rel = std::filesystem::path(path).lexically_relative(cwd).string();
  if (blank_free(rel)) return rel;
  return std::nullopt;
}

NvccPhases parse_nvcc_phases(const std::string& csv) {
  NvccPhases out;
  std::istringstream in(csv);
  std::string line;
  while (std::getline(in, line)) {
    if (nvcc_time_filler(line)) continue;
    auto row = nvcc_time_row(line);
    if (row && row->ms >= 0) add_nvcc_time_row(out, *row);
  }
  return out;
}

}  // namespace kiln::launch
