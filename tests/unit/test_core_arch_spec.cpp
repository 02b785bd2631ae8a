// The three spellings of a target set, and conversions between them.
#include <gtest/gtest.h>

#include "core/arch_spec.hpp"
#include "core/torch_archs.hpp"

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

TEST(TorchSpelling, SpacesAndCommasAreReadWithAWarningNamingTorch) {
  Warnings w;
  EXPECT_EQ(names(must(parse_torch("8.0 8.6, 9.0", {}, &w))), (V{"sm_80", "sm_86", "sm_90"}));
  ASSERT_EQ(w.size(), 1u);  // torch refuses "8.6," (commas are not separators there)
  EXPECT_NE(w[0].find("torch 2.11 refuses"), std::string::npos);
  EXPECT_NE(w[0].find("'8.6,'"), std::string::npos);
  w.clear();
  must(parse_torch(" 8.0 ; 9.0 ", {}, &w));
  ASSERT_EQ(w.size(), 1u);  // torch turns spaces into ';' and then meets an empty entry
  EXPECT_NE(w[0].find("empty entry"), std::string::npos);
  w.clear();
  must(parse_torch("8.0 8.6", {}, &w));  // torch itself reads spaces as separators
  EXPECT_TRUE(w.empty());
}

TEST(TorchSpelling, ArchAndFamilyVariants) {
  Warnings w;
  EXPECT_EQ(names(must(parse_torch("9.0a;10.0f", {}, &w))), (V{"sm_90a", "sm_100f"}));
  ASSERT_EQ(w.size(), 1u);  // torch 2.11 has no 10.0f
  EXPECT_NE(w[0].find("'10.0f'"), std::string::npos);
  w.clear();
  EXPECT_EQ(names(must(parse_torch("9.0a+PTX", {}, &w))), (V{"sm_90a", "compute_90a"}));
  EXPECT_TRUE(w.empty());
}

TEST(TorchSpelling, TorchsOwnReading) {
  const auto& t = torch_arch_table("2.11.0+cu130");
  EXPECT_EQ(t.version, "2.11");
  EXPECT_TRUE(torch_reads("7.5;8.0;9.0a+PTX", t).accepted);
  EXPECT_TRUE(torch_reads("Ampere+Tegra;Blackwell", t).accepted);
  EXPECT_TRUE(torch_reads("8.0 9.0", t).accepted);
  EXPECT_FALSE(torch_reads("8.0,9.0", t).accepted);
  EXPECT_FALSE(torch_reads("hopper", t).accepted);
  EXPECT_FALSE(torch_reads("12.0f", t).accepted);
  EXPECT_FALSE(torch_reads("8.8", t).accepted);
  EXPECT_EQ(torch_reads("8.0;", t).entry, "");
}

TEST(Format, TorchSpellsOnlyItsTable) {
  auto set = must(parse_cmake("80;100f-real;88-real", {}));
  EXPECT_FALSE(format_torch(set));
  auto [ok, rest] = split_for_torch(set);
  EXPECT_EQ(names(ok), (V{"sm_80", "compute_80"}));
  EXPECT_EQ(names(rest), (V{"sm_88", "sm_100f"}));
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
  // nvcc --help: all-major is the major architectures "plus the earliest supported" (sm_75 in 13.0).
  EXPECT_EQ(names(must(parse_cmake("all-major", nvcc13()))),
            (V{"sm_75", "sm_80", "sm_90", "sm_100", "sm_110", "sm_120", "compute_120"}));
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
  EXPECT_EQ(names(must(parse_nvcc("-gencode=arch=compute_90,code=[sm_90,compute_90]", {}))),
            (V{"sm_90", "compute_90"}));
  EXPECT_EQ(names(must(parse_nvcc(
                "--generate-code arch=compute_90a,code=sm_90a --generate-code=arch=compute_80,code=compute_80", {}))),
            (V{"compute_80", "sm_90a"}));
  // An unbracketed list is refused, as nvcc does ("'compute_90' is not in 'keyword=value' format").
  EXPECT_FALSE(parse_nvcc("-gencode arch=compute_90,code=sm_90,compute_90", {}));
  // Double quotes that reach nvcc literally (CMake, Makefiles) group a list: SASS sm_90 plus PTX compute_90.
  EXPECT_EQ(names(must(parse_nvcc("-gencode arch=compute_90,code=\"sm_90,compute_90\"", {}))),
            (V{"sm_90", "compute_90"}));
  EXPECT_EQ(names(must(parse_nvcc("-gencode=arch=compute_90,\"code=sm_90,compute_90\"", {}))),
            (V{"sm_90", "compute_90"}));
  // ... but only what they enclose, brackets inside them are part of a name, and single quotes are not nvcc's.
  EXPECT_FALSE(parse_nvcc("-gencode arch=compute_90,code=\"sm_90\",compute_90", {}));
  EXPECT_FALSE(parse_nvcc("-gencode arch=compute_90,code=\"[sm_90,compute_90]\"", {}));
  EXPECT_FALSE(parse_nvcc("-gencode arch=compute_90,code='sm_90'", {}));
}

TEST(NvccSpelling, VariantArchAddsPlainPtx) {
  // nvcc 13 --dryrun: -arch=sm_90a embeds sm_90a, compute_90a and plain compute_90.
  EXPECT_EQ(names(must(parse_nvcc("-arch=sm_90a", {}))), (V{"compute_90", "sm_90a", "compute_90a"}));
  EXPECT_EQ(names(must(parse_nvcc("-arch=sm_100f", {}))), (V{"compute_100", "sm_100f", "compute_100f"}));
  EXPECT_EQ(names(must(parse_nvcc("-arch=compute_90a", {}))), (V{"compute_90", "compute_90a"}));
}

TEST(NvccSpelling, GencodePairingRules) {
  // From compute_XXa only sm_XXa; from compute_XXf its own major, a plain sm becoming sm_YYf.
  EXPECT_FALSE(parse_nvcc("-gencode arch=compute_90a,code=sm_90", {}));
  EXPECT_FALSE(parse_nvcc("-gencode arch=compute_90a,code=sm_100a", {}));
  EXPECT_FALSE(parse_nvcc("-gencode arch=compute_100f,code=sm_110f", {}));
  EXPECT_EQ(names(must(parse_nvcc("-gencode arch=compute_100f,code=sm_103", {}))), (V{"sm_103f"}));
  EXPECT_EQ(names(must(parse_nvcc("-gencode arch=compute_100f,code=sm_103a", {}))), (V{"sm_103a"}));
  EXPECT_EQ(names(must(parse_nvcc("-gencode arch=compute_80,code=sm_90a", {}))), (V{"sm_90a"}));
  EXPECT_FALSE(parse_nvcc("-gencode arch=compute_90,code=compute_90a", {}));
  EXPECT_FALSE(parse_nvcc("-gencode arch=compute_80", {}));
  EXPECT_FALSE(parse_nvcc("-arch=sm_80 -code=sm_80", {}));
  EXPECT_EQ(names(must(parse_nvcc("-arch=sm_80 -arch=sm_90", {}))), (V{"sm_90", "compute_90"}));
}

TEST(Spellings, ArchitecturesThatNeverExistedAreRefused) {
  for (const char* s : {"-arch=sm_99", "-arch=sm_89a", "-gencode arch=compute_75,code=sm_75a"}) {
    auto r = parse_nvcc(s, {});
    ASSERT_FALSE(r) << s;
    EXPECT_NE(r.error().message.find("data/cuda_archs.toml"), std::string::npos);
  }
  EXPECT_FALSE(parse_cmake("99", {}));
  EXPECT_FALSE(parse_cmake("89a", {}));
  EXPECT_FALSE(parse_torch("9.9"));
  EXPECT_TRUE(parse_nvcc("-arch=sm_70", {}));  // real, only too old for CUDA 13 (archs --check says so)
}

TEST(CMakeSpelling, OffMeansNvccsDefault) {
  SpecContext c = nvcc13();
  c.nvcc_default = 75;
  EXPECT_EQ(names(must(parse_cmake("OFF", c))), (V{"sm_75", "compute_75"}));
  EXPECT_EQ(names(must(parse_cmake("FALSE", c))), (V{"sm_75", "compute_75"}));
  auto r = parse_cmake("OFF", {});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("nvcc"), std::string::npos);
}

TEST(CMakeSpelling, WhatCMakeWouldMangleIsRefused) {
  for (const char* s : {"80,86", "80 86", "all;80", "ALL"}) {
    auto r = parse_cmake(s, nvcc13());
    ASSERT_FALSE(r) << s;
    EXPECT_EQ(r.error().message.front(), '\'') << s;
  }
  EXPECT_NE(parse_cmake("80,86", {}).error().message.find("80;86"), std::string::npos);
  EXPECT_EQ(names(must(parse_cmake("80;;90", {}))), (V{"sm_80", "compute_80", "sm_90", "compute_90"}));
}

TEST(Format, CMakeHasNoFamilySpelling) {
  auto set = must(parse_cmake("100f-real;90", {}));
  EXPECT_EQ(format_cmake(set), "90;100f-real");  // kiln's own lossless form
  auto strict = format_cmake_strict(set);
  ASSERT_FALSE(strict);
  EXPECT_EQ(strict.error().token, "sm_100f");
  EXPECT_FALSE(format_spec(set, Syntax::cmake));
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
  const char* specs[] = {"7.5;8.0;8.6;9.0+PTX", "9.0a;10.0a+PTX", "Blackwell", "12.0;12.1a", "8.7"};
  for (const char* spec : specs) {
    auto set = must(parse_torch(spec));
    EXPECT_EQ(must(parse_torch(format_torch(set).value())), set) << spec;
    EXPECT_EQ(must(parse_cmake(format_cmake(set), {})), set) << spec;
    EXPECT_EQ(must(parse_nvcc(format_nvcc(set), {})), set) << spec;
    EXPECT_EQ(must(parse_spec(format_nvcc(set), Syntax::automatic, {})), set) << spec;
  }
  // PTX-only and family sets go through kiln's CMake form and nvcc.
  auto fam = must(parse_cmake("100f;110f-real", {}));
  EXPECT_EQ(must(parse_cmake(format_cmake(fam), {})), fam);
  EXPECT_EQ(must(parse_nvcc(format_nvcc(fam), {})), fam);
  auto set = must(parse_cmake("75-real;90-virtual;100a", {}));
  EXPECT_EQ(must(parse_cmake(format_cmake(set), {})), set);
  EXPECT_EQ(must(parse_nvcc(format_nvcc(set), {})), set);
}

// Issue 21: `--archs sm_90` was refused with no hint of what to write instead; issue 33: it is
// taken as nvcc's -code takes it (sm_XY: SASS, compute_XY: PTX), alone or listed.
TEST(NvccSpelling, BareNamesAreTakenAsNvccMeansThem) {
  EXPECT_EQ(names(must(parse_spec("sm_90", Syntax::automatic, {}))), (V{"sm_90"}));
  EXPECT_EQ(must(parse_spec("sm_90", Syntax::automatic, {})), must(parse_spec("9.0", Syntax::automatic, {})));
  EXPECT_EQ(names(must(parse_spec("sm_90a", Syntax::automatic, {}))), (V{"sm_90a"}));
  EXPECT_EQ(must(parse_spec("SM_90a", Syntax::automatic, {})), must(parse_spec("90a-real", Syntax::automatic, {})));
  EXPECT_EQ(must(parse_spec("compute_90", Syntax::automatic, {})),
            must(parse_spec("90-virtual", Syntax::automatic, {})));
  EXPECT_EQ(names(must(parse_spec("sm_80;sm_90,compute_90", Syntax::automatic, {}))),
            (V{"sm_80", "sm_90", "compute_90"}));
  auto typo = parse_spec("sm_9x", Syntax::automatic, {});
  ASSERT_FALSE(typo);
  EXPECT_NE(typo.error().message.find("not an nvcc architecture flag"), std::string::npos) << typo.error().message;
  auto gen = parse_spec("arch=compute_90,code=sm_90", Syntax::automatic, {});
  ASSERT_FALSE(gen);
  EXPECT_NE(gen.error().message.find("write -gencode arch=compute_90,code=sm_90"), std::string::npos)
      << gen.error().message;
}
