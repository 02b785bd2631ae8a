#pragma once
// The torch a Python extension module loads. `import torch` comes first and loads torch's
// libraries (torch/lib, and what they need: the nvidia-* wheels' CUDA libraries through torch's
// RUNPATH); ld.so then reuses a loaded library by name, so a pip-installed extension links
// libtorch_python.so or libc10_cuda.so with no RUNPATH and still imports. Which torch: the one of
// the interpreter that will import the module, found as that interpreter finds it.
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "binary/deps.hpp"
#include "binary/resolved_library.hpp"
#include "io/seams.hpp"

namespace kiln::binary {

// *.cpython-*.so or *.abi3.so: a file Python imports as a module.
bool python_extension_module(const std::string& path);
// Also NAME.so that defines PyInit_NAME: importlib's last extension suffix is a plain .so, and a
// build_ext that names its module so (sam2's sam2/_C.so) is imported like the tagged ones. Only such
// names are read (through the image at `root`, when given); a library (libc10.so) defines none.
bool python_extension_module(const std::string& path, const io::Seams& s, const std::string& root = "");

// The script run as `python -c SCRIPT`: prints the torch package folder, or an empty line.
const std::string& torch_find_spec_script();
// The folder of the torch package `python_exe` would import (…/site-packages/torch), found with
// importlib's find_spec, which does not run torch/__init__.py (seconds); "" when none.
std::string find_torch_package(const io::Seams& s, const std::string& python_exe);

struct ExtensionTorch {
  std::string torch_dir;  // the torch package folder; "" when no torch was found
  std::string how;        // how it was chosen, for the user: "the site-packages it sits in", ...
  // What `import torch` has loaded, by the names the loader matches (DT_NEEDED and file names).
  std::vector<std::pair<std::string, std::string>> loaded;
  // Else (inside an image, or no torch/_C to start from): torch/lib, searched by file name.
  std::string lib_folder;
};

// Finds, per extension module, the torch its import loads, in this order: the interpreter named
// (`--python`); torch beside the module in its site-packages; the venv the site-packages belongs
// to (its own interpreter asked, so a --system-site-packages venv finds the base's torch); the
// interpreter named by the site-packages' pythonX.Y; else $PYTHON or python3 on PATH (a module in
// a build folder is imported by the user's interpreter). Each torch and interpreter is resolved
// once; safe to call from several threads.
class ExtensionTorchFinder {
public:
  ExtensionTorchFinder(const io::Seams& s, std::string python, std::string root = "")
      : s_(s), python_(std::move(python)), root_(std::move(root)) {}
  // nullopt for a file that is not a Python extension module, or inside an image (--root).
  std::optional<ExtensionTorch> find(const std::string& path);
  // Adds what `import torch` loaded to the options of a module's dependency resolution; false
  // (nothing added) for a file that is not a Python extension module.
  bool add_preloaded(const std::string& path, DepsOptions& opt);
  // The file's libraries as the process that loads it finds them (kiln verify and inspect --deps
  // ask this one question): a Python extension module after `import torch`; a shared library that
  // needs torch's libraries and does not find them itself, too, since nothing but a process that
  // imported torch can load it (torch.ops.load_library or ctypes after `import torch`: pytorch_scatter
  // 648dda3's _scatter_cpu.so has no PyInit_ and no RUNPATH); anything else as ld.so alone finds
  // them. `after_torch` (optional): whether it was resolved after `import torch`.
  DepsReport resolve(const std::string& path, DepsOptions opt, bool* after_torch = nullptr);
  // Every torch used so far with how it was chosen (for the report), in the order first used.
  std::vector<ExtensionTorch> used() const;

private:
  ExtensionTorch locate(const std::string& path);
  ExtensionTorch locate_and_record(const std::string& path);
  ExtensionTorch asked(const std::string& python, const std::string& how);
  ExtensionTorch with_torch(const std::string& torch_dir, const std::string& how);

  const io::Seams& s_;
  std::string python_, root_;
  mutable std::mutex mu_;
  std::map<std::string, std::string> interpreter_torch_;    // interpreter -> its torch package ("" none)
  std::map<std::string, ExtensionTorch> by_torch_;          // torch package -> what importing it loads
  std::vector<std::pair<std::string, std::string>> order_;  // (torch package, how), first used first
};

// The nearest enclosing folder named site-packages or dist-packages of an absolute path, "" none.
// Every spelling of a path ends: a bare file name is made absolute first by the caller.
std::string enclosing_site_packages(const std::string& abs_path);

}  // namespace kiln::binary
