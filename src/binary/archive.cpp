#include "binary/archive.hpp"

#include <zlib.h>

#include <charconv>

#include <fmt/format.h>

namespace kiln::binary {
namespace {

// An ar header field without its padding (spaces, and NULs in some writers).
std::string_view ar_field(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\0')) s.remove_suffix(1);
  return s;
}

constexpr std::uint32_t kEocd = 0x06054b50, kCentral = 0x02014b50, kLocal = 0x04034b50;
constexpr std::uint32_t kEocd64 = 0x06064b50, kEocd64Locator = 0x07064b50;
constexpr std::uint64_t kMaxInflated = 1ull << 34;  // 16 GiB: beyond that a size field is corrupt

}  // namespace

bool looks_like_ar(const Bytes& b) { return b.starts_with("!<arch>\n"); }

Parsed<std::vector<ArMember>> parse_ar(const Bytes& b) {
  if (!looks_like_ar(b)) return tl::unexpected(b.error(0, "not an ar archive (no !<arch> magic)"));
  std::vector<ArMember> out;
  std::string_view long_names;
  std::uint64_t off = 8;
  while (off < b.size()) {
    if (b.size() - off == 1 && b.data()[off] == '\n') break;
    auto h = b.slice(off, 60, "ar member header");
    if (!h) return tl::unexpected(h.error());
    const std::string_view hv = h->view();
    if (hv.substr(58, 2) != "`\n")
      return tl::unexpected(b.error(off + 58, "ar member header lacks its `\\n terminator"));
    const auto size_text = ar_field(hv.substr(48, 10));
    std::uint64_t size = 0;
    auto [p, ec] = std::from_chars(size_text.data(), size_text.data() + size_text.size(), size);
    if (ec != std::errc() || p != size_text.data() + size_text.size())
      return tl::unexpected(b.error(off + 48, fmt::format("ar member size '{}' is not a number", size_text)));
    auto data = b.slice(off + 60, size, "ar member");
    if (!data) return tl::unexpected(data.error());
    std::string_view raw = ar_field(hv.substr(0, 16));
    std::string name;
    Bytes content = *data;
    if (raw == "/" || raw == "/SYM64/" || raw == "__.SYMDEF" || raw == "__.SYMDEF SORTED") {
      name.clear();  // symbol index
    } else if (raw == "//") {
      long_names = data->view();
    } else if (raw.size() > 1 && raw[0] == '/' && raw[1] >= '0' && raw[1] <= '9') {
      std::uint64_t idx = 0;
      std::from_chars(raw.data() + 1, raw.data() + raw.size(), idx);
      if (idx >= long_names.size())
        return tl::unexpected(b.error(off, fmt::format("ar long name index {} outside the name table", idx)));
      auto end = long_names.find('\n', idx);
      auto n = long_names.substr(idx, end == std::string_view::npos ? std::string_view::npos : end - idx);
      if (!n.empty() && n.back() == '/') n.remove_suffix(1);
      name = std::string(n);
    } else if (raw.rfind("#1/", 0) == 0) {  // BSD: name stored at the start of the data
      std::uint64_t len = 0;
      std::from_chars(raw.data() + 3, raw.data() + raw.size(), len);
      if (len > data->size()) return tl::unexpected(b.error(off, "BSD ar name longer than its member"));
      name = ar_field(data->view().substr(0, len));
      content = *data->slice(len, data->size() - len, "ar member");
    } else {
      if (!raw.empty() && raw.back() == '/') raw.remove_suffix(1);
      name = std::string(raw);
    }
    if (!name.empty()) out.push_back(ArMember{name, content});
    off += 60 + size + (size & 1);
  }
  return out;
}

bool looks_like_zip(const Bytes& b) { return b.starts_with("PK\x03\x04") || b.starts_with("PK\x05\x06"); }

Parsed<std::vector<ZipMember>> parse_zip(const Bytes& b) {
  // The end-of-central-directory record sits in the last 22 + 65535 bytes.
  if (b.size() < 22) return tl::unexpected(b.error(0, "too short to be a zip file"));
  std::uint64_t eocd = UINT64_MAX;
  const std::uint64_t lowest = b.size() > 22 + 65535 ? b.size() - 22 - 65535 : 0;
  for (std::uint64_t o = b.size() - 22 + 1; o-- > lowest;)
    if (b.at<std::uint32_t>(o) == kEocd) {
      eocd = o;
      break;
    }
  if (eocd == UINT64_MAX)
    return tl::unexpected(b.error(b.size(), "no zip end-of-central-directory record in the last 64 KiB"));
  std::uint64_t count = b.at<std::uint16_t>(eocd + 10);
  std::uint64_t cd_size = b.at<std::uint32_t>(eocd + 12);
  std::uint64_t cd_off = b.at<std::uint32_t>(eocd + 16);
  if ((count == 0xffff || cd_size == 0xffffffff || cd_off == 0xffffffff) && eocd >= 20 &&
      b.at<std::uint32_t>(eocd - 20) == kEocd64Locator) {
    const auto rec64 = b.at<std::uint64_t>(eocd - 20 + 8);
    auto r = b.slice(rec64, 56, "zip64 end-of-central-directory record");
    if (!r) return tl::unexpected(r.error());
    if (r->at<std::uint32_t>(0) != kEocd64)
      return tl::unexpected(b.error(rec64, "bad zip64 end-of-central-directory signature"));
    count = r->at<std::uint64_t>(32);
    cd_size = r->at<std::uint64_t>(40);
    cd_off = r->at<std::uint64_t>(48);
  }
  auto cd = b.slice(cd_off, cd_size, "zip central directory");
  if (!cd) return tl::unexpected(cd.error());
  if (count > cd_size / 46)
    return tl::unexpected(
        b.error(eocd + 10, fmt::format("{} zip entries cannot fit a {}-byte directory", count, cd_size)));
  std::vector<ZipMember> out;
  out.reserve(count);
  std::uint64_t o = 0;
  for (std::uint64_t i = 0; i < count; ++i) {
    auto h = cd->slice(o, 46, "zip central directory entry");
    if (!h) return tl::unexpected(h.error());
    if (h->at<std::uint32_t>(0) != kCentral) return tl::unexpected(h->error(0, "bad zip central directory signature"));
    ZipMember m;
    m.method = h->at<std::uint16_t>(10);
    m.compressed_size = h->at<std::uint32_t>(20);
    m.uncompressed_size = h->at<std::uint32_t>(24);
    const auto nlen = h->at<std::uint16_t>(28), xlen = h->at<std::uint16_t>(30), clen = h->at<std::uint16_t>(32);
    m.local_header_offset = h->at<std::uint32_t>(42);
    auto name = cd->slice(o + 46, nlen, "zip member name");
    if (!name) return tl::unexpected(name.error());
    m.name = std::string(name->view());
    auto extra = cd->slice(o + 46 + nlen, xlen, "zip extra field");
    if (!extra) return tl::unexpected(extra.error());
    // Zip64: the 8-byte values replace, in order, the fields that read 0xffffffff.
    for (std::uint64_t x = 0; extra->fits(x, 4);) {
      const auto id = extra->at<std::uint16_t>(x), len = extra->at<std::uint16_t>(x + 2);
      if (!extra->fits(x + 4, len)) break;
      if (id == 1) {
        std::uint64_t y = x + 4;
        auto take = [&](std::uint64_t& field) {
          if (field == 0xffffffff && y + 8 <= x + 4 + len) field = extra->at<std::uint64_t>(y), y += 8;
        };
        take(m.uncompressed_size);
        take(m.compressed_size);
        take(m.local_header_offset);
      }
      x += 4 + len;
    }
    out.push_back(std::move(m));
    o += 46 + nlen + xlen + clen;
  }
  return out;
}

Parsed<Bytes> zip_member_data(const Bytes& zip, const ZipMember& m, std::shared_ptr<const Blob>& keep) {
  auto lh = zip.slice(m.local_header_offset, 30, "zip local header of " + m.name);
  if (!lh) return tl::unexpected(lh.error());
  if (lh->at<std::uint32_t>(0) != kLocal)
    return tl::unexpected(lh->error(0, "bad zip local header signature for " + m.name));
  const std::uint64_t start = m.local_header_offset + 30 + lh->at<std::uint16_t>(26) + lh->at<std::uint16_t>(28);
  // The local header must tell the same sizes as the central directory (unless a data descriptor
  // follows the data, bit 3): a directory that says 0 or 1 byte must not hide a member's bytes
  // from kiln while another reader finds them (issue 34, case 11).
  const bool descriptor = lh->at<std::uint16_t>(6) & 0x8;
  const std::uint32_t local_compressed = lh->at<std::uint32_t>(18), local_size = lh->at<std::uint32_t>(22);
  const bool zip64 = local_compressed == 0xffffffffu || local_size == 0xffffffffu;
  if (!descriptor && !zip64 && (local_compressed != m.compressed_size || local_size != m.uncompressed_size))
    return tl::unexpected(lh->error(
        0, fmt::format("zip member {}: the central directory says {} bytes ({} stored), its local header {} ({} "
                       "stored): the archive is corrupt or crafted",
                       m.name, m.uncompressed_size, m.compressed_size, local_size, local_compressed)));
  if (m.method == 0 && m.compressed_size != m.uncompressed_size)
    return tl::unexpected(lh->error(0, fmt::format("zip member {} is stored (not compressed) but its sizes differ: "
                                                   "{} stored, {} uncompressed",
                                                   m.name, m.compressed_size, m.uncompressed_size)));
  auto data = zip.slice(start, m.compressed_size, "zip member " + m.name);
  if (!data) return tl::unexpected(data.error());
  const std::string member_name = std::string(zip.name()) + "!" + m.name;
  if (m.method == 0) return data->renamed(member_name, 0);
  if (m.method != 8)
    return tl::unexpected(data->error(
        0,
        fmt::format("zip member {} uses compression method {} (only stored and deflate are read)", m.name, m.method)));
  // Deflate expands at most 1032:1; a larger claim is a corrupt directory, not a reason to allocate.
  if (m.uncompressed_size > kMaxInflated || m.uncompressed_size > m.compressed_size * 1032 + (1u << 20))
    return tl::unexpected(data->error(0, fmt::format("implausible uncompressed size {} for {} ({} bytes deflated)",
                                                     m.uncompressed_size, m.name, m.compressed_size)));
  // Memory follows what the stream inflates, never what the header declares: a 3 MB member that
  // claims 3 GiB gets pieces as they come, and fails when the data ends or runs past the claim
  // (issue 34, case 8).
  std::string out;
  z_stream zs{};
  if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) return tl::unexpected(data->error(0, "zlib: inflateInit2 failed"));
  zs.next_in = const_cast<Bytef*>(data->data());
  std::uint64_t in_left = data->size();
  int rc = Z_OK;
  constexpr std::uint64_t kPiece = 1u << 20;
  // zlib counts in uInt; feed it in chunks so members above 4 GiB still inflate.
  while (rc == Z_OK && out.size() <= m.uncompressed_size) {
    const uInt in_chunk = static_cast<uInt>(std::min<std::uint64_t>(in_left, 1u << 30));
    const std::uint64_t have = out.size();
    // One byte past the claim, so a stream that inflates to more is caught.
    const uInt out_chunk = static_cast<uInt>(std::min<std::uint64_t>(m.uncompressed_size + 1 - have, kPiece));
    out.resize(have + out_chunk);
    zs.avail_in = in_chunk;
    zs.next_out = reinterpret_cast<Bytef*>(out.data() + have);
    zs.avail_out = out_chunk;
    rc = inflate(&zs, Z_NO_FLUSH);
    in_left -= in_chunk - zs.avail_in;
    out.resize(have + (out_chunk - zs.avail_out));
    if (rc == Z_OK && zs.avail_out == out_chunk && zs.avail_in == in_chunk) rc = Z_BUF_ERROR;  // no progress
  }
  inflateEnd(&zs);
  if (rc != Z_STREAM_END || out.size() != m.uncompressed_size)
    return tl::unexpected(data->error(
        data->size() - in_left, fmt::format("deflate data of {} is corrupt ({} bytes inflated, {} declared)", m.name,
                                            out.size(), m.uncompressed_size)));
  keep = own_bytes(member_name, std::move(out));
  return keep->bytes();
}

}  // namespace kiln::binary
