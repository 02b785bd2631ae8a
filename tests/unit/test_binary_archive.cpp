#include <gtest/gtest.h>
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
