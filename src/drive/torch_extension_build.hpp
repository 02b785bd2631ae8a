#pragma once
// The torch extension driver: a wheel built before from the same inputs is installed from the
// wheel cache (launch/wheel_cache); otherwise the project's own PEP 517 backend builds the wheel
// (drive/wheel_build), the cache keeps it, and pip installs it.
#include "drive/driver.hpp"
#include "launch/wheel_cache.hpp"

namespace kiln::drive {

// What the plan says the wheel is built from: the wheel cache's key hashes it.
launch::WheelInputs wheel_inputs(const plan::Plan& plan);

class TorchExtensionDriver final : public BuildDriver {
public:
  void build(BuildContext& ctx) override;
};

}  // namespace kiln::drive
