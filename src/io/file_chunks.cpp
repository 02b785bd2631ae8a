#include "io/file_chunks.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

namespace kiln::io {

bool read_chunks(const Filesystem& fs, const std::string& path, const std::function<void(std::string_view)>& sink) {
  if (!dynamic_cast<const RealFilesystem*>(&fs)) {
    auto r = fs.read(path);
    if (!r) return false;
    for (size_t at = 0; at < r->size(); at += 65536) sink(std::string_view(*r).substr(at, 65536));
    return true;
  }
  // O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then refuses it.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  struct stat st {};
  bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  char buf[65536];
  while (ok) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ok = n == 0;
      break;
    }
    sink(std::string_view(buf, static_cast<size_t>(n)));
  }
  ::close(fd);
  return ok;
}

bool move_file(Filesystem& fs, const std::string& from, const std::string& to) {
  if (dynamic_cast<RealFilesystem*>(&fs)) return ::rename(from.c_str(), to.c_str()) == 0;
  auto r = fs.read(from);
  return r && fs.write(to, *r) && fs.remove(from);
}

}  // namespace kiln::io
