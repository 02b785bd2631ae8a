#pragma once
// Wall-clock time as the records share it (kiln-exec.jsonl, the launcher's running files, the
// ledger's expected ends): milliseconds since the Unix epoch. Not io::Clock, which is steady time
// for waits and cannot be compared across processes or machines.
#include <chrono>

namespace kiln::core {

inline long long epoch_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace kiln::core
