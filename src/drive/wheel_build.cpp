#include "drive/wheel_build.hpp"

#include "core/data.hpp"

namespace kiln::drive {

std::string_view wheel_build_script() { return data::file("wheel_build.py").value_or(""); }
std::string_view parallel_extensions_helper() { return data::file("parallel_extensions.py").value_or(""); }

std::optional<std::string> built_wheel_name(std::string_view line) {
  constexpr std::string_view kTag = "KILN-WHEEL ";
  if (line.substr(0, kTag.size()) != kTag) return std::nullopt;
  std::string name(line.substr(kTag.size()));
  while (!name.empty() && (name.back() == '\r' || name.back() == ' ')) name.pop_back();
  // A file name in the wheel folder, nothing else: the install step joins it to that folder.
  if (name.size() < 5 || name.find('/') != std::string::npos || !name.ends_with(".whl")) return std::nullopt;
  return name;
}

std::vector<std::string> wheel_unpack_argv(const std::string& python, const std::string& wheel,
                                           const std::string& dest) {
  // -I -S: the standard library only, nothing of the project's folder or site-packages.
  return {python, "-I", "-S", "-c", std::string(data::file("wheel_unpack.py").value_or("")), wheel, dest};
}

}  // namespace kiln::drive
