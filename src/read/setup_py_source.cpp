#include "read/setup_py_source.hpp"

namespace kiln::read {

std::string setup_py_source(const io::Filesystem& fs, const std::string& project_dir) {
  const std::string path = project_dir + "/setup.py";
  if (!fs.exists(path) || io::read_refusal(fs, path, io::kProjectFileMaxBytes)) return {};
  auto text = fs.read(path);
  if (!text || text->size() > io::kProjectFileMaxBytes) return {};
  return std::move(*text);
}

}  // namespace kiln::read
