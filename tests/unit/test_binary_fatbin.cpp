#include <gtest/gtest.h>
#include <zstd.h>

#include "binary/fatbin.hpp"
#include "binary/inspect.hpp"
#include "binary_fixtures.hpp"

using namespace kiln;
using namespace kiln::binary;
using kiln::testing::FakeEntry;
using kiln::testing::make_fatbin;

namespace {

Bytes view(const std::string& s, const char* name = "t.fatbin") { return Bytes(s, name); }

// LZ block of the CUDA 11/12 form: token (literals << 4 | match-4), literals, u16 offset, ...
std::string lz_literals_then_match() {
  std::string s;
  s += static_cast<char>((4 << 4) | (6 - 4));  // 4 literals, match of 6
  s += "abcd";
  s += '\x04';
  s += '\x00';                     // offset 4: repeats "abcdab"
  s += static_cast<char>(2 << 4);  // final: 2 literals
  s += "zz";
  return s;
}

}  // namespace

TEST(Fatbin, ReadsKindsArchsAndVariantsFromFlags) {
  FakeEntry sass90a{2, 90, 0x11 | 0x100000};
  FakeEntry sass100f{2, 100, 0x11 | 0x200000};
  FakeEntry ptx120{1, 120, 0x11};
  auto bytes = make_fatbin({sass90a, sass100f, ptx120});
  auto fb = parse_fatbin(view(bytes));
  ASSERT_TRUE(fb) << fb.error().to_string();
  ASSERT_EQ(fb->entries.size(), 3u);
  EXPECT_EQ(fb->entries[0].target.arch.sm(), "sm_90a");
  EXPECT_EQ(fb->entries[0].target.kind, core::CodeKind::sass);
  EXPECT_EQ(fb->entries[1].target.arch.sm(), "sm_100f");
  EXPECT_EQ(fb->entries[2].target.arch.sm(), "sm_120");
  EXPECT_EQ(fb->entries[2].target.kind, core::CodeKind::ptx);
  EXPECT_EQ(fb->entries[1].offset, 16u + 64 + 32);
  EXPECT_EQ(fb->size, bytes.size());
}

TEST(Fatbin, ConcatenatedContainersWithPaddingAndEmptyOnes) {
  std::string region = make_fatbin({});  // an empty container, as nvcc emits for host-only TUs
  region += make_fatbin({FakeEntry{2, 80}});
  region += std::string(8, '\0');
  region += make_fatbin({FakeEntry{2, 86}, FakeEntry{1, 86}});
  auto fbs = parse_fatbins(view(region));
  ASSERT_TRUE(fbs) << fbs.error().to_string();
  ASSERT_EQ(fbs->size(), 3u);
  EXPECT_TRUE((*fbs)[0].entries.empty());
  EXPECT_EQ((*fbs)[2].entries.size(), 2u);
}

TEST(Fatbin, TruncatedPayloadNamesFileAndOffset) {
  auto bytes = make_fatbin({FakeEntry{2, 90}});
  bytes.resize(bytes.size() - 5);
  auto fb = parse_fatbin(view(bytes, "lib.so"));
  ASSERT_FALSE(fb);
  const auto msg = fb.error().to_string();
  EXPECT_NE(msg.find("lib.so"), std::string::npos) << msg;
  EXPECT_NE(msg.find("offset 0x"), std::string::npos) << msg;
  EXPECT_NE(msg.find("fatbin"), std::string::npos) << msg;
}

TEST(Fatbin, EveryTruncationIsAnErrorNeverACrash) {
  auto full = make_fatbin({FakeEntry{2, 90}, FakeEntry{1, 120}});
  for (std::size_t n = 1; n < full.size(); ++n) {
    std::string cut = full.substr(0, n);
    auto fb = parse_fatbin(view(cut));
    EXPECT_FALSE(fb) << "prefix of " << n << " bytes parsed";
  }
}

TEST(Fatbin, RejectsBadMagicKindAndHeaderSize) {
  auto bytes = make_fatbin({FakeEntry{2, 90}});
  std::string bad_magic = bytes;
  bad_magic[0] = 0;
  EXPECT_NE(parse_fatbin(view(bad_magic)).error().message.find("magic"), std::string::npos);
  std::string bad_kind = bytes;
  bad_kind[16] = 7;
  EXPECT_NE(parse_fatbin(view(bad_kind)).error().message.find("kind 7"), std::string::npos);
  std::string bad_header = bytes;
  bad_header[16 + 4] = 8;
  EXPECT_NE(parse_fatbin(view(bad_header)).error().message.find("header size 8"), std::string::npos);
  std::string huge_size = bytes;
  huge_size[8 + 7] = 0x7f;  // container claims exabytes
  EXPECT_FALSE(parse_fatbin(view(huge_size)));
}

TEST(Fatbin, LzDecompressesOverlappingMatches) {
  auto in = lz_literals_then_match();
  auto out = lz_decompress(Bytes(in, "lz"), 12);
  ASSERT_TRUE(out) << out.error().to_string();
  EXPECT_EQ(*out, "abcdabcdabzz");
}

TEST(Fatbin, LzRejectsCorruptStreams) {
  auto in = lz_literals_then_match();
  EXPECT_NE(lz_decompress(Bytes(in, "lz"), 11).error().message.find("promised"), std::string::npos);
  std::string far = in;
  far[5] = 9;  // offset 9 reaches before the 4 bytes written so far
  EXPECT_NE(lz_decompress(Bytes(far, "lz"), 12).error().message.find("before the start"), std::string::npos);
  std::string cut = in.substr(0, 3);  // literals run past the end
  EXPECT_FALSE(lz_decompress(Bytes(cut, "lz"), 12));
}

TEST(Fatbin, LzEntryThroughFlags) {
  auto stream = lz_literals_then_match();
  FakeEntry e{2, 80, 0x11 | 0x2000, stream + std::string(4, '\0'), static_cast<std::uint32_t>(stream.size()), 12};
  auto bytes = make_fatbin({e});
  auto fb = parse_fatbin(view(bytes));
  ASSERT_TRUE(fb) << fb.error().to_string();
  EXPECT_EQ(fb->entries[0].compression, Compression::lz);
  auto raw = decompress(fb->entries[0]);
  ASSERT_TRUE(raw) << raw.error().to_string();
  EXPECT_EQ(*raw, "abcdabcdabzz");
}

TEST(Fatbin, ZstdEntryRoundTripsAndChecksSize) {
  const std::string text = ".version 9.0\n.target sm_120\n.visible .entry _Z1kv()\n{\n ret;\n}\n";
  std::string comp(ZSTD_compressBound(text.size()), '\0');
  comp.resize(ZSTD_compress(comp.data(), comp.size(), text.data(), text.size(), 3));
  const auto csize = static_cast<std::uint32_t>(comp.size());
  FakeEntry e{1, 120, 0x11 | 0x8000, comp + std::string((8 - comp.size() % 8) % 8, '\0'), csize, text.size()};
  auto bytes = make_fatbin({e});
  auto fb = parse_fatbin(view(bytes));
  ASSERT_TRUE(fb) << fb.error().to_string();
  EXPECT_EQ(fb->entries[0].compression, Compression::zstd);
  auto raw = decompress(fb->entries[0]);
  ASSERT_TRUE(raw) << raw.error().to_string();
  EXPECT_EQ(*raw, text);

  // Kernels of a PTX entry come from its text.
  auto report = inspect_bytes(view(bytes), "t.fatbin", InspectOptions{true});
  ASSERT_FALSE(report.error) << *report.error;
  ASSERT_EQ(report.entries.size(), 1u);
  EXPECT_EQ(report.entries[0].ptx_version, "9.0");
  EXPECT_EQ(report.entries[0].ptx_target, "sm_120");
  ASSERT_EQ(report.entries[0].kernels.size(), 1u);
  EXPECT_EQ(report.entries[0].kernels[0].name, "_Z1kv");
  EXPECT_EQ(report.entries[0].kernels[0].demangled, "k()");

  FakeEntry lying = e;
  lying.uncompressed_size = text.size() + 1;
  auto bytes2 = make_fatbin({lying});
  auto fb2 = parse_fatbin(view(bytes2));
  ASSERT_TRUE(fb2);
  EXPECT_FALSE(decompress(fb2->entries[0]));
}

TEST(Fatbin, CompressedSizeLargerThanPayloadIsAnError) {
  FakeEntry e{2, 90, 0x11 | 0x8000, std::string(16, 'x'), 17, 100};
  auto bytes = make_fatbin({e});
  auto fb = parse_fatbin(view(bytes));
  ASSERT_FALSE(fb);
  EXPECT_NE(fb.error().message.find("compressed size 17"), std::string::npos);
}

TEST(Fatbin, StandaloneFatbinFileReport) {
  auto bytes = make_fatbin({FakeEntry{2, 80}, FakeEntry{2, 90, 0x11 | 0x100000}, FakeEntry{1, 90}});
  auto r = inspect_bytes(view(bytes), "k.fatbin");
  EXPECT_EQ(r.format, FileFormat::fatbin);
  ASSERT_EQ(r.entries.size(), 3u);
  core::TargetSet want;
  want.add({core::Arch{80}, core::CodeKind::sass});
  want.add({core::Arch{90, core::Variant::a}, core::CodeKind::sass});
  want.add({core::Arch{90}, core::CodeKind::ptx});
  EXPECT_EQ(r.targets(), want);
  EXPECT_EQ(r.fatbin_bytes, bytes.size());
}

TEST(Fatbin, NonCudaBytesAreNotAnError) {
  auto r = inspect_bytes(Bytes(std::string_view("#!/bin/sh\necho hi\n"), "x.sh"), "x.sh");
  EXPECT_FALSE(r.error);
  EXPECT_FALSE(r.has_cuda());
  EXPECT_EQ(r.format, FileFormat::other);
}
