#include "plan/install_command.hpp"

namespace kiln::plan {

std::vector<std::string> wheel_install_argv(const std::string& python, const std::string& wheel) {
  return {python, "-m", "pip", "install", "--no-deps", "--no-index", "--no-build-isolation", "--force-reinstall",
          wheel};
}

}  // namespace kiln::plan
