// The three spellings of a target set, and conversions between them.
#include <gtest/gtest.h>

#include "core/arch_spec.hpp"

using namespace kiln::core;

namespace {

std::vector<std::string> names(const TargetSet& s) {
  std::vector<std::string> out;
  for (const auto& t : s) out.push_back(t.name());
  return out;
}

TargetSet must(tl::expected<TargetSet, SpecError> r) {
  EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().message);
  return r ? *r : TargetSet{};
}

SpecContext nvcc13() {
  SpecContext c;
  c.nvcc_known = true;
  for (int n : {75, 80, 86, 87, 88, 89, 90, 100, 110, 103, 120, 121}) {
    c.nvcc_sass.push_back(Arch{n});
    c.nvcc_ptx.push_back(Arch{n});
  }
  return c;
}

using V = std::vector<std::string>;

}  // namespace

TEST(TorchSpelling, SemicolonListWithPtx) {
  EXPECT_EQ(names(must(parse_torch("7.5;8.0;8.6;9.0+PTX"))), (V{"sm_75", "sm_80", "sm_86", "sm_90", "compute_90"}));
}

TEST(TorchSpelling, SpacesAndCommasAreSeparatorsToo) {
  EXPECT_EQ(names(must(parse_torch("8.0 8.6, 9.0"))), (V{"sm_80", "sm_86", "sm_90"}));
}

TEST(TorchSpelling, ArchAndFamilyVariants) {
  EXPECT_EQ(names(must(parse_torch("9.0a;10.0f"))), (V{"sm_90a", "sm_100f"}));
  EXPECT_EQ(names(must(parse_torch("9.0a+PTX"))), (V{"sm_90a", "compute_90a"}));
}

TEST(TorchSpelling, NamedArchitecturesUsePyTorchsMeaning) {
  // torch/utils/cpp_extension.py named_arches: Ampere = 8.0;8.6+PTX, Hopper = 9.0+PTX,
  // Blackwell = 10.0;10.3;12.0;12.1+PTX, Turing = 7.5+PTX, Ada = 8.9+PTX.
  EXPECT_EQ(names(must(parse_torch("Ampere"))), (V{"sm_80", "sm_86", "compute_86"}));
  EXPECT_EQ(names(must(parse_torch("Hopper"))), (V{"sm_90", "compute_90"}));
  EXPECT_EQ(names(must(parse_torch("Blackwell"))), (V{"sm_100", "sm_103", "sm_120", "sm_121", "compute_121"}));
  EXPECT_EQ(names(must(parse_torch("Turing;Ada"))), (V{"sm_75", "compute_75", "sm_89", "compute_89"}));
  EXPECT_EQ(names(must(parse_torch("Ampere+Tegra"))), (V{"sm_87"}));
}

TEST(TorchSpelling, DuplicatesMergeAndSort) {
  EXPECT_EQ(names(must(parse_torch("9.0;8.0;9.0;8.0"))), (V{"sm_80", "sm_90"}));
}

TEST(TorchSpelling, BadTokenIsQuoted) {
  auto r = parse_torch("8.0;sm80;9.0");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().token, "sm80");
  EXPECT_NE(r.error().message.find("'sm80'"), std::string::npos);
  EXPECT_FALSE(parse_torch("8.x"));
  EXPECT_FALSE(parse_torch("80"));
  EXPECT_FALSE(parse_torch(""));
  EXPECT_FALSE(parse_torch("9.0+ptx+ptx"));
}

TEST(CMakeSpelling, RealVirtualAndPlain) {
  // CMake: a plain number means both real (SASS) and virtual (PTX).
  EXPECT_EQ(names(must(parse_cmake("75;80-real;90-virtual", {}))), (V{"sm_75", "compute_75", "sm_80", "compute_90"}));
  EXPECT_EQ(names(must(parse_cmake("80", {}))), (V{"sm_80", "compute_80"}));
  EXPECT_EQ(names(must(parse_cmake("90a-real", {}))), (V{"sm_90a"}));
}

TEST(CMakeSpelling, AllAndAllMajorResolveAgainstNvcc) {
  // CMake and nvcc: `all` is every real architecture plus PTX of the highest major virtual one;
  // `all-major` keeps only X.0 real architectures.
  EXPECT_EQ(names(must(parse_cmake("all-major", nvcc13()))), (V{"sm_80", "sm_90", "sm_100", "sm_110", "sm_120", "compute_120"}));
  auto all = must(parse_cmake("all", nvcc13()));
  EXPECT_EQ(all.size(), 13u);
  EXPECT_TRUE(all.contains(Target{Arch{88}, CodeKind::sass}));
  EXPECT_TRUE(all.contains(Target{Arch{120}, CodeKind::ptx}));
  EXPECT_FALSE(all.contains(Target{Arch{121}, CodeKind::ptx}));
}

TEST(CMakeSpelling, KeywordsWithoutTheirSourceAreErrors) {
  auto r = parse_cmake("all", {});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("nvcc"), std::string::npos);
  SpecContext no_gpu;
  no_gpu.gpus_known = true;
  auto n = parse_cmake("native", no_gpu);
  ASSERT_FALSE(n);
  EXPECT_NE(n.error().message.find("GPU"), std::string::npos);
}

TEST(CMakeSpelling, NativeUsesLocalGpus) {
  SpecContext c;
  c.gpus_known = true;
  c.local_gpus = {90, 90, 86};
  EXPECT_EQ(names(must(parse_cmake("native", c))), (V{"sm_86", "sm_90"}));
}

TEST(CMakeSpelling, BadToken) {
  auto r = parse_cmake("80;9.0", {});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().token, "9.0");
  EXPECT_FALSE(parse_cmake("80-fake", {}));
  EXPECT_FALSE(parse_cmake("8", {}));
}

TEST(NvccSpelling, Gencode) {
  EXPECT_EQ(names(must(parse_nvcc("-gencode arch=compute_80,code=sm_80", {}))), (V{"sm_80"}));
  EXPECT_EQ(names(must(parse_nvcc("-gencode=arch=compute_90,code=[sm_90,compute_90]", {}))), (V{"sm_90", "compute_90"}));
  EXPECT_EQ(names(must(parse_nvcc("--generate-code arch=compute_90a,code=sm_90a --generate-code=arch=compute_80,code=compute_80", {}))),
            (V{"compute_80", "sm_90a"}));
  EXPECT_EQ(names(must(parse_nvcc("-gencode arch=compute_90,code=\"sm_90,compute_90\"", {}))), (V{"sm_90", "compute_90"}));
}

TEST(NvccSpelling, ArchShorthands) {
  // nvcc docs: -arch=sm_XY is shorthand for -arch=compute_XY -code=sm_XY,compute_XY.
  EXPECT_EQ(names(must(parse_nvcc("-arch=sm_90", {}))), (V{"sm_90", "compute_90"}));
  EXPECT_EQ(names(must(parse_nvcc("-arch=compute_80 -code=sm_80,compute_80", {}))), (V{"sm_80", "compute_80"}));
  EXPECT_EQ(names(must(parse_nvcc("-arch compute_80 -code sm_86", {}))), (V{"sm_86"}));
  // A virtual -arch alone: -code defaults to that virtual architecture.
  EXPECT_EQ(names(must(parse_nvcc("--gpu-architecture=compute_75", {}))), (V{"compute_75"}));
  EXPECT_EQ(names(must(parse_nvcc("-arch=all-major", nvcc13()))).back(), "compute_120");
  SpecContext c;
  c.gpus_known = true;
  c.local_gpus = {90};
  EXPECT_EQ(names(must(parse_nvcc("-arch=native", c))), (V{"sm_90"}));
}

TEST(NvccSpelling, Errors) {
  auto r = parse_nvcc("-gencode arch=compute_90,code=sm_80", {});
  ASSERT_FALSE(r);  // SASS cannot be generated from a newer virtual architecture
  EXPECT_EQ(r.error().token, "sm_80");
  EXPECT_FALSE(parse_nvcc("-gencode arch=sm_80,code=sm_80", {}));
  EXPECT_FALSE(parse_nvcc("-gencode", {}));
  EXPECT_FALSE(parse_nvcc("-code=sm_80", {}));
  EXPECT_FALSE(parse_nvcc("-arch=sm_8x", {}));
  EXPECT_FALSE(parse_nvcc("-gencode arch=compute_80,code=lto_80", {}));
}

TEST(Detect, ShapeDecidesSpelling) {
  EXPECT_EQ(detect_syntax("7.5;8.0"), Syntax::torch);
  EXPECT_EQ(detect_syntax("Ampere"), Syntax::torch);
  EXPECT_EQ(detect_syntax("80;90-real"), Syntax::cmake);
  EXPECT_EQ(detect_syntax("all-major"), Syntax::cmake);
  EXPECT_EQ(detect_syntax("-arch=sm_90"), Syntax::nvcc);
  EXPECT_EQ(detect_syntax("arch=compute_80,code=sm_80"), Syntax::nvcc);
}

TEST(Format, EachSpelling) {
  auto set = must(parse_torch("8.0;9.0a;10.0+PTX"));
  EXPECT_EQ(format_torch(set).value(), "8.0;9.0a;10.0+PTX");
  EXPECT_EQ(format_cmake(set), "80-real;90a-real;100");
  EXPECT_EQ(format_nvcc(set),
            "-gencode=arch=compute_80,code=sm_80 -gencode=arch=compute_90a,code=sm_90a "
            "-gencode=arch=compute_100,code=sm_100 -gencode=arch=compute_100,code=compute_100");
}

TEST(Format, TorchCannotSayPtxOnly) {
  auto set = must(parse_cmake("90-virtual", {}));
  auto r = format_torch(set);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("compute_90"), std::string::npos);
}

// Every set survives a trip through every spelling that can express it.
TEST(RoundTrip, AllSpellingsBothWays) {
  const char* specs[] = {"7.5;8.0;8.6;9.0+PTX", "9.0a;10.0f+PTX", "Blackwell", "12.0;12.1a", "8.7"};
  for (const char* spec : specs) {
    auto set = must(parse_torch(spec));
    EXPECT_EQ(must(parse_torch(format_torch(set).value())), set) << spec;
    EXPECT_EQ(must(parse_cmake(format_cmake(set), {})), set) << spec;
    EXPECT_EQ(must(parse_nvcc(format_nvcc(set), {})), set) << spec;
    EXPECT_EQ(must(parse_spec(format_nvcc(set), Syntax::automatic, {})), set) << spec;
  }
  // PTX-only sets go through CMake and nvcc.
  auto set = must(parse_cmake("75-real;90-virtual;100a", {}));
  EXPECT_EQ(must(parse_cmake(format_cmake(set), {})), set);
  EXPECT_EQ(must(parse_nvcc(format_nvcc(set), {})), set);
}
