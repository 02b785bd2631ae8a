#pragma once
// Expands the paths given on a command line into files: folders recursively (sorted, symlinks to
// files inside a folder skipped so that libfoo.so -> libfoo.so.1 is read once), files as given.
#include <functional>
#include <string>
#include <vector>

#include "io/fs.hpp"

namespace kiln::binary {

struct WalkResult {
  std::vector<std::string> files;
  std::vector<std::string> missing;  // given paths that do not exist
  // FIFOs, sockets and devices met inside folders: never opened (a FIFO would block the reader
  // forever), each with what it is, for a note.
  std::vector<std::pair<std::string, std::string>> special;
};
WalkResult walk_paths(const std::vector<std::string>& paths, const io::Filesystem& fs);

// Runs fn(i) for i in [0, n) on up to `threads` threads; results go wherever fn puts them.
void parallel_for(std::size_t n, unsigned threads, const std::function<void(std::size_t)>& fn);

}  // namespace kiln::binary
