#include "binary/system_dirs.hpp"

#include <algorithm>

namespace kiln::binary {
namespace {

// One row a folder: its place in ld.so's order and in the doctor's, 0 where it is not in that list.
struct SystemDir {
  const char* path;
  int ld_so, doctor;
};
constexpr SystemDir kSystemDirs[] = {
    {"/lib/x86_64-linux-gnu", 1, 5},
    {"/usr/lib/x86_64-linux-gnu", 2, 1},
    {"/lib64", 3, 0},
    {"/usr/lib64", 4, 2},
    {"/lib", 5, 0},
    {"/usr/lib", 6, 3},
    {"/usr/local/lib", 0, 4},
};

std::vector<std::string> in_order(int SystemDir::*rank) {
  std::vector<const SystemDir*> rows;
  for (const auto& d : kSystemDirs)
    if (d.*rank > 0) rows.push_back(&d);
  std::sort(rows.begin(), rows.end(), [&](const SystemDir* a, const SystemDir* b) { return a->*rank < b->*rank; });
  std::vector<std::string> out;
  for (const auto* d : rows) out.emplace_back(d->path);
  return out;
}

}  // namespace

const std::vector<std::string>& ld_so_default_dirs() {
  static const std::vector<std::string> dirs = in_order(&SystemDir::ld_so);
  return dirs;
}

const std::vector<std::string>& doctor_library_dirs() {
  static const std::vector<std::string> dirs = in_order(&SystemDir::doctor);
  return dirs;
}

}  // namespace kiln::binary
