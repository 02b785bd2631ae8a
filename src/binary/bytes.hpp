#pragma once
// Bounds-checked views over bytes that stay where they are (an mmap, a string). Every read names the
// file and the absolute offset when it fails, so a truncated or corrupt input gives one clear line.
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include <tl/expected.hpp>

namespace kiln::binary {

struct ParseError {
  std::string file;               // the path as given, with "!member" for archive and wheel members
  std::uint64_t offset = 0;       // absolute offset in `file` where reading failed
  std::string message;            // what was expected there
  std::string to_string() const;  // "FILE: offset 0x1a0: MESSAGE"
};

template <class T>
using Parsed = tl::expected<T, ParseError>;

// A window into a file: data[0] sits at absolute offset `base` of the file named `name`.
class Bytes {
public:
  Bytes() = default;
  Bytes(const std::uint8_t* data, std::uint64_t size, std::string_view name, std::uint64_t base = 0)
      : data_(data), size_(size), name_(std::make_shared<const std::string>(name)), base_(base) {}
  Bytes(std::string_view text, std::string_view name)
      : Bytes(reinterpret_cast<const std::uint8_t*>(text.data()), text.size(), name) {}
  // A view of other bytes under a new name and base (an archive member, a decompressed entry).
  Bytes renamed(std::string_view name, std::uint64_t base = 0) const { return Bytes(data_, size_, name, base); }

  const std::uint8_t* data() const { return data_; }
  std::uint64_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::string_view name() const { return name_ ? std::string_view(*name_) : std::string_view(); }
  std::uint64_t base() const { return base_; }
  std::string_view view() const { return {reinterpret_cast<const char*>(data_), size_}; }

  ParseError error(std::uint64_t off, std::string message) const {
    return ParseError{std::string(name()), base_ + off, std::move(message)};
  }
  bool fits(std::uint64_t off, std::uint64_t len) const { return off <= size_ && len <= size_ - off; }

  // [off, off+len) or an error naming `what`.
  Parsed<Bytes> slice(std::uint64_t off, std::uint64_t len, std::string_view what) const {
    if (!fits(off, len))
      return tl::unexpected(error(off, std::string(what) + " (" + std::to_string(len) +
                                           " bytes) runs past the end of its " + std::to_string(size_) +
                                           "-byte container"));
    return Bytes(data_ + off, len, name_, base_ + off);
  }
  Bytes tail(std::uint64_t off) const {  // unchecked by design: clamps
    if (off > size_) off = size_;
    return Bytes(data_ + off, size_ - off, name_, base_ + off);
  }

  template <class T>
  Parsed<T> read(std::uint64_t off, std::string_view what) const {
    if (!fits(off, sizeof(T)))
      return tl::unexpected(error(off, "truncated: " + std::string(what) + " needs " + std::to_string(sizeof(T)) +
                                           " bytes, " + std::to_string(off <= size_ ? size_ - off : 0) + " left"));
    T v;
    std::memcpy(&v, data_ + off, sizeof(T));  // little-endian hosts only (x86-64, aarch64)
    return v;
  }
  // Unchecked read for callers that checked `fits` for a whole record already.
  template <class T>
  T at(std::uint64_t off) const {
    T v;
    std::memcpy(&v, data_ + off, sizeof(T));
    return v;
  }
  // A NUL-terminated string starting at `off`, bounded by the view.
  Parsed<std::string_view> cstr(std::uint64_t off, std::string_view what) const {
    if (off >= size_) return tl::unexpected(error(off, std::string(what) + " starts past the end of its table"));
    const void* nul = std::memchr(data_ + off, 0, size_ - off);
    if (!nul) return tl::unexpected(error(off, std::string(what) + " is not NUL-terminated"));
    return std::string_view(reinterpret_cast<const char*>(data_ + off),
                            static_cast<const std::uint8_t*>(nul) - (data_ + off));
  }
  bool starts_with(std::string_view magic) const {
    return size_ >= magic.size() && std::memcmp(data_, magic.data(), magic.size()) == 0;
  }

private:
  using Name = std::shared_ptr<const std::string>;
  Bytes(const std::uint8_t* data, std::uint64_t size, Name name, std::uint64_t base)
      : data_(data), size_(size), name_(std::move(name)), base_(base) {}
  const std::uint8_t* data_ = nullptr;
  std::uint64_t size_ = 0;
  Name name_;  // shared so that slices can outlive the string they were named from
  std::uint64_t base_ = 0;
};

}  // namespace kiln::binary
