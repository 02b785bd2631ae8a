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
  const std::string& name() const { return name_; }

 protected:
  std::string name_;
};

// mmap of `path`; an error line says why it could not be opened.
tl::expected<std::shared_ptr<const Blob>, std::string> map_file(const std::string& path);
// Takes ownership of `content`; `name` is what errors will call it.
std::shared_ptr<const Blob> own_bytes(std::string name, std::string content);

}  // namespace kiln::binary
