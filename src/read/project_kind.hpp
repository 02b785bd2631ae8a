#pragma once
// What kind of source tree kiln is asked to build; each kind is driven differently.
#include <optional>
#include <string>
#include <string_view>

#include <tl/expected.hpp>

#include "io/fs.hpp"
#include "io/seams.hpp"
#include "read/setup_py_ast.hpp"

namespace kiln::read {

enum class ProjectKind { cmake, pytorch, extension, unknown };

// Whether setuptools builds the project (no pyproject.toml, or its [build-system] build-backend is
// absent or setuptools'): then setup.py runs, and a torch extension's imports torch. A project's own
// backend (backend-path) may need nothing of the kind.
bool builds_with_setuptools(const io::Filesystem& fs, const std::string& dir);
std::string to_string(ProjectKind k);                              // "cmake", "pytorch", "extension", "unknown"
std::optional<ProjectKind> project_kind_from(std::string_view s);  // to_string's inverse
inline constexpr ProjectKind kProjectKinds[] = {ProjectKind::cmake, ProjectKind::pytorch, ProjectKind::extension,
                                                ProjectKind::unknown};

// pytorch: setup.py + CMakeLists.txt + torchgen/ (a PyTorch checkout). extension: a setup.py whose
// build makes extensions (read by `setup`, setup_py_ast.hpp: Extension calls in setup.py or in the
// project's own modules it imports, an op-builder package), or a pyproject.toml that needs torch to
// build. cmake: CMakeLists.txt. Without a reading of setup.py (no interpreter), the words
// cpp_extension / CUDAExtension in it decide.
ProjectKind detect_project_kind(const io::Filesystem& fs, const std::string& dir,
                                const tl::expected<SetupPyReading, std::string>* setup = nullptr);

// The kind as every command decides it: setup.py read with Python's ast (setup_py_ast.hpp) by
// `python` (a name on PATH or a path; "" means $PYTHON, else python3), then detect_project_kind.
// `setup` keeps the reading (or why there is none) for the plan's later steps.
struct KindReading {
  ProjectKind kind = ProjectKind::unknown;
  tl::expected<SetupPyReading, std::string> setup = tl::unexpected(std::string());
};
KindReading read_project_kind(const io::Seams& s, const std::string& dir, const std::string& python = "");

// For the error of a folder that is no project: what kiln found there ("setup.py, which builds no
// extension (read with Python's ast: no Extension call in setup.py or the 2 modules it imports)").
std::string describe_folder(const io::Filesystem& fs, const std::string& dir,
                            const tl::expected<SetupPyReading, std::string>* setup = nullptr);

}  // namespace kiln::read
