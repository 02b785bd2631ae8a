#include "binary/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace kiln::binary {
namespace {

class MappedBlob final : public Blob {
 public:
  MappedBlob(std::string name, void* addr, std::uint64_t size) : addr_(addr), size_(size) { name_ = std::move(name); }
  ~MappedBlob() override {
    if (addr_ && size_) ::munmap(addr_, size_);
  }
  Bytes bytes() const override { return Bytes(static_cast<const std::uint8_t*>(addr_), size_, name_); }

 private:
  void* addr_;
  std::uint64_t size_;
};

class OwnedBlob final : public Blob {
 public:
  OwnedBlob(std::string name, std::string content) : content_(std::move(content)) { name_ = std::move(name); }
  Bytes bytes() const override {
    return Bytes(reinterpret_cast<const std::uint8_t*>(content_.data()), content_.size(), name_);
  }

 private:
  std::string content_;
};

}  // namespace

tl::expected<std::shared_ptr<const Blob>, std::string> map_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return tl::unexpected(path + ": cannot open: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return tl::unexpected(path + ": not a regular file");
  }
  void* addr = nullptr;
  if (st.st_size > 0) {
    addr = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (addr == MAP_FAILED) {
      int e = errno;
      ::close(fd);
      return tl::unexpected(path + ": cannot map: " + std::strerror(e));
    }
  }
  ::close(fd);
  return std::make_shared<MappedBlob>(path, addr, static_cast<std::uint64_t>(st.st_size));
}

std::shared_ptr<const Blob> own_bytes(std::string name, std::string content) {
  return std::make_shared<OwnedBlob>(std::move(name), std::move(content));
}

}  // namespace kiln::binary
