#include <gtest/gtest.h>

#include "test_support.hpp"

#include "binary/elf.hpp"
#include "binary/inspect.hpp"
#include "binary/mapped_file.hpp"
#include "binary_fixtures.hpp"

using namespace kiln::binary;

// This test program is a real, dynamically linked ELF the test can rely on (build/kiln is static:
// it has no dynamic section to read).
TEST(Elf, ParsesARealExecutable) {
  auto blob = map_file("/proc/self/exe");
  ASSERT_TRUE(blob) << blob.error();
  auto elf = Elf::parse((*blob)->bytes());
  ASSERT_TRUE(elf) << elf.error().to_string();
  EXPECT_EQ(elf->machine(), 62);
  EXPECT_NE(elf->section(".text"), nullptr);
  auto dyn = elf->dynamic();
  ASSERT_TRUE(dyn) << dyn.error().to_string();
  EXPECT_NE(std::find(dyn->needed.begin(), dyn->needed.end(), "libc.so.6"), dyn->needed.end());
  auto needs = elf->version_needs();
  ASSERT_TRUE(needs);
  bool glibc = false;
  for (const auto& n : *needs)
    for (auto v : n.versions) glibc |= v.rfind("GLIBC_", 0) == 0;
  EXPECT_TRUE(glibc);
  auto syms = elf->dynamic_symbols();
  ASSERT_TRUE(syms);
  bool versioned_undefined = false;
  for (const auto& s : *syms) versioned_undefined |= !s.defined() && s.version.rfind("GLIBC_", 0) == 0;
  EXPECT_TRUE(versioned_undefined);
  auto r = inspect_file("/proc/self/exe");
  EXPECT_FALSE(r.error);
  EXPECT_FALSE(r.has_cuda());
  // build/kiln needs no dynamic glibc at all (issue 14: one binary for every GPU host).
  auto kiln = map_file(kiln::testing::kiln_binary());
  ASSERT_TRUE(kiln);
  auto kelf = Elf::parse((*kiln)->bytes());
  ASSERT_TRUE(kelf);
  auto kneeds = kelf->version_needs();
  ASSERT_TRUE(kneeds);
  EXPECT_TRUE(kneeds->empty());
}

TEST(Elf, TruncatedFilesGiveErrorsWithFileAndOffset) {
  const std::string full = kiln::testing::slurp(kiln::testing::kiln_binary());
  ASSERT_GT(full.size(), 4096u);
  // The section header table sits at the end: cutting anywhere loses it.
  for (std::size_t n :
       {std::size_t{0}, std::size_t{4}, std::size_t{63}, full.size() / 3, full.size() / 2, full.size() - 1}) {
    std::string cut = full.substr(0, n);
    auto r = inspect_bytes(Bytes(cut, "kiln.cut"), "kiln.cut");
    if (n < 4) {
      EXPECT_FALSE(r.error) << n;  // too short to be an ELF: just "no CUDA code"
      continue;
    }
    ASSERT_TRUE(r.error) << "prefix " << n << " parsed";
    EXPECT_EQ(r.error->rfind("kiln.cut: offset 0x", 0), 0u) << *r.error;
  }
}

TEST(Elf, CorruptHeaderFieldsAreCaught) {
  std::string full = kiln::testing::slurp(kiln::testing::kiln_binary());
  std::string wrong_class = full;
  wrong_class[4] = 1;
  EXPECT_NE(Elf::parse(Bytes(wrong_class, "x")).error().message.find("64-bit"), std::string::npos);
  std::string far_sections = full;
  const std::uint64_t huge = 1ull << 40;
  std::memcpy(far_sections.data() + 40, &huge, 8);
  auto e = Elf::parse(Bytes(far_sections, "x"));
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message.find("section header"), std::string::npos) << e.error().message;
  std::string bad_shstrndx = full;
  const std::uint16_t idx = 0xfff0;
  std::memcpy(bad_shstrndx.data() + 62, &idx, 2);
  EXPECT_FALSE(Elf::parse(Bytes(bad_shstrndx, "x")));
}

TEST(Elf, RandomByteFlipsNeverCrash) {
  const std::string full = kiln::testing::slurp(kiln::testing::kiln_binary());
  std::uint64_t state = 0x9e3779b97f4a7c15ull;
  auto next = [&] { return state = state * 6364136223846793005ull + 1442695040888963407ull; };
  for (int round = 0; round < 40; ++round) {
    std::string mutated = full.substr(0, std::min<std::size_t>(full.size(), 8192)) + full.substr(full.size() - 8192);
    for (int k = 0; k < 16; ++k) mutated[next() % mutated.size()] = static_cast<char>(next());
    auto r = inspect_bytes(Bytes(mutated, "m"), "m", InspectOptions{true});
    // Whatever the damage, an error is one well-formed line that names the input and an offset.
    if (r.error) {
      EXPECT_EQ(r.error->rfind("m: offset 0x", 0), 0u) << *r.error;
      EXPECT_EQ(r.error->find('\n'), std::string::npos);
    }
  }
}
