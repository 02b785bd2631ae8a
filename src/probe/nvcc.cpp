#include "probe/nvcc.hpp"

#include <regex>
#include <sstream>

namespace kiln::probe {

std::optional<std::string> find_nvcc(const io::Seams& s, std::string* how) {
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    if (auto home = s.env.get(var); home && !home->empty()) {
      std::string cand = *home + "/bin/nvcc";
      if (s.fs.is_executable(cand)) {
        if (how) *how = var;
        return cand;
      }
    }
  }
  if (auto p = io::which(s, "nvcc")) {
    if (how) *how = "PATH";
    return p;
  }
  if (s.fs.is_executable("/usr/local/cuda/bin/nvcc")) {
    if (how) *how = "/usr/local/cuda";
    return std::string("/usr/local/cuda/bin/nvcc");
  }
  return std::nullopt;
}

std::optional<std::string> parse_nvcc_release(const std::string& out) {
  static const std::regex full(R"(V(\d+\.\d+\.\d+))");
  static const std::regex release(R"(release (\d+\.\d+))");
  std::smatch m;
  if (std::regex_search(out, m, full)) return m[1].str();
  if (std::regex_search(out, m, release)) return m[1].str();
  return std::nullopt;
}

std::vector<core::Arch> parse_arch_listing(const std::string& listing) {
  std::vector<core::Arch> out;
  std::istringstream in(listing);
  std::string word;
  while (in >> word)
    if (auto a = core::parse_arch_name(word)) out.push_back(*a);
  return out;
}

bool NvccInfo::can_build(const core::Arch& a) const {
  bool base = false;
  for (const auto& x : sass) base |= x.number == a.number;
  if (!base) return false;
  if (a.variant == core::Variant::none) return true;
  return version && core::ArchCatalog::get().supported_by(a, *version);
}

std::optional<NvccInfo> probe_nvcc(const io::Seams& s) {
  NvccInfo info;
  auto path = find_nvcc(s, &info.how);
  if (!path) return std::nullopt;
  info.path = *path;
  auto v = s.proc.run({.argv = {info.path, "--version"}});
  if (v.ok())
    if (auto rel = parse_nvcc_release(v.out)) {
      info.version_text = *rel;
      info.version = core::parse_cuda_version(*rel);
    }
  auto code = s.proc.run({.argv = {info.path, "--list-gpu-code"}});
  if (code.ok()) info.sass = parse_arch_listing(code.out);
  auto arch = s.proc.run({.argv = {info.path, "--list-gpu-arch"}});
  if (arch.ok()) info.ptx = parse_arch_listing(arch.out);
  return info;
}

}  // namespace kiln::probe
