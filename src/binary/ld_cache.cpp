#include "binary/ld_cache.hpp"

#include <fmt/format.h>

namespace kiln::binary {

Parsed<std::vector<LdCacheEntry>> parse_ld_cache(const Bytes& b) {
  constexpr std::string_view kOld = "ld.so-1.7.0", kNew = "glibc-ld.so.cache1.1";
  std::uint64_t start = 0;
  if (b.starts_with(kOld)) {
    auto n = b.read<std::uint32_t>(12, "old-format entry count");
    if (!n) return tl::unexpected(n.error());
    start = (16 + std::uint64_t(*n) * 12 + 7) & ~std::uint64_t{7};
  }
  auto cache = b.slice(start, b.size() - std::min<std::uint64_t>(start, b.size()), "new-format cache");
  if (!cache || !cache->starts_with(kNew))
    return tl::unexpected(b.error(start, "not an ld.so.cache in the glibc-ld.so.cache1.1 format"));
  auto hdr = cache->slice(0, 48, "ld.so.cache header");
  if (!hdr) return tl::unexpected(hdr.error());
  const std::uint64_t nlibs = hdr->at<std::uint32_t>(20);
  auto table = cache->slice(48, nlibs * 24, "ld.so.cache entry table");
  if (!table) return tl::unexpected(table.error());
  std::vector<LdCacheEntry> out;
  out.reserve(nlibs);
  for (std::uint64_t i = 0; i < nlibs; ++i) {
    LdCacheEntry e;
    e.flags = table->at<std::int32_t>(i * 24);
    auto key = cache->cstr(table->at<std::uint32_t>(i * 24 + 4), "ld.so.cache library name");
    auto value = cache->cstr(table->at<std::uint32_t>(i * 24 + 8), "ld.so.cache library path");
    if (!key) return tl::unexpected(key.error());
    if (!value) return tl::unexpected(value.error());
    e.name = std::string(*key);
    e.path = std::string(*value);
    out.push_back(std::move(e));
  }
  return out;
}

std::int32_t ld_cache_flags_for(std::uint16_t machine) {
  switch (machine) {
    case 62:
      return 0x0303;  // x86-64
    case 183:
      return 0x0a03;  // aarch64
    default:
      return 0x0003;
  }
}

}  // namespace kiln::binary
