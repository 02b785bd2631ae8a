#include "read/setup_py_source.hpp"

namespace kiln::read {

std::string setup_py_source(const io::Filesystem& fs, const std::string& project_dir) {
  const std::string path = project_dir + "/setup.py";
  if (!fs.exists(path) || io::read_refusal(fs, path, io::kProjectFileMaxBytes)) return {};
  // One byte past the bound: a file that grew since it was checked is refused, not read whole.
  auto text = fs.read_head(path, io::kProjectFileMaxBytes + 1);
  if (!text || text->size() > io::kProjectFileMaxBytes) return {};
  return std::move(*text);
}

}  // namespace kiln::read
