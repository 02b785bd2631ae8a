// SONAMEs through binary's ELF reader, which `kiln doctor`'s load check feeds untrusted libraries: it
// must find the name in a well-formed library, with or without section headers, and return an error
// (never crash, never read past the end) for every truncation and corruption.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "doctor_test_util.hpp"
#include "binary/elf.hpp"
#include "binary/mapped_file.hpp"

using namespace kiln;
using namespace kiln::binary;

namespace {

void put(std::string& b, size_t off, std::uint64_t v, int size) {
  for (int i = 0; i < size; ++i) b[off + i] = static_cast<char>((v >> (8 * i)) & 0xff);
}

// A minimal ELF64 little-endian shared object without section headers: one PT_LOAD covering the file,
// one PT_DYNAMIC with DT_SONAME and DT_STRTAB, string table "\0<soname>\0".
std::string tiny_elf(const std::string& soname) {
  const std::uint64_t base = 0x400000, str_off = 176, dyn_off = 208;
  std::string b(dyn_off + 3 * 16, '\0');
  b.replace(0, 4,
            "\x7f"
            "ELF");
  b[4] = 2, b[5] = 1, b[6] = 1;
  put(b, 16, 3, 2);   // ET_DYN
  put(b, 18, 62, 2);  // x86-64
  put(b, 20, 1, 4);
  put(b, 32, 64, 8);  // e_phoff
  put(b, 52, 64, 2);
  put(b, 54, 56, 2);  // e_phentsize
  put(b, 56, 2, 2);   // e_phnum
  // PT_LOAD
  put(b, 64, 1, 4);
  put(b, 64 + 8, 0, 8);
  put(b, 64 + 16, base, 8);
  put(b, 64 + 32, b.size(), 8);
  // PT_DYNAMIC
  put(b, 120, 2, 4);
  put(b, 120 + 8, dyn_off, 8);
  put(b, 120 + 16, base + dyn_off, 8);
  put(b, 120 + 32, 3 * 16, 8);
  b.replace(str_off + 1, soname.size(), soname);  // soname must fit before dyn_off
  put(b, dyn_off, 14, 8);                         // DT_SONAME
  put(b, dyn_off + 8, 1, 8);
  put(b, dyn_off + 16, 5, 8);  // DT_STRTAB
  put(b, dyn_off + 24, base + str_off, 8);
  return b;  // DT_NULL is the zero tail
}

// The SONAME of `bytes`, or the reader's error message; the bytes are copied into an exactly-sized
// buffer so that ASan/valgrind catch a read past the end.
tl::expected<std::string, std::string> soname(std::string_view bytes) {
  std::vector<std::uint8_t> copy(bytes.begin(), bytes.end());
  auto elf = Elf::parse(Bytes(copy.data(), copy.size(), "lib.so"));
  if (!elf) return tl::unexpected(elf.error().message);
  auto dyn = elf->dynamic();
  if (!dyn) return tl::unexpected(dyn.error().message);
  return std::string(dyn->soname.value_or(""));
}

}  // namespace

TEST(ElfSoname, ReadsTheSonameOfALibraryWithoutSectionHeaders) {
  auto r = soname(tiny_elf("libfake.so.3"));
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, "libfake.so.3");
  const std::string b = tiny_elf("libfake.so.3");
  auto elf = Elf::parse(Bytes(b, "lib.so"));
  ASSERT_TRUE(elf);
  EXPECT_EQ(elf->machine(), kEmX86_64);
  EXPECT_EQ(elf->type(), 3);  // ET_DYN
}

TEST(ElfSoname, RejectsWhatIsNotAnElf) {
  EXPECT_EQ(soname("").error(), "not an ELF file (no \\x7fELF magic)");
  EXPECT_EQ(soname("INPUT(-lfoo)\n/* a linker script */").error(), "not an ELF file (no \\x7fELF magic)");
  std::string elf32 = tiny_elf("x");
  elf32[4] = 1;  // ELFCLASS32: no host kiln runs on loads one
  EXPECT_NE(soname(elf32).error().find("not a 64-bit ELF"), std::string::npos);
}

TEST(ElfSoname, EveryTruncationIsAnErrorNotACrash) {
  const std::string full = tiny_elf("libfake.so.3");
  for (size_t n = 0; n < full.size(); ++n) {
    auto r = soname(std::string_view(full.data(), n));
    // The SONAME string sits before the dynamic section, so a cut inside DT_NULL may still read
    // the name; any other cut must say why it failed.
    if (r)
      EXPECT_EQ(*r, "libfake.so.3") << "cut at " << n;
    else
      EXPECT_FALSE(r.error().empty()) << "cut at " << n;
  }
}

TEST(ElfSoname, CorruptedBytesNeverReadOutOfBounds) {
  const std::string full = tiny_elf("libfake.so.3");
  std::mt19937 rng(12345);
  int ok = 0, failed = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string b = full;
    for (int k = 0; k < 1 + static_cast<int>(rng() % 4); ++k) b[rng() % b.size()] = static_cast<char>(rng());
    auto r = soname(b);
    r ? ++ok : ++failed;
    if (r) EXPECT_LE(r->size(), b.size());
  }
  EXPECT_GT(failed, 0);
  EXPECT_GT(ok, 0);
}

TEST(ElfSoname, AHugeOffsetIsRejected) {
  std::string b = tiny_elf("libx.so");
  put(b, 32, ~0ULL - 8, 8);  // e_phoff
  EXPECT_FALSE(soname(b));
  b = tiny_elf("libx.so");
  put(b, 120 + 8, ~0ULL - 4, 8);  // PT_DYNAMIC offset
  EXPECT_FALSE(soname(b));
  b = tiny_elf("libx.so");
  put(b, 208 + 8, ~0ULL, 8);  // DT_SONAME offset
  EXPECT_FALSE(soname(b));
}

// A library the system's compiler links now: its SONAME through .dynamic, then again with its section
// headers cut off (e_shoff = 0, as sstrip leaves a file), through PT_DYNAMIC and the load segments.
TEST(ElfSoname, ReadsARealLibraryBuiltNow) {
  doctest::TempDir dir;
  auto src = dir.write("real.c", "int real_fn(void) { return 7; }\n");
  const std::string lib = dir.path() + "/libreal.so.7.1";
  if (!doctest::build_shared_library(src, lib, {"-Wl,-soname,libreal.so.7"})) GTEST_SKIP() << "no C compiler";
  auto blob = map_file(lib);
  ASSERT_TRUE(blob) << blob.error();
  std::string bytes((*blob)->bytes().view());
  auto r = soname(bytes);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, "libreal.so.7");
  put(bytes, 40, 0, 8);
  r = soname(bytes);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, "libreal.so.7");
}
