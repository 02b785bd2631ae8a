#include "drive/build_records.hpp"

namespace kiln::drive {

std::string kept_record_path(const std::string& path, int n) {
  if (n == 0) return path;
  const auto slash = path.rfind('/');
  auto dot = path.rfind('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) dot = path.size();
  return path.substr(0, dot) + "." + std::to_string(n) + path.substr(dot);
}

void keep_previous_record(io::Filesystem& fs, const std::string& path, bool skip_empty) {
  if (!fs.exists(path)) return;
  if (skip_empty && fs.size(path).value_or(0) == 0) return;
  fs.remove(kept_record_path(path, kKeptBuilds));
  for (int n = kKeptBuilds - 1; n >= 0; --n)
    if (const auto from = kept_record_path(path, n); fs.exists(from)) fs.rename(from, kept_record_path(path, n + 1));
}

}  // namespace kiln::drive
