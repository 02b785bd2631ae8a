// Fat binaries wherever an ELF keeps them: .nv_fatbin, and containers embedded as plain data in
// other loaded sections (cuFFT 12 keeps about 24,000 in .ldata; cuobjdump lists none of them).
#include <gtest/gtest.h>

#include "binary/elf.hpp"
#include "binary/fatbin.hpp"
#include "binary/inspect.hpp"
#include "binary_fixtures.hpp"

using namespace kiln;
using namespace kiln::binary;
using kiln::testing::FakeEntry;
using kiln::testing::FakeSection;
using kiln::testing::make_elf;
using kiln::testing::make_fatbin;

namespace {

// Host data around embedded containers, as in a library's .ldata: arbitrary bytes, 16-byte aligned.
std::string data_with(const std::vector<std::string>& containers) {
  std::string out(40, '\x11');
  for (const auto& c : containers) {
    out.resize((out.size() + 15) & ~std::size_t{15}, '\x22');
    out += c;
    out += std::string(24, '\x33');
  }
  return out;
}

FileReport inspect(const std::string& bytes) { return inspect_bytes(Bytes(bytes, "lib.so"), "lib.so"); }

}  // namespace

// Before issue 21 only .nv_fatbin was read: a cuFFT-like library looked like one sm_75 cubin.
TEST(InspectElf, FindsContainersInLdataBesideNvFatbin) {
  const std::string ldata =
      data_with({make_fatbin({FakeEntry{2, 90}, FakeEntry{1, 75}}), make_fatbin({FakeEntry{2, 100}})});
  const auto elf = make_elf({{".text", std::string(64, '\x90')},
                             {".nv_fatbin", make_fatbin({FakeEntry{2, 75}})},
                             {".ldata", ldata, 0x2 | 0x1 | 0x10000000 /* SHF_X86_64_LARGE */}});
  auto r = inspect(elf);
  ASSERT_FALSE(r.error) << *r.error;
  EXPECT_EQ(r.containers, 3u);
  ASSERT_EQ(r.entries.size(), 4u);
  EXPECT_EQ(r.entries[0].section, ".nv_fatbin");
  EXPECT_EQ(r.entries[1].section, ".ldata");
  EXPECT_EQ(r.entries[1].target.name(), "sm_90");
  EXPECT_EQ(r.entries[2].target.name(), "compute_75");
  EXPECT_EQ(r.entries[3].target.name(), "sm_100");
  EXPECT_TRUE(r.targets().contains(core::Target{core::Arch{90}, core::CodeKind::sass}));
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_NE(r.notes[0].find("2 fat binaries in .ldata"), std::string::npos) << r.notes[0];
}

TEST(InspectElf, LtoIrEntriesAreListedApartAndNeverServeAGpu) {
  // nvcc -gencode arch=compute_75,code=lto_75 writes entry kind 8 (measured with CUDA 13's nvcc).
  const auto elf = make_elf({{".ldata", data_with({make_fatbin({FakeEntry{8, 75}, FakeEntry{2, 80}})})}});
  auto r = inspect(elf);
  ASSERT_FALSE(r.error) << *r.error;
  ASSERT_EQ(r.entries.size(), 1u);
  EXPECT_EQ(r.entries[0].target.name(), "sm_80");
  ASSERT_EQ(r.lto_ir.size(), 1u);
  EXPECT_EQ(r.lto_ir[0].target.arch.number, 75);
}

TEST(InspectElf, ContainersTheWrapperRecordsDescribeAreNotCountedTwice) {
  // .nv_fatbin renamed away: .nvFatBinSegment points at a container inside .rodata, which the
  // magic scan of .rodata meets again.
  const std::string rodata = data_with({make_fatbin({FakeEntry{2, 90}}), make_fatbin({FakeEntry{2, 86}})});
  const std::uint64_t rodata_addr = 0x10000;
  const std::uint64_t first = rodata.find(std::string("\x50\xed\x55\xba", 4));
  std::string wrapper;
  kiln::testing::put32(wrapper, 0x466243b1);
  kiln::testing::put32(wrapper, 1);
  kiln::testing::put64(wrapper, rodata_addr + first);
  kiln::testing::put64(wrapper, 0);
  const auto elf = make_elf({{".rodata", rodata, 2, 1, rodata_addr}, {".nvFatBinSegment", wrapper, 2, 1, 0x20000}});
  auto r = inspect(elf);
  ASSERT_FALSE(r.error) << *r.error;
  EXPECT_EQ(r.containers, 2u);
  ASSERT_EQ(r.entries.size(), 2u);
  EXPECT_EQ(r.entries[0].section, ".nvFatBinSegment");
  EXPECT_EQ(r.entries[1].section, ".rodata");
  EXPECT_EQ(r.entries[1].target.name(), "sm_86");
}

TEST(InspectElf, SectionsNotLoadedAtRunTimeAndCodeAreNotScanned) {
  const std::string data = data_with({make_fatbin({FakeEntry{2, 90}})});
  const auto elf = make_elf({{".comment", data, 0}, {".text", data, 0x2 | 0x4 /* SHF_EXECINSTR */}});
  auto r = inspect(elf);
  ASSERT_FALSE(r.error);
  EXPECT_FALSE(r.has_cuda());
}

TEST(FatbinScan, MagicInDataIsCheckedBeforeItCounts) {
  std::string region = data_with({make_fatbin({FakeEntry{2, 90}})});
  // A stray magic with a wrong version, one with a size past the end, and one whose entry kind is
  // unknown: the first two are not headers at all, the third is a header that does not parse.
  std::string stray_version = make_fatbin({FakeEntry{2, 80}});
  stray_version[4] = 2;
  std::string stray_size = make_fatbin({FakeEntry{2, 80}});
  stray_size[8 + 6] = 1;
  std::string bad_kind = make_fatbin({FakeEntry{2, 80}});
  bad_kind[16] = 7;
  region += stray_version + stray_size + bad_kind + std::string(3, '\xba');  // ends mid-pattern
  auto found = scan_fatbins(Bytes(region, "r"));
  ASSERT_EQ(found.fatbins.size(), 1u);
  EXPECT_EQ(found.fatbins[0].entries[0].target.name(), "sm_90");
  EXPECT_EQ(found.rejected, 1u);
  ASSERT_TRUE(found.first_rejected);
  EXPECT_NE(found.first_rejected->message.find("kind 7"), std::string::npos);
}

TEST(FatbinScan, KnownRangesAreSkippedAndEveryTruncationIsSafe) {
  const std::string one = make_fatbin({FakeEntry{2, 90}});
  const std::string region = std::string(16, '\0') + one + one;
  auto all = scan_fatbins(Bytes(region, "r"));
  ASSERT_EQ(all.fatbins.size(), 2u);
  auto rest = scan_fatbins(Bytes(region, "r"), {{16, 16 + one.size()}});
  ASSERT_EQ(rest.fatbins.size(), 1u);
  EXPECT_EQ(rest.fatbins[0].offset, 16 + one.size());
  for (std::size_t n = 0; n <= region.size(); ++n) {
    const std::string cut = region.substr(0, n);
    auto r = scan_fatbins(Bytes(cut, "cut"));
    EXPECT_LE(r.fatbins.size(), 2u);
  }
}
