#pragma once
// An Environment for tests: the variables the test states, nothing from the developer's shell.
#include <map>
#include <optional>
#include <string>

#include "io/environment.hpp"

namespace kiln::io {

class FakeEnvironment final : public Environment {
public:
  FakeEnvironment() = default;
  explicit FakeEnvironment(std::map<std::string, std::string> vars) : vars_(std::move(vars)) {}
  void set(const std::string& k, const std::string& v) { vars_[k] = v; }
  std::optional<std::string> get(const std::string& name) const override {
    auto it = vars_.find(name);
    if (it == vars_.end()) return std::nullopt;
    return it->second;
  }
  std::map<std::string, std::string> all() const override { return vars_; }

private:
  std::map<std::string, std::string> vars_;
};
}  // namespace kiln::io
