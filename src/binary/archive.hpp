#pragma once
// Containers of other files that kiln reads in place: `ar` archives (static libraries) and zip
// files (Python wheels). Members come back as Bytes views into the container when stored plainly;
// deflated zip members are inflated into an owned buffer.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "binary/bytes.hpp"
#include "binary/mapped_file.hpp"

namespace kiln::binary {

struct ArMember {
  std::string name;
  Bytes data;
};
bool looks_like_ar(const Bytes& b);
Parsed<std::vector<ArMember>> parse_ar(const Bytes& b);

struct ZipMember {
  std::string name;
  std::uint16_t method = 0;  // 0 stored, 8 deflate
  std::uint64_t compressed_size = 0, uncompressed_size = 0;
  std::uint64_t local_header_offset = 0;
};
bool looks_like_zip(const Bytes& b);
// The central directory, read from the end of the file.
Parsed<std::vector<ZipMember>> parse_zip(const Bytes& b);
// The member's bytes: a view for stored members, an inflated copy (kept alive by `keep`) otherwise.
Parsed<Bytes> zip_member_data(const Bytes& zip, const ZipMember& m, std::shared_ptr<const Blob>& keep);

}  // namespace kiln::binary
