#pragma once
// The table of CUDA architectures from data/cuda_archs.toml: which CUDA releases build which
// architecture (with its `a`/`f` variants), and what nvcc builds when told nothing.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/arch.hpp"

namespace kiln::core {

struct CudaVersion {
  int major = 0, minor = 0;
  auto operator<=>(const CudaVersion&) const = default;
  std::string str() const { return std::to_string(major) + "." + std::to_string(minor); }
};
std::optional<CudaVersion> parse_cuda_version(std::string_view s);  // "13.0", "12.9.1"

struct ArchInfo {
  int number = 0;
  std::string family;
  CudaVersion first;
  std::optional<CudaVersion> last;  // nullopt: still supported
  std::optional<CudaVersion> a_since, f_since;
  std::string note;
};

class ArchCatalog {
public:
  // The embedded table. Aborts with a message if the embedded data is malformed: that is a build bug.
  static const ArchCatalog& get();
  const ArchInfo* find(int number) const;
  const std::vector<ArchInfo>& all() const { return archs_; }
  // The architecture exists in some CUDA release, with this variant (sm_99 and sm_89a never did).
  bool known(const Arch& a) const;
  // nvcc's default architecture (no -arch/-gencode) for this release; nullopt before the table.
  std::optional<int> nvcc_default(CudaVersion v) const;
  const std::string& default_archs() const { return default_archs_; }
  CudaVersion newest_known() const { return newest_; }
  // Which CUDA releases build this architecture (with its variant), e.g. "CUDA 9.0 to 12.9".
  std::string support_range(const Arch& a) const;
  bool supported_by(const Arch& a, CudaVersion v) const;

private:
  std::vector<ArchInfo> archs_;
  std::vector<std::pair<CudaVersion, int>> nvcc_default_;  // since, arch
  std::string default_archs_;
  CudaVersion newest_;
};

}  // namespace kiln::core
