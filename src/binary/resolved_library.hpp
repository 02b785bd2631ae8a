#pragma once
// The value types shared by dependency resolution (deps) and the ld.so-style search it drives
// (ld_search): what to search and what one DT_NEEDED resolved to.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kiln::binary {

struct DepsOptions {
  std::string root;        // "" for this machine; else an unpacked image (paths resolve inside it)
  bool undefined = false;  // compute undefined symbols (reads every resolved library's symbols)
  // Folders of libraries the process has loaded before this object, which the loader reuses by
  // name: torch/lib when Python imports a torch extension after `import torch`.
  std::vector<std::string> preloaded;
  // Libraries already loaded, by the name the loader matches (a DT_NEEDED that loaded it, its file
  // name) -> path: what `import torch` loaded (binary/extension_torch). Matched before any search.
  std::vector<std::pair<std::string, std::string>> loaded;
  // Loaded into a Python process (after `import torch`): the interpreter provides its C API.
  bool in_interpreter = false;
};

// Where the loader found a library, in its search order; `driver`: one the GPU driver provides,
// never missing whether or not it is here; `none`: not found.
enum class Via { none, driver, preloaded, path, rpath, ld_library_path, runpath, ld_so_cache, default_dirs };

// The words `kiln inspect --deps` and its JSON print ("" for none).
constexpr std::string_view to_string(Via v) {
  switch (v) {
    case Via::none:
      return "";
    case Via::driver:
      return "driver";
    case Via::preloaded:
      return "preloaded";
    case Via::path:
      return "path";
    case Via::rpath:
      return "rpath";
    case Via::ld_library_path:
      return "ld_library_path";
    case Via::runpath:
      return "runpath";
    case Via::ld_so_cache:
      return "ld.so.cache";
    case Via::default_dirs:
      return "default";
  }
  return "";
}

struct ResolvedLibrary {
  std::string name;                 // as in DT_NEEDED
  std::optional<std::string> path;  // where it resolved (inside root); nullopt: missing
  std::string needed_by;            // the path of the object whose DT_NEEDED named it
  Via via = Via::none;
  std::vector<std::string> searched;  // folders tried, for a missing library's message
};

}  // namespace kiln::binary
