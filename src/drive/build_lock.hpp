#pragma once
// One build per build folder: an flock on BUILD/.kiln/lock, held for the life of the build and
// released by the kernel when kiln exits however it exits. The file says who holds it (pid,
// command, since when) so a second `kiln build` names the other run instead of racing it.
#include <string>

#include <tl/expected.hpp>

namespace kiln::drive {

class BuildLock {
public:
  // Takes the lock without waiting; on failure the message names the holder and what to do.
  static tl::expected<BuildLock, std::string> acquire(const std::string& build_dir, const std::string& command);
  BuildLock(BuildLock&& o) noexcept : fd_(o.fd_), path_(std::move(o.path_)) { o.fd_ = -1; }
  BuildLock& operator=(BuildLock&&) = delete;
  BuildLock(const BuildLock&) = delete;
  ~BuildLock();
  const std::string& path() const { return path_; }

private:
  BuildLock(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  int fd_ = -1;
  std::string path_;
};

// This process's command line, space-separated (for the lock file).
std::string own_command_line();

}  // namespace kiln::drive
