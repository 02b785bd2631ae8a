#pragma once
// The CMake project driver: configure with Ninja (skipped when the folder was configured with the
// same arguments), build with the planned job count, find the libraries and executables it linked.
#include <map>
#include <string>
#include <vector>

#include "drive/driver.hpp"

namespace kiln::drive {

class CMakeProjectDriver final : public BuildDriver {
public:
  void build(BuildContext& ctx) override;
};

// What a configure depends on besides the project's files (which ninja watches itself): the
// CMake argv and the environment variables CMake reads. Equal stamps: no need to configure again.
std::string configure_stamp(const plan::Plan& plan, const std::map<std::string, std::string>& env);

// ELF shared libraries and executables under `dir`, skipping CMake's own scratch folders.
std::vector<std::string> find_artifacts(const io::Filesystem& fs, const std::string& dir);
// ELF files and static libraries the link steps of a CMake Ninja build write, wherever they are
// (from build.ninja); the device-link objects of CUDA_SEPARABLE_COMPILATION are not products.
std::vector<std::string> linked_outputs(const io::Filesystem& fs, const std::string& build_dir);

}  // namespace kiln::drive
