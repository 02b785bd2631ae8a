#pragma once
// The torch extension driver: a wheel built before from the same inputs is installed from the
// wheel cache (launch/wheel_cache); otherwise the project's own PEP 517 backend builds the wheel
// (drive/wheel_build), the cache keeps it, and pip installs it.
#include "drive/driver.hpp"

namespace kiln::drive {

class TorchExtensionDriver final : public BuildDriver {
public:
  void build(BuildContext& ctx) override;
};

}  // namespace kiln::drive
