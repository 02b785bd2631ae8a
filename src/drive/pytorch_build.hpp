#pragma once
// The PyTorch checkout driver: its setup.py runs CMake itself, so kiln checks the cached
// configuration, runs the planned Python build, and finds the libraries under build/ and torch/lib.
#include "drive/driver.hpp"

namespace kiln::drive {

class PyTorchCheckoutDriver final : public BuildDriver {
public:
  void build(BuildContext& ctx) override;
};

// The ELF files a setup.py build leaves under the project's build/ and torch/lib.
std::vector<std::string> python_build_artifacts(const io::Filesystem& fs, const std::string& project_dir);

}  // namespace kiln::drive
