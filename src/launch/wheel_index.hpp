#pragma once
// The wheel cache's index: which entries it keeps, most recently used last. Only names of the
// cache's own form (32 hex digits) are ever read from it, so a forged line (`../../x/data`) can
// never make eviction delete a file outside the cache folder. It is rewritten under a lock
// (ROOT/index.lock), so two builds storing at once both count, and entries on disk that it does not
// list (a lost or truncated index) are taken back in, oldest first, so that eviction still sees them.
#include <cstddef>
#include <string>
#include <vector>

#include "io/fs.hpp"

namespace kiln::launch {

// 32 lowercase hex digits: a wheel key, and nothing that names another folder.
bool is_wheel_key(const std::string& s);

// The keys listed in the index text, in order, invalid lines dropped.
std::vector<std::string> parse_wheel_index(const std::string& text);

// Marks `hex` most recently used and removes the oldest entries beyond `keep`. The lock is an
// flock on a real file, taken with a bounded wait; without it (a fake or unwritable folder) the
// index is still updated, as before locks.
void mark_wheel_used(io::Filesystem& fs, const std::string& root, const std::string& hex, std::size_t keep);

// Removes one entry (manifest first, so it stops being complete) and its index line.
void drop_wheel(io::Filesystem& fs, const std::string& root, const std::string& hex);

}  // namespace kiln::launch
