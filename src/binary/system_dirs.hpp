#pragma once
// The system's library folders, one table for both readers of them: ld.so's trusted folders, in the
// order kiln's dependency resolution tries them after the cache (binary/ld_search), and the folders
// the doctor searches for an optional library and lists its other copies from (probe/libraries).
#include <string>
#include <vector>

namespace kiln::binary {

// ld.so's default folders after ld.so.cache, in its order. Debian/Ubuntu put libraries in the
// multiarch folders, other distributions in lib64; ld.so tries its configured ones, so kiln tries the
// union in order.
const std::vector<std::string>& ld_so_default_dirs();

// The doctor's system folders, in its search order; a library found in a later one is reported as
// another copy (libraries.multiple-copies). Not ld.so's list, and kept as the doctor has always
// searched so its output stays the same: /lib64 and /lib are not searched (on a merged-/usr system,
// Debian 12 or Ubuntu 22.04 on, they are links to /usr/lib64 and /usr/lib, and their libraries
// would come back as copies of themselves), /usr/local/lib is (Debian's ld.so.conf names it).
const std::vector<std::string>& doctor_library_dirs();

}  // namespace kiln::binary
