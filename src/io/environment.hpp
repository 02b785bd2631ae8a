#pragma once
// The environment seam: TORCH_CUDA_ARCH_LIST, CUDA_HOME, PATH and friends are read through
// Environment so that tests state them instead of inheriting the developer's shell.
#include <map>
#include <optional>
#include <string>

namespace kiln::io {

class Environment {
public:
  virtual ~Environment() = default;
  virtual std::optional<std::string> get(const std::string& name) const = 0;
  // Every variable, for building a child's environment.
  virtual std::map<std::string, std::string> all() const = 0;
};

class RealEnvironment final : public Environment {
public:
  std::optional<std::string> get(const std::string& name) const override;
  std::map<std::string, std::string> all() const override;
};

}  // namespace kiln::io
