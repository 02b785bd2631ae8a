#include <gtest/gtest.h>

#include "core/cuda_archs.hpp"
#include "core/gpu_table.hpp"

#include <map>
#include <set>

using namespace kiln::core;

TEST(GpuTable, ToleratesCaseSpacingAndVendorWords) {
  const auto& t = GpuTable::get();
  EXPECT_EQ(t.lookup("h100").value().cc, 90);
  EXPECT_EQ(t.lookup("H100 SXM").value().name, "H100 SXM");
  EXPECT_EQ(t.lookup("RTX 4090").value().cc, 89);
  EXPECT_EQ(t.lookup("GeForce RTX 5090").value().cc, 120);
  EXPECT_EQ(t.lookup("NVIDIA GeForce RTX 3090").value().cc, 86);
  EXPECT_EQ(t.lookup("a100-sxm4-80gb").value().cc, 80);
  EXPECT_EQ(t.lookup("Jetson AGX Orin").value().cc, 87);
  EXPECT_EQ(t.lookup("B300").value().cc, 103);
  EXPECT_EQ(t.lookup("Tesla T4").value().cc, 75);
}

TEST(GpuTable, NvidiaSmiNamesWithMemorySuffixes) {
  const auto& t = GpuTable::get();
  EXPECT_EQ(t.lookup("NVIDIA H100 80GB HBM3").value().name, "H100 SXM");
  EXPECT_EQ(t.lookup("NVIDIA H100 PCIe").value().name, "H100 PCIe");
  EXPECT_EQ(t.lookup("NVIDIA A100-SXM4-40GB").value().cc, 80);
  EXPECT_FALSE(t.lookup("RTX 40900"));
}

TEST(GpuTable, ComputeCapabilityStandsForItself) {
  const auto& t = GpuTable::get();
  EXPECT_EQ(t.lookup("9.0").value().cc, 90);
  EXPECT_EQ(t.lookup("sm_121").value().cc, 121);
  EXPECT_EQ(t.lookup("12.1").value().name, "cc 12.1");
}

TEST(GpuTable, UnknownSuggestsNearest) {
  auto r = GpuTable::get().lookup("H1000");
  ASSERT_FALSE(r);
  ASSERT_FALSE(r.error().suggestions.empty());
  EXPECT_NE(r.error().message.find("'H1000'"), std::string::npos);
  auto r2 = GpuTable::get().lookup("rtx 4900");
  ASSERT_FALSE(r2);
  EXPECT_NE(r2.error().message.find("RTX 4090"), std::string::npos);
}

TEST(GpuTable, CoversVoltaToBlackwellInEverySegment) {
  std::set<std::string> segments;
  std::set<int> ccs;
  for (const auto& g : GpuTable::get().all()) {
    segments.insert(g.segment);
    ccs.insert(g.cc);
    EXPECT_GT(g.cc, 0) << g.name;
  }
  EXPECT_EQ(segments, (std::set<std::string>{"consumer", "datacenter", "jetson", "workstation"}));
  for (int cc : {70, 72, 75, 80, 86, 87, 89, 90, 100, 103, 110, 120, 121}) EXPECT_TRUE(ccs.count(cc)) << cc;
}

TEST(ArchCatalog, SupportRanges) {
  const auto& c = ArchCatalog::get();
  EXPECT_FALSE(c.supported_by(Arch{70}, CudaVersion{13, 0}));  // CUDA 13 dropped Volta
  EXPECT_TRUE(c.supported_by(Arch{70}, CudaVersion{12, 9}));
  EXPECT_EQ(c.support_range(Arch{70}), "CUDA 9.0 to 12.9");
  EXPECT_TRUE(c.supported_by(Arch{100, Variant::f}, CudaVersion{13, 0}));
  EXPECT_FALSE(c.supported_by(Arch{100, Variant::f}, CudaVersion{12, 8}));
  EXPECT_FALSE(c.supported_by(Arch{89, Variant::a}, CudaVersion{13, 0}));
  EXPECT_FALSE(c.supported_by(Arch{101}, CudaVersion{13, 0}));
}

// Issue 21: spellings people type for GPUs they own.
TEST(GpuTable, ShortNamesAndArchitectureSpellings) {
  const auto& t = GpuTable::get();
  EXPECT_EQ(t.lookup("4090").value().name, "RTX 4090");
  EXPECT_EQ(t.lookup("5090").value().cc, 120);
  EXPECT_EQ(t.lookup("A6000").value().name, "RTX A6000");
  EXPECT_EQ(t.lookup("jetson orin").value().cc, 87);
  EXPECT_EQ(t.lookup("sm90").value().cc, 90);
  EXPECT_EQ(t.lookup("90").value().cc, 90);
  EXPECT_EQ(t.lookup("120").value().cc, 120);
  EXPECT_EQ(t.lookup("P100").value().cc, 60);
  EXPECT_EQ(t.lookup("GTX 1080 Ti").value().cc, 61);
}

TEST(GpuTable, NotNvidiaSaysSoWithoutLookAlikes) {
  for (const char* q : {"MI300X", "mi250", "Gaudi 3", "TPU v5e"}) {
    auto r = GpuTable::get().lookup(q);
    ASSERT_FALSE(r) << q;
    EXPECT_NE(r.error().message.find("not an NVIDIA GPU"), std::string::npos) << r.error().message;
    EXPECT_TRUE(r.error().suggestions.empty()) << q;
  }
}

// Every spelling leads to one GPU: a name or alias shared by two rows would make lookup depend on order.
TEST(GpuTable, NamesAreUniqueOnceNormalized) {
  std::map<std::string, std::string> seen;
  for (const auto& g : GpuTable::get().all()) {
    std::vector<std::string> names = g.aliases;
    names.push_back(g.name);
    for (const auto& n : names) {
      auto [it, fresh] = seen.emplace(GpuTable::normalize(n), g.name);
      EXPECT_TRUE(fresh || it->second == g.name) << n << " names " << it->second << " and " << g.name;
    }
  }
}
