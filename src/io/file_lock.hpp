#pragma once
// An flock(2) on a file, held for the life of the object: closing the file releases it, and the
// kernel does so however the process ends. One owner for what the build folder's lock, the
// governor's ledger and the wheel cache's index share: how the file is opened and how a busy lock
// is waited for.
#include <chrono>
#include <string>

namespace kiln::io {

struct FileLockOptions {
  std::chrono::milliseconds wait{0};  // how long a lock held by another process is waited for; 0: one try
  unsigned mode = 0644;               // of a file created here
  bool make_folder = false;           // make a missing last folder of the path, private to this user (0700)
};

class FileLock {
public:
  // Opens `path` (created if missing, never through a link; O_CLOEXEC, so the compilers kiln starts
  // do not inherit the lock and outlive it) and locks it. Polled rather than blocking: a holder
  // that is stopped (Ctrl-Z, a debugger) or hung keeps its waiters no longer than `wait`.
  FileLock(const std::string& path, FileLockOptions o);
  ~FileLock();
  FileLock(FileLock&& o) noexcept;
  FileLock& operator=(FileLock&&) = delete;
  FileLock(const FileLock&) = delete;

  bool held() const { return fd_ >= 0; }
  int fd() const { return fd_; }                       // the locked file, to read and write; -1 when not held
  bool busy() const { return busy_; }                  // not held because another process held it all along
  const std::string& error() const { return error_; }  // why not held, naming the file
  // Hands the open, locked descriptor over to the caller, who closes it (and so releases the lock).
  int release();

private:
  int fd_ = -1;
  bool busy_ = false;
  std::string error_;
};

}  // namespace kiln::io
