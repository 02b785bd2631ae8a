#include <gtest/gtest.h>

#include <sys/resource.h>
#include <zlib.h>

#include "binary/archive.hpp"
#include "binary/inspect.hpp"
#include "binary/ld_cache.hpp"
#include "binary_fixtures.hpp"

using namespace kiln;
using namespace kiln::binary;
using namespace kiln::testing;

namespace {

std::string raw_deflate(const std::string& in) {
  z_stream zs{};
  deflateInit2(&zs, 6, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&zs, in.size()), '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

struct ZipIn {
  std::string name, data;
  bool deflate;
};

// A minimal zip (what a wheel is): local headers, data, central directory, end record.
std::string make_zip(const std::vector<ZipIn>& files) {
  std::string out, cd;
  for (const auto& f : files) {
    const std::string stored = f.deflate ? raw_deflate(f.data) : f.data;
    const auto crc = static_cast<std::uint32_t>(
        crc32(0, reinterpret_cast<const Bytef*>(f.data.data()), static_cast<uInt>(f.data.size())));
    const auto offset = static_cast<std::uint32_t>(out.size());
    put32(out, 0x04034b50);
    put16(out, 20);
    put16(out, 0);
    put16(out, f.deflate ? 8 : 0);
    put16(out, 0);
    put16(out, 0);
    put32(out, crc);
    put32(out, static_cast<std::uint32_t>(stored.size()));
    put32(out, static_cast<std::uint32_t>(f.data.size()));
    put16(out, static_cast<std::uint16_t>(f.name.size()));
    put16(out, 0);
    out += f.name + stored;
    put32(cd, 0x02014b50);
    put16(cd, 20);
    put16(cd, 20);
    put16(cd, 0);
    put16(cd, f.deflate ? 8 : 0);
    put16(cd, 0);
    put16(cd, 0);
    put32(cd, crc);
    put32(cd, static_cast<std::uint32_t>(stored.size()));
    put32(cd, static_cast<std::uint32_t>(f.data.size()));
    put16(cd, static_cast<std::uint16_t>(f.name.size()));
    put16(cd, 0);
    put16(cd, 0);
    put16(cd, 0);
    put16(cd, 0);
    put32(cd, 0);
    put32(cd, offset);
    cd += f.name;
  }
  const auto cd_off = static_cast<std::uint32_t>(out.size());
  out += cd;
  put32(out, 0x06054b50);
  put16(out, 0);
  put16(out, 0);
  put16(out, static_cast<std::uint16_t>(files.size()));
  put16(out, static_cast<std::uint16_t>(files.size()));
  put32(out, static_cast<std::uint32_t>(cd.size()));
  put32(out, cd_off);
  put16(out, 0);
  return out;
}

}  // namespace

TEST(Ar, MembersWithLongNamesAndFatbins) {
  auto fb = make_fatbin({FakeEntry{2, 90}});
  auto ar = make_ar({{"a.o", "not elf"}, {"a_very_long_member_name.o", fb}, {"b.o", fb}});
  auto members = parse_ar(Bytes(ar, "libx.a"));
  ASSERT_TRUE(members) << members.error().to_string();
  ASSERT_EQ(members->size(), 3u);
  EXPECT_EQ((*members)[1].name, "a_very_long_member_name.o");
  EXPECT_EQ((*members)[1].data.view(), fb);
  auto r = inspect_bytes(Bytes(ar, "libx.a"), "libx.a");
  ASSERT_FALSE(r.error) << *r.error;
  EXPECT_EQ(r.format, FileFormat::archive);
  ASSERT_EQ(r.entries.size(), 2u);
  EXPECT_EQ(r.entries[0].member, "a_very_long_member_name.o");
  EXPECT_EQ(r.entries[1].member, "b.o");
}

TEST(Ar, CorruptHeadersAreNamedErrors) {
  auto ar = make_ar({{"a.o", std::string(100, 'x')}});
  std::string bad_size = ar;
  bad_size[8 + 48] = 'z';
  auto e1 = parse_ar(Bytes(bad_size, "libx.a"));
  ASSERT_FALSE(e1);
  EXPECT_NE(e1.error().to_string().find("libx.a: offset 0x38"), std::string::npos) << e1.error().to_string();
  std::string cut = ar.substr(0, ar.size() - 10);
  auto e2 = parse_ar(Bytes(cut, "libx.a"));
  ASSERT_FALSE(e2);
  EXPECT_NE(e2.error().message.find("ar member"), std::string::npos);
}

TEST(Zip, StoredAndDeflatedMembersAreReadInPlace) {
  auto fb = make_fatbin({FakeEntry{2, 80}, FakeEntry{1, 80}});
  auto zip = make_zip({{"pkg/__init__.py", "x = 1\n", true},
                       {"pkg/_C.cpython-312-x86_64-linux-gnu.so", fb, true},
                       {"pkg/lib/libk.so.1", fb, false}});
  auto members = parse_zip(Bytes(zip, "pkg.whl"));
  ASSERT_TRUE(members) << members.error().to_string();
  ASSERT_EQ(members->size(), 3u);
  std::shared_ptr<const Blob> keep;
  auto inflated = zip_member_data(Bytes(zip, "pkg.whl"), (*members)[1], keep);
  ASSERT_TRUE(inflated) << inflated.error().to_string();
  EXPECT_EQ(inflated->view(), fb);
  auto r = inspect_bytes(Bytes(zip, "pkg.whl"), "pkg.whl");
  ASSERT_FALSE(r.error) << *r.error;
  EXPECT_EQ(r.format, FileFormat::wheel);
  EXPECT_EQ(r.members_scanned, 2u);  // the .py file is not a candidate
  ASSERT_EQ(r.entries.size(), 4u);
  EXPECT_EQ(r.entries[0].member, "pkg/_C.cpython-312-x86_64-linux-gnu.so");
  EXPECT_EQ(r.entries[3].member, "pkg/lib/libk.so.1");
}

TEST(Zip, CorruptDirectoryAndDeflateDataAreErrors) {
  auto fb = make_fatbin({FakeEntry{2, 80}});
  auto zip = make_zip({{"a.so", fb, true}});
  std::string no_end = zip.substr(0, zip.size() - 22);
  EXPECT_NE(parse_zip(Bytes(no_end, "a.whl")).error().message.find("end-of-central-directory"), std::string::npos);
  std::string bad_data = zip;
  for (std::size_t i = 30 + 4; i < 30 + 4 + 20; ++i) bad_data[i] = '\xff';  // stomp on the deflate stream
  auto members = parse_zip(Bytes(bad_data, "a.whl"));
  ASSERT_TRUE(members);
  std::shared_ptr<const Blob> keep;
  auto m = zip_member_data(Bytes(bad_data, "a.whl"), (*members)[0], keep);
  ASSERT_FALSE(m);
  EXPECT_NE(m.error().to_string().find("a.whl"), std::string::npos);
  auto r = inspect_bytes(Bytes(bad_data, "a.whl"), "a.whl");
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error->find("deflate"), std::string::npos) << *r.error;
}

namespace {

void put32_at(std::string& s, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) s[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
}

// Sets one member's sizes in its local header and (cd) in the central directory.
void set_sizes(std::string& zip, std::uint32_t compressed, std::uint32_t size, bool local, bool cd) {
  if (local) put32_at(zip, 18, compressed), put32_at(zip, 22, size);
  const auto at = zip.find(std::string("PK\x01\x02", 4));
  if (cd) put32_at(zip, at + 20, compressed), put32_at(zip, at + 24, size);
}

long peak_rss_kib() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

}  // namespace

// Issue 34, case 8: a 3 MB member that declares 3 GiB made inspect and verify allocate 3.15 GB
// before inflating a byte. Memory now follows the stream.
TEST(Zip, MemoryFollowsTheStreamNotTheDeclaredSize) {
  std::string payload(3u << 20, '\0');
  std::uint32_t x = 12345;
  for (auto& c : payload) c = static_cast<char>((x = x * 1103515245u + 12345u) >> 24);  // does not compress
  auto zip = make_zip({{"pkg/_C.so", payload, true}});
  const std::uint32_t compressed = static_cast<std::uint32_t>(zip.find(std::string("PK\x01\x02", 4)) - 30 - 9);
  set_sizes(zip, compressed, 3u << 30, true, true);
  auto members = parse_zip(Bytes(zip, "big.whl"));
  ASSERT_TRUE(members) << members.error().to_string();
  const long before = peak_rss_kib();
  std::shared_ptr<const Blob> keep;
  auto m = zip_member_data(Bytes(zip, "big.whl"), (*members)[0], keep);
  ASSERT_FALSE(m);
  EXPECT_NE(m.error().to_string().find("3145728 bytes inflated, 3221225472 declared"), std::string::npos)
      << m.error().to_string();
  EXPECT_LT(peak_rss_kib() - before, 256L << 10) << "KiB more at the peak";
}

// Issue 34, case 11: a stored member whose central directory says 0 or 1 byte hid its .so:
// inspect said nothing, verify "no file holds CUDA code".
TEST(Zip, ADirectoryThatHidesAMembersBytesIsAnError) {
  const std::string so = std::string(
                             "\x7f"
                             "ELF") +
                         std::string(200, '\x01');
  for (std::uint32_t n : {0u, 1u}) {
    auto zip = make_zip({{"pkg/_C.so", so, false}});
    set_sizes(zip, n, n, false, true);  // the directory lies, the local header tells the truth
    auto members = parse_zip(Bytes(zip, "hide.whl"));
    ASSERT_TRUE(members);
    std::shared_ptr<const Blob> keep;
    auto m = zip_member_data(Bytes(zip, "hide.whl"), (*members)[0], keep);
    ASSERT_FALSE(m) << n;
    EXPECT_NE(m.error().to_string().find("the central directory says " + std::to_string(n) + " bytes (" +
                                         std::to_string(n) + " stored), its local header 204 (204 stored)"),
              std::string::npos)
        << m.error().to_string();
    auto r = inspect_bytes(Bytes(zip, "hide.whl"), "hide.whl");
    ASSERT_TRUE(r.error) << n;
    // Both headers say so: the member is that short, and a .so that short does not load.
    auto both = make_zip({{"pkg/_C.so", so, false}});
    set_sizes(both, n, n, true, true);
    auto r2 = inspect_bytes(Bytes(both, "short.whl"), "short.whl");
    ASSERT_TRUE(r2.error) << n;
    EXPECT_NE(r2.error->find("short.whl!pkg/_C.so: " + std::to_string(n) + " bytes and not an ELF file"),
              std::string::npos)
        << *r2.error;
  }
}

TEST(LdCache, ParsesTheNewFormat) {
  auto cache = make_ld_cache(
      {{"libcudart.so.13", "/usr/local/cuda/lib64/libcudart.so.13"}, {"libz.so.1", "/lib/x86_64-linux-gnu/libz.so.1"}});
  auto entries = parse_ld_cache(Bytes(cache, "/etc/ld.so.cache"));
  ASSERT_TRUE(entries) << entries.error().to_string();
  ASSERT_EQ(entries->size(), 2u);
  EXPECT_EQ((*entries)[0].name, "libcudart.so.13");
  EXPECT_EQ((*entries)[1].path, "/lib/x86_64-linux-gnu/libz.so.1");
  EXPECT_EQ((*entries)[0].flags, ld_cache_flags_for(62));
}

TEST(LdCache, RejectsOtherFilesAndTruncation) {
  EXPECT_FALSE(parse_ld_cache(Bytes(std::string_view("hello world, not a cache"), "c")));
  auto cache = make_ld_cache({{"liba.so", "/lib/liba.so"}});
  for (std::size_t n : {20u, 47u, 60u})
    EXPECT_FALSE(parse_ld_cache(Bytes(std::string_view(cache).substr(0, n), "c"))) << n;
  // A string offset past the end is caught, not followed.
  std::string bad = cache;
  bad[48 + 4] = '\x7f';
  EXPECT_FALSE(parse_ld_cache(Bytes(bad, "c")));
}
