#pragma once
// Two file operations beside the Filesystem seam (kept out of fs.hpp, which nearly every file
// includes): reading a file in bounded pieces, and moving one into place in a single step. The real
// filesystem gets system calls; any other Filesystem (the fake) gets the same through read/write.
#include <functional>
#include <string>
#include <string_view>

#include "io/fs.hpp"

namespace kiln::io {

// A regular file's bytes, handed to `sink` in pieces of at most 64 KiB: bounded memory for any
// size. False for anything that is not a regular file once opened (a FIFO would block a read,
// /dev/zero never ends) or cannot be read. A link is followed: the file is what it points to.
bool read_chunks(const Filesystem& fs, const std::string& path, const std::function<void(std::string_view)>& sink);

// Moves `from` to `to` (rename(2): a link at `to` is replaced, never written through).
bool move_file(Filesystem& fs, const std::string& from, const std::string& to);

}  // namespace kiln::io
