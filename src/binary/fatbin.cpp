#include "binary/fatbin.hpp"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>
#include <zstd.h>

namespace kiln::binary {
namespace {

// Entry header fields (offsets from the entry start), as measured on CUDA 13 output:
//  0 u16 kind (1 PTX, 2 ELF)   2 u16 version   4 u32 header size   8 u64 stored payload size
// 16 u32 compressed size      20 u32 options offset               24 u16 minor  26 u16 major
// 28 u32 sm number            32 u32 name offset  36 u32 name len  40 u64 flags
// 48 u64 (zero)               56 u64 uncompressed size
constexpr std::uint64_t kEntryMin = 64;
constexpr std::uint64_t kFlagLz = 0x2000, kFlagZstd = 0x8000;
// nvcc sets these for sm_90a/compute_100a and sm_100f/compute_120f; the sm number stays plain.
constexpr std::uint64_t kFlagArchSpecific = 0x100000, kFlagFamily = 0x200000;
constexpr std::uint64_t kMaxUncompressed = 1ull << 32;  // a cubin above 4 GiB is corruption

// A size field is checked against what the compressed bytes could possibly expand to before any
// memory is set aside for it, so a corrupt header cannot make kiln allocate gigabytes.
bool plausible(std::uint64_t uncompressed, std::uint64_t compressed, std::uint64_t max_ratio) {
  return uncompressed <= kMaxUncompressed && uncompressed <= compressed * max_ratio + (1u << 20);
}

}  // namespace

std::string to_string(Compression c) {
  switch (c) {
    case Compression::none:
      return "none";
    case Compression::lz:
      return "lz";
    case Compression::zstd:
      return "zstd";
  }
  return "?";
}

bool looks_like_fatbin(const Bytes& b) {
  auto m = b.read<std::uint32_t>(0, "magic");
  return m && *m == kFatbinMagic;
}

Parsed<Fatbin> parse_fatbin(const Bytes& b) {
  auto hdr = b.slice(0, 16, "fatbin container header");
  if (!hdr) return tl::unexpected(hdr.error());
  if (hdr->at<std::uint32_t>(0) != kFatbinMagic)
    return tl::unexpected(
        b.error(0, fmt::format("expected fatbin magic 0xba55ed50, found {:#010x}", hdr->at<std::uint32_t>(0))));
  const auto header_size = hdr->at<std::uint16_t>(6);
  const auto body_size = hdr->at<std::uint64_t>(8);
  if (header_size < 16)
    return tl::unexpected(b.error(6, fmt::format("fatbin header size {} is below 16", header_size)));
  if (body_size > b.size())
    return tl::unexpected(
        b.error(8, fmt::format("fatbin claims {} bytes of entries but only {} remain", body_size, b.size())));
  auto body = b.slice(header_size, body_size, "fatbin entries");
  if (!body) return tl::unexpected(body.error());
  Fatbin fb;
  fb.offset = b.base();
  fb.size = header_size + body_size;
  std::uint64_t off = 0;
  while (off < body->size()) {
    auto h = body->slice(off, kEntryMin, "fatbin entry header");
    if (!h) return tl::unexpected(h.error());
    FatbinEntry e;
    e.offset = h->base();
    const auto kind = h->at<std::uint16_t>(0);
    e.header_size = h->at<std::uint32_t>(4);
    e.stored_size = h->at<std::uint64_t>(8);
    e.compressed_size = h->at<std::uint32_t>(16);
    e.version_minor = h->at<std::uint16_t>(24);
    e.version_major = h->at<std::uint16_t>(26);
    const auto sm = h->at<std::uint32_t>(28);
    e.flags = h->at<std::uint64_t>(40);
    e.uncompressed_size = h->at<std::uint64_t>(56);
    if (kind != kEntryPtx && kind != kEntryElf && kind != kEntryLtoIr)
      return tl::unexpected(
          h->error(0, fmt::format("unknown fatbin entry kind {} (1 is PTX, 2 is ELF, 8 is LTO IR)", kind)));
    if (e.header_size < kEntryMin)
      return tl::unexpected(h->error(4, fmt::format("fatbin entry header size {} is below 64", e.header_size)));
    if (sm == 0 || sm > 10000)
      return tl::unexpected(h->error(28, fmt::format("implausible architecture number {}", sm)));
    auto payload = body->slice(off + e.header_size, e.stored_size, "fatbin entry payload");
    if (!payload) return tl::unexpected(payload.error());
    e.kind = kind;
    e.target.kind = kind == kEntryElf ? core::CodeKind::sass : core::CodeKind::ptx;
    e.target.arch.number = static_cast<int>(sm);
    e.target.arch.variant = (e.flags & kFlagArchSpecific) ? core::Variant::a
                            : (e.flags & kFlagFamily)     ? core::Variant::f
                                                          : core::Variant::none;
    if (e.flags & kFlagZstd)
      e.compression = Compression::zstd;
    else if (e.flags & kFlagLz)
      e.compression = Compression::lz;
    if (e.compression != Compression::none) {
      if (e.compressed_size == 0 || e.compressed_size > e.stored_size)
        return tl::unexpected(h->error(
            16, fmt::format("compressed size {} does not fit the {}-byte payload", e.compressed_size, e.stored_size)));
      e.payload = *payload->slice(0, e.compressed_size, "compressed payload");
    } else {
      e.payload = *payload;
      e.uncompressed_size = e.stored_size;
    }
    fb.entries.push_back(std::move(e));
    off += fb.entries.back().header_size + fb.entries.back().stored_size;
  }
  return fb;
}

Parsed<std::vector<Fatbin>> parse_fatbins(const Bytes& region) {
  std::vector<Fatbin> out;
  std::uint64_t off = 0;
  while (off < region.size()) {
    // Padding between containers is zeros up to the next 8-byte boundary (or more, seen in linked
    // output); skip zero words rather than guess a container in the middle of data.
    if (region.fits(off, 8) && region.at<std::uint64_t>(off) == 0) {
      off += 8;
      continue;
    }
    if (!region.fits(off, 8)) {
      bool zeros = true;
      for (std::uint64_t i = off; i < region.size(); ++i) zeros &= region.data()[i] == 0;
      if (zeros) break;
    }
    auto fb = parse_fatbin(region.tail(off));
    if (!fb) return tl::unexpected(fb.error());
    off += fb->size;
    off = (off + 7) & ~std::uint64_t{7};
    out.push_back(std::move(*fb));
  }
  return out;
}

namespace {

// The next container header candidate at or after `from`: memchr for the magic's last byte (0xba,
// rare in code and data) runs at memory speed, and the three bytes before it are checked then.
std::optional<std::uint64_t> next_magic(const Bytes& b, std::uint64_t from) {
  const std::uint8_t* p = b.data();
  const std::uint64_t n = b.size();
  for (std::uint64_t at = from + 3; at < n;) {
    const void* hit = std::memchr(p + at, 0xBA, n - at);
    if (!hit) return std::nullopt;
    const std::uint64_t last = static_cast<const std::uint8_t*>(hit) - p;
    if (b.at<std::uint32_t>(last - 3) == kFatbinMagic) return last - 3;
    at = last + 1;
  }
  return std::nullopt;
}

// The header checks a container found by its magic must pass before its entries are read.
bool plausible_header(const Bytes& b, std::uint64_t off) {
  if (!b.fits(off, 16)) return false;
  const auto size = b.at<std::uint64_t>(off + 8);
  return b.at<std::uint16_t>(off + 4) == 1 && b.at<std::uint16_t>(off + 6) == 16 && size <= b.size() - off - 16;
}

}  // namespace

FatbinScan scan_fatbins(const Bytes& region, const std::vector<std::pair<std::uint64_t, std::uint64_t>>& skip) {
  FatbinScan out;
  auto known = skip;
  std::sort(known.begin(), known.end());
  std::uint64_t off = 0;
  while (auto at = next_magic(region, off)) {
    off = *at + 4;
    const std::uint64_t abs = region.base() + *at;
    // The last known range starting at or before this header: inside it, jump to its end.
    auto r = std::upper_bound(known.begin(), known.end(), std::pair{abs, ~std::uint64_t{0}});
    if (r != known.begin() && abs < std::prev(r)->second) {
      off = std::max(off, std::prev(r)->second - region.base());
      continue;
    }
    if (!plausible_header(region, *at)) continue;
    auto fb = parse_fatbin(region.tail(*at));
    if (!fb) {
      if (!out.rejected++) out.first_rejected = fb.error();
      continue;
    }
    off = *at + fb->size;  // containers do not nest: a magic inside this one's payload is data
    out.fatbins.push_back(std::move(*fb));
  }
  return out;
}

Parsed<std::string> lz_decompress(const Bytes& in, std::uint64_t expected) {
  // Each input byte yields at most 255 + a few output bytes in this format.
  if (!plausible(expected, in.size(), 260))
    return tl::unexpected(
        in.error(0, fmt::format("uncompressed size {} is implausible for {} LZ bytes", expected, in.size())));
  std::string out;
  out.reserve(expected);
  const std::uint8_t* p = in.data();
  const std::uint64_t n = in.size();
  std::uint64_t i = 0;
  auto err = [&](std::uint64_t at, const std::string& m) { return tl::unexpected(in.error(at, "LZ stream: " + m)); };
  while (i < n) {
    const std::uint8_t token = p[i++];
    std::uint64_t lit = token >> 4;
    if (lit == 15) {
      std::uint8_t b;
      do {
        if (i >= n) return err(i, "literal length runs past the end");
        b = p[i++];
        lit += b;
      } while (b == 255);
    }
    if (lit > n - i) return err(i, fmt::format("{} literal bytes run past the end", lit));
    if (out.size() + lit > expected) return err(i, "output exceeds the size the header promised");
    out.append(reinterpret_cast<const char*>(p + i), lit);
    i += lit;
    if (i >= n) break;  // the last sequence carries literals only
    if (n - i < 2) return err(i, "match offset truncated");
    const std::uint64_t back = p[i] | (std::uint64_t(p[i + 1]) << 8);
    i += 2;
    std::uint64_t len = (token & 0xf) + 4;
    if ((token & 0xf) == 15) {
      std::uint8_t b;
      do {
        if (i >= n) return err(i, "match length runs past the end");
        b = p[i++];
        len += b;
      } while (b == 255);
    }
    if (back == 0 || back > out.size())
      return err(i, fmt::format("match offset {} reaches before the start of the output", back));
    if (out.size() + len > expected) return err(i, "output exceeds the size the header promised");
    const std::uint64_t from = out.size() - back;
    for (std::uint64_t k = 0; k < len; ++k) out.push_back(out[from + k]);  // may overlap itself
  }
  if (out.size() != expected)
    return tl::unexpected(
        in.error(0, fmt::format("LZ stream gave {} bytes, header promised {}", out.size(), expected)));
  return out;
}

Parsed<std::string> decompress(const FatbinEntry& e) {
  switch (e.compression) {
    case Compression::none:
      return std::string(e.payload.view());
    case Compression::lz:
      return lz_decompress(e.payload, e.uncompressed_size);
    case Compression::zstd: {
      const auto framed = ZSTD_getFrameContentSize(e.payload.data(), e.payload.size());
      if (framed == ZSTD_CONTENTSIZE_ERROR) return tl::unexpected(e.payload.error(0, "zstd: not a zstd frame"));
      if (framed != ZSTD_CONTENTSIZE_UNKNOWN && framed != e.uncompressed_size)
        return tl::unexpected(e.payload.error(
            0, fmt::format("zstd frame holds {} bytes, header promised {}", framed, e.uncompressed_size)));
      if (!plausible(e.uncompressed_size, e.payload.size(), 4096))
        return tl::unexpected(e.payload.error(0, fmt::format("uncompressed size {} is implausible for {} zstd bytes",
                                                             e.uncompressed_size, e.payload.size())));
      std::string out(e.uncompressed_size, '\0');
      const size_t r = ZSTD_decompress(out.data(), out.size(), e.payload.data(), e.payload.size());
      if (ZSTD_isError(r)) return tl::unexpected(e.payload.error(0, std::string("zstd: ") + ZSTD_getErrorName(r)));
      if (r != e.uncompressed_size)
        return tl::unexpected(
            e.payload.error(0, fmt::format("zstd gave {} bytes, header promised {}", r, e.uncompressed_size)));
      return out;
    }
  }
  return tl::unexpected(e.payload.error(0, "unknown compression"));
}

}  // namespace kiln::binary
