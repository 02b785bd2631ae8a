#pragma once
// Where ld.so would find a library: the search order (DT_RPATH of the object and its loaders,
// LD_LIBRARY_PATH, DT_RUNPATH, /etc/ld.so.cache, the default folders), $ORIGIN/$LIB/$PLATFORM, and
// paths inside an unpacked image. Used by resolve_deps; nothing here runs a program.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "binary/resolved_library.hpp"
#include "binary/elf.hpp"
#include "binary/ld_cache.hpp"
#include "binary/mapped_file.hpp"
#include "io/seams.hpp"

namespace kiln::binary {

// Collapses "a/./b", "a/../b" and repeated slashes so $ORIGIN/../x names the same file every time.
std::string normalize_path(const std::string& path);

// One object loaded so far: what its DT_RPATH/DT_RUNPATH say and who loaded it.
struct LoadedObject {
  std::string path;  // inside root
  std::shared_ptr<const Blob> blob;
  std::optional<Elf> elf;
  std::vector<std::string> rpath, runpath;
  bool has_runpath = false;
  int parent = -1;
};

class LibrarySearch {
public:
  LibrarySearch(const DepsOptions& opt, const io::Seams& s) : opt_(opt), s_(s) {}
  // The path on this machine of `p` inside the image (symlinks followed inside the image).
  std::string host(const std::string& p) const;
  std::shared_ptr<const Blob> load(const std::string& image_path) const;
  // A DT_RPATH/DT_RUNPATH/LD_LIBRARY_PATH list with $ORIGIN and friends expanded.
  std::vector<std::string> split_path(const std::string& list, const std::string& origin) const;
  // Resolves `name` needed by objs[from]; on success `blob` holds the library's bytes.
  ResolvedLibrary find(const std::string& name, const std::vector<LoadedObject>& objs, int from, std::uint16_t machine,
                       std::shared_ptr<const Blob>& blob);

private:
  std::vector<std::string> expand(const std::string& entry, const std::string& origin) const;
  bool usable(const std::string& path, std::uint16_t machine, std::shared_ptr<const Blob>& blob) const;
  const std::vector<LdCacheEntry>& cache();

  const DepsOptions& opt_;
  const io::Seams& s_;
  bool cache_loaded_ = false;
  std::vector<LdCacheEntry> cache_;
};

}  // namespace kiln::binary
