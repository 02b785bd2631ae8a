#pragma once
// A read-only file image: an mmap of a real file (no copy, so a 500 MB library costs page-table
// entries, not a read), or an owned buffer (decompressed members, test inputs).
#include <cstdint>
#include <memory>
#include <string>

#include "binary/bytes.hpp"

namespace kiln::binary {

class Blob {
public:
  virtual ~Blob() = default;
  virtual Bytes bytes() const = 0;
  // The file shrank while it was mapped: reads past its new end saw zeros (see mapped_file.cpp).
  // Whatever was parsed from it is then not the file's content, and must be reported as an error.
  virtual bool changed_while_read() const { return false; }
  const std::string& name() const { return name_; }

protected:
  std::string name_;
};

// mmap of `path`; an error line says why it could not be opened.
tl::expected<std::shared_ptr<const Blob>, std::string> map_file(const std::string& path);
// "a FIFO (named pipe)", "a socket", "a character device", "a block device" for such a path
// (without following a symlink or opening it); "" for files, folders and links.
std::string special_file_kind(const std::string& path);
// Takes ownership of `content`; `name` is what errors will call it.
std::shared_ptr<const Blob> own_bytes(std::string name, std::string content);

}  // namespace kiln::binary
