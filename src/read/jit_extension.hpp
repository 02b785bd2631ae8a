#pragma once
// Code that compiles its C++/CUDA extension when first imported (torch.utils.cpp_extension's
// load() and load_inline(), nvdiffrast's pattern) rather than when installed: `pip install` of such
// a project builds nothing native, so kiln has nothing to build ahead of time, and says so instead
// of only "pyproject.toml, whose [build-system] does not need torch" (issue 33's newcomer run).
#include <optional>
#include <string>

#include "io/fs.hpp"

namespace kiln::read {

// The first call site, "nvdiffrast/torch/ops.py:96", in the project's .py files that mention
// cpp_extension (each read up to 1 MiB, at most 2000 files); nullopt when none.
std::optional<std::string> find_jit_extension(const io::Filesystem& fs, const std::string& project_dir);

// The line number (1-based) of the first load(...) or load_inline(...) call of cpp_extension in one
// file's text; 0 when none. A load( preceded by another object's name (json.load, torch.load,
// np.load) is not one; a method or function defined as load is not one.
int jit_call_line(std::string_view text);

}  // namespace kiln::read
