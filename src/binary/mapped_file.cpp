#include "binary/mapped_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>

namespace kiln::binary {
namespace {

// A file truncated while it is mapped (a build rewriting the library kiln is reading) makes a
// read past its new end raise SIGBUS. Reading files with pread instead would copy every byte
// (libtorch_cuda.so is over 1 GB), and siglongjmp out of a parser would skip C++ destructors on
// any of inspect's threads. Instead, a SIGBUS at an address inside one of kiln's mappings maps a
// page of zeros over the faulting page and marks the mapping; the read is retried and sees zeros,
// the parse finishes (bounds checks hold whatever the bytes), and the caller turns the mark into
// an error naming the file. A SIGBUS anywhere else keeps its default action.
struct Guarded {
  std::atomic<std::uintptr_t> begin{0}, end{0};
  std::atomic<bool> faulted{false};
};
std::array<Guarded, 512> g_guarded;  // slots are claimed and released by MappedBlob
long g_page = 4096;

void on_sigbus(int sig, siginfo_t* info, void*) {
  const auto addr = reinterpret_cast<std::uintptr_t>(info->si_addr);
  for (auto& g : g_guarded) {
    const auto b = g.begin.load(std::memory_order_acquire);
    if (b && addr >= b && addr < g.end.load(std::memory_order_acquire)) {
      void* page = reinterpret_cast<void*>(addr & ~static_cast<std::uintptr_t>(g_page - 1));
      // mmap is a plain system call on Linux, safe here in practice (not on POSIX's list).
      if (::mmap(page, static_cast<size_t>(g_page), PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) !=
          MAP_FAILED) {
        g.faulted.store(true, std::memory_order_release);
        return;  // the faulting read runs again and reads zeros
      }
      break;
    }
  }
  ::signal(sig, SIG_DFL);  // not ours: the default action when the instruction faults again
}

void install_sigbus_guard() {
  static std::once_flag once;
  std::call_once(once, [] {
    g_page = ::sysconf(_SC_PAGESIZE) > 0 ? ::sysconf(_SC_PAGESIZE) : 4096;
    struct sigaction sa {};
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGBUS, &sa, nullptr);
  });
}

class MappedBlob final : public Blob {
public:
  MappedBlob(std::string name, void* addr, std::uint64_t size) : addr_(addr), size_(size) {
    name_ = std::move(name);
    if (!addr_ || !size_) return;
    const auto b = reinterpret_cast<std::uintptr_t>(addr_);
    for (auto& g : g_guarded) {
      std::uintptr_t expected = 0;
      if (g.begin.compare_exchange_strong(expected, b, std::memory_order_acq_rel)) {
        g.faulted.store(false, std::memory_order_relaxed);
        g.end.store(b + size_, std::memory_order_release);
        slot_ = &g;
        break;
      }
    }
  }
  ~MappedBlob() override {
    if (addr_ && size_) ::munmap(addr_, size_);
    if (slot_) {
      slot_->end.store(0, std::memory_order_release);
      slot_->begin.store(0, std::memory_order_release);
    }
  }
  Bytes bytes() const override { return Bytes(static_cast<const std::uint8_t*>(addr_), size_, name_); }
  bool changed_while_read() const override { return slot_ && slot_->faulted.load(std::memory_order_acquire); }

private:
  void* addr_;
  std::uint64_t size_;
  Guarded* slot_ = nullptr;
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

const char* file_kind(mode_t m) {
  if (S_ISFIFO(m)) return "a FIFO (named pipe)";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISDIR(m)) return "a folder";
  return "not a regular file";
}

}  // namespace

tl::expected<std::shared_ptr<const Blob>, std::string> map_file(const std::string& path) {
  // Look before opening: opening a FIFO for reading waits for a writer, forever.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return tl::unexpected(path + ": cannot open: " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return tl::unexpected(path + ": " + file_kind(st.st_mode) + ", not a file to read");
  // O_NONBLOCK: should it have become a FIFO since, open still returns at once.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return tl::unexpected(path + ": cannot open: " + std::strerror(errno));
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return tl::unexpected(path + ": " + file_kind(st.st_mode) + ", not a file to read");
  }
  void* addr = nullptr;
  if (st.st_size > 0) {
    install_sigbus_guard();
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

std::string special_file_kind(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode) || S_ISLNK(st.st_mode)) return {};
  return file_kind(st.st_mode);
}

}  // namespace kiln::binary
