#pragma once
// A torch extension's build as a PEP 517 frontend: the project's own build backend (its
// pyproject.toml [build-system], else setuptools' legacy backend, as pip does) builds the wheel
// once, then pip installs that wheel. `pip install .` runs the backend twice (metadata, then the
// wheel), and every run of a torch extension's setup.py imports torch: seconds that a warm build,
// whose compiles are all cache hits, is otherwise made of.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::drive {

// The Python program that loads the backend as pyproject_hooks does (backend-path first, the
// project folder as the working directory, the script's own folder as sys.path[0]) and calls
// build_wheel(WHEEL_DIR). It prints "KILN-WHEEL <file name>" when done.
std::string_view wheel_build_script();

// The helper the script imports from its own folder when setup.py uses cpp_extension: every
// extension built at once (data/parallel_extensions.py), written there as this module name.
constexpr std::string_view kParallelExtensionsModule = "kiln_parallel_extensions.py";
std::string_view parallel_extensions_helper();

// "KILN-WHEEL <name>" from the script's output; nullopt when it printed none (the build failed).
std::optional<std::string> built_wheel_name(std::string_view line);

// Extracts the wheel's shared libraries into DEST (emptied first), for the checks after a build
// that took its wheel from the cache and so left nothing under the project's build/.
std::vector<std::string> wheel_unpack_argv(const std::string& python, const std::string& wheel,
                                           const std::string& dest);

}  // namespace kiln::drive
