#pragma once
// Reading a project's build files for the switches that steer its build: environment variables
// setup.py compares or reads, environment variables turned into setup.py flags, CMake options and
// cache entries, and the GPU probe that gates CUDA on "torch sees a GPU". Read as text, never run:
// planning must not execute a project's code. What each one means is decided elsewhere
// (project_knobs.hpp, data/project_knobs.toml).
#include <string>
#include <string_view>
#include <vector>

#include <tl/expected.hpp>

#include "io/fs.hpp"
#include "read/knob_sighting.hpp"

namespace kiln::read {

struct SetupPyReading;

struct ProjectReading {
  std::vector<KnobSighting> sightings;  // in file order; a name may appear more than once
  std::string cuda_evidence;            // where the project shows it has CUDA code ("setup.py:136 CUDAExtension"), or ""
  std::string hardcoded_archs;          // where setup.py writes its own -gencode / arch=compute_XX flags, or ""
  std::vector<OpSwitch> ops;            // an op-builder project's optional ops (setup_py_ast.hpp)
  std::vector<Undecided> undecided;     // what could not be read statically, with file:line
  std::string calls_cmake;              // where setup.py runs CMake itself, or ""
  std::string reader;                   // how setup.py was read: "Python's ast (3 files)", "line patterns (why)"
};

std::vector<KnobSighting> read_setup_py(std::string_view text, const std::string& file = "setup.py");
std::vector<KnobSighting> read_cmakelists(std::string_view text, const std::string& file = "CMakeLists.txt");
// [tool.scikit-build] cmake.define / cmake.args entries (-DX=Y) and [tool.*.env] tables.
std::vector<KnobSighting> read_pyproject(std::string_view text, const std::string& file = "pyproject.toml");
// The first line that shows CUDA code will be compiled: CUDAExtension / .cu sources in setup.py,
// LANGUAGES CUDA / enable_language(CUDA) / .cu in CMakeLists.txt.
std::string cuda_evidence(std::string_view text, const std::string& file);
// The first line that hard-codes nvcc architecture flags (arch=compute_90, -gencode, --generate-code),
// which torch passes to nvcc beside TORCH_CUDA_ARCH_LIST's: "setup.py:99 cc_flag.append(...)".
std::string hardcoded_archs(std::string_view text, const std::string& file);

// The files that drive the build kiln runs: setup.py (and the modules it imports, through
// `setup`, the ast reading of setup_py_ast.hpp; without one, or when it failed, line patterns) and
// pyproject.toml for a Python build (`cmake_project` false), CMakeLists.txt (with the folders it
// adds) and pyproject.toml's CMake defines for a CMake project and for a pip build that runs CMake.
// CUDA evidence comes from whichever of setup.py and CMakeLists.txt shows it first.
ProjectReading read_project(const io::Filesystem& fs, const std::string& dir, bool cmake_project,
                            const tl::expected<SetupPyReading, std::string>* setup = nullptr);

}  // namespace kiln::read
