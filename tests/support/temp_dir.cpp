#include "temp_dir.hpp"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace kiln::testing {
namespace stdfs = std::filesystem;

TempDir::TempDir() {
  std::string tmpl = (stdfs::temp_directory_path() / "kiln-test-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed in " + stdfs::temp_directory_path().string());
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  stdfs::remove_all(path_, ec);
}

std::string TempDir::write(const std::string& rel, const std::string& content, bool executable) const {
  const std::string p = *this / rel;
  stdfs::create_directories(stdfs::path(p).parent_path());
  std::ofstream(p, std::ios::binary) << content;
  if (executable) stdfs::permissions(p, stdfs::perms::owner_all, stdfs::perm_options::add);
  return p;
}

std::string TempDir::mkdir(const std::string& rel) const {
  stdfs::create_directories(*this / rel);
  return *this / rel;
}

}  // namespace kiln::testing
