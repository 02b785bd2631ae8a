#include "io/file_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

namespace kiln::io {

namespace {

int open_lock_file(const std::string& path, const FileLockOptions& o) {
  const int flags = O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW;
  int fd = ::open(path.c_str(), flags, o.mode);
  if (fd < 0 && errno == ENOENT && o.make_folder) {
    const auto slash = path.find_last_of('/');
    if (slash != std::string::npos && slash > 0) ::mkdir(path.substr(0, slash).c_str(), 0700);
    fd = ::open(path.c_str(), flags, o.mode);
  }
  return fd;
}

}  // namespace

FileLock::FileLock(const std::string& path, FileLockOptions o) {
  fd_ = open_lock_file(path, o);
  if (fd_ < 0) {
    error_ = "cannot open " + path + ": " + std::strerror(errno);
    return;
  }
  const auto deadline = std::chrono::steady_clock::now() + o.wait;
  for (auto pause = std::chrono::milliseconds(1);; pause = std::min(pause * 2, std::chrono::milliseconds(50))) {
    if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) return;
    if (errno != EWOULDBLOCK && errno != EINTR) {
      error_ = "cannot lock " + path + ": " + std::strerror(errno);
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      busy_ = true;
      error_ = o.wait.count() > 0
                   ? "the lock on " + path + " was held for more than " + std::to_string(o.wait.count()) + " ms"
                   : path + " is locked by another process";
      break;
    }
    std::this_thread::sleep_for(pause);
  }
  ::close(fd_);
  fd_ = -1;
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);
}

FileLock::FileLock(FileLock&& o) noexcept : fd_(o.fd_), busy_(o.busy_), error_(std::move(o.error_)) { o.fd_ = -1; }

int FileLock::release() {
  const int fd = fd_;
  fd_ = -1;
  return fd;
}

}  // namespace kiln::io
