// A unit's cost before it ever compiled (launch/unit_estimate.hpp): the include class, the kernel
// launches weighted by the switch macros around them, and the order they give the patterns seen in
// real projects (each named where it was seen; the fixtures are written here, not copied).
#include <gtest/gtest.h>

#include <cmath>

#include "fakes/fs.hpp"
#include "launch/unit_estimate.hpp"
#include "launch_fixtures.hpp"

using namespace kiln;

TEST(UnitEstimate, CommentsGoButLiteralsStay) {
  EXPECT_EQ(launch::without_comments("a // k<<<1>>>\nb /* x<<< */ c \"//s\" '/'"), "a \nb   c \"//s\" '/'");
  EXPECT_EQ(launch::without_comments("x /* never closed"), "x  ");
  EXPECT_EQ(launch::without_comments("\"esc \\\" // in\" y"), "\"esc \\\" // in\" y");
}

TEST(UnitEstimate, IncludesAsWritten) {
  const std::string t = "#include <torch/extension.h>\n#  include \"a.h\"\n#include <broken\n#include\t<c10/x.h>\n";
  EXPECT_EQ(launch::includes_of(t, '<'), (std::vector<std::string>{"torch/extension.h", "c10/x.h"}));
  EXPECT_EQ(launch::includes_of(t, '"'), (std::vector<std::string>{"a.h"}));
}

TEST(UnitEstimate, LaunchesCountOncePerSwitchCaseAroundThem) {
  // mamba e9594ce selective_scan_bwd_kernel.cuh: one launch in five nested BOOL_SWITCH.
  const std::string nested =
      "BOOL_SWITCH(a, A, [&] { BOOL_SWITCH(b, B, [&] { BOOL_SWITCH(c, C, [&] {\n"
      "  BOOL_SWITCH(d, D, [&] { BOOL_SWITCH(f(e), E, [&] { k<<<g, t, s, st>>>(p); }); }); }); }); });\n";
  EXPECT_DOUBLE_EQ(launch::weighted_launches(nested, 2), 32);
  // After the macros close, a launch counts once again; lower-case calls are not switches.
  EXPECT_DOUBLE_EQ(launch::weighted_launches(nested + "dispatch_switch(x, [&]{ k<<<1,1>>>(); });", 2), 33);
  // pytorch_scatter 648dda3 segment_coo_cuda.cu: launches inside AT_DISPATCH_* and its own macro.
  EXPECT_DOUBLE_EQ(
      launch::weighted_launches("AT_DISPATCH_ALL_TYPES_AND2(h, b, t, \"n\", [&] { AT_DISPATCH_REDUCTION_TYPES(r, [&] {"
                                " k<<<1, 2>>>(); k2<<<1, 2>>>(); }); });",
                                2),
      8);
  // apex megatron softmax: a plain switch statement launches once per case, written out.
  EXPECT_DOUBLE_EQ(
      launch::weighted_launches("switch (n) { case 0: k<0><<<1,1>>>(); break; case 1: k<1><<<1,1>>>(); }", 2), 2);
  EXPECT_DOUBLE_EQ(launch::weighted_launches(") ) ) k<<<1,1>>>();", 2), 1);  // unbalanced: no crash, no switch
  // Thousands of nested switches (a hostile or generated file): capped, finite.
  std::string deep;
  for (int i = 0; i < 3000; ++i) deep += "S_SWITCH(";
  EXPECT_DOUBLE_EQ(launch::weighted_launches(deep + "k<<<1,1>>>();", 2), std::pow(2.0, 20));
}

namespace {

double seconds(const io::FakeFilesystem& fs, const std::string& src, int targets) {
  return launch::estimate_unit(fs, src, targets).seconds;
}

}  // namespace

TEST(UnitEstimate, TheOrderOfApexsUnits) {
  // apex (csrc/, csrc/megatron/): C++ front ends with <torch/extension.h> (47-51 s of CPU on the GPU
  // host), multi-tensor .cu files with ATen only and one launch in a shared header (37-42 s), and
  // megatron .cu files with <torch/extension.h> and a switch of launches (67-103 s).
  io::FakeFilesystem fs;
  fs.add_file("/a/front.cpp", "#include <torch/extension.h>\nvoid f();\n");
  fs.add_file("/a/apply.cuh", "#include <ATen/ATen.h>\ntemplate <int N> void apply() { k<<<1, 1>>>(); }\n");
  fs.add_file("/a/adam.cu", "#include \"apply.cuh\"\n// k<<<not a launch>>>\n" + std::string(30000, ' '));
  std::string softmax = "#include <torch/extension.h>\nswitch (l) {\n";
  for (int i = 0; i < 12; ++i)
    softmax += " case " + std::to_string(i) + ": k<" + std::to_string(i) + "><<<g, b>>>(); break;\n";
  fs.add_file("/a/softmax_cuda.cu", softmax + "}\n");
  const auto cpp = launch::estimate_unit(fs, "/a/front.cpp", 0);
  const auto adam = launch::estimate_unit(fs, "/a/adam.cu", 1);
  const auto soft = launch::estimate_unit(fs, "/a/softmax_cuda.cu", 1);
  EXPECT_EQ(cpp.header_class, "torch API");
  EXPECT_EQ(adam.header_class, "ATen");
  EXPECT_DOUBLE_EQ(adam.launches, 1);
  EXPECT_DOUBLE_EQ(soft.launches, 12);
  EXPECT_GT(soft.seconds, cpp.seconds);
  EXPECT_GT(cpp.seconds, adam.seconds);  // bytes alone put the 30 KB .cu far above the 40-byte .cpp
  // The C++ unit is not a rounding error beside the CUDA ones (it was 1-3% with bytes).
  EXPECT_GT(cpp.seconds, adam.seconds / 2);
}

TEST(UnitEstimate, TheOrderOfMambasAndCausalConv1dsUnits) {
  io::FakeFilesystem fs;
  // mamba e9594ce csrc/selective_scan: tiny .cu files that instantiate one function of a kernel
  // header explicitly; it calls a launch function from several places (nine in the backward header,
  // eighteen in the forward), which launches its kernel inside nested BOOL_SWITCH: five in the
  // backward (a 30 KiB kernel, 117-170 s), four in the forward (14 KiB, 76-81 s), every switch's
  // constant in the kernel's traits; the C++ binding includes <torch/python.h> (41 s).
  auto header = [](int switches, size_t kernel_bytes, int calls) {
    std::string s = "#include <c10/util/Half.h>\ntemplate <typename K> __global__ void kern(P p) {\n" +
                    std::string(kernel_bytes, ' ') + "\n}\ntemplate <int N, typename T> void launch(P& p) {\n";
    std::string traits = "using Ktraits = Traits<N";
    for (int i = 0; i < switches; ++i) {
      s += "BOOL_SWITCH(x" + std::to_string(i) + ", kX" + std::to_string(i) + ", [&] {\n";
      traits += ", kX" + std::to_string(i);
    }
    s += traits + ", T>;\nauto kernel = &kern<Ktraits>;\nkernel<<<g, t>>>(p);\n";
    for (int i = 0; i < switches; ++i) s += "});\n";
    s += "}\ntemplate <typename T> void run_cuda(P& p) {\n";
    for (int i = 0; i < calls; ++i)
      s += "  if (w == " + std::to_string(i) + ") launch<" + std::to_string(i) + ", T>(p);\n";
    return s + "}\n";
  };
  fs.add_file("/m/bwd_kernel.cuh", header(5, 30 * 1024, 9));
  fs.add_file("/m/fwd_kernel.cuh", header(4, 14 * 1024, 18));
  fs.add_file("/m/bwd_fp16.cu", "#include \"bwd_kernel.cuh\"\ntemplate void run_cuda<at::Half>(P& p);\n");
  fs.add_file("/m/fwd_fp16.cu", "#include \"fwd_kernel.cuh\"\ntemplate void run_cuda<at::Half>(P& p);\n");
  fs.add_file("/m/scan.cpp", "#include <torch/python.h>\n");
  const double bwd = seconds(fs, "/m/bwd_fp16.cu", 1), fwd = seconds(fs, "/m/fwd_fp16.cu", 1);
  const double cpp = seconds(fs, "/m/scan.cpp", 0);
  EXPECT_GT(bwd, 1.5 * fwd);
  EXPECT_GT(fwd, cpp);
  EXPECT_EQ(launch::estimate_unit(fs, "/m/bwd_fp16.cu", 1).header_class, "c10");
  // Nine calls of the launch function, 32 switch cases, a kernel of 30/16 the reference size.
  EXPECT_NEAR(launch::estimate_unit(fs, "/m/bwd_fp16.cu", 1).launches, 9 * 32 * 30.0 / 16, 1.0);
  EXPECT_DOUBLE_EQ(launch::estimate_unit(fs, "/m/fwd_fp16.cu", 1).launches, 18 * 16);  // under the reference size: once
  // The same backward header instantiated for a complex type (mamba's selective_scan_bwd_*_complex.cu
  // against *_real.cu: 1.34-1.42 times the CPU on the GPU host) weighs complex_factor times its device
  // part; before, the two were tied and the complex ones ended the build.
  fs.add_file("/m/bwd_fp16_complex.cu", "#include \"bwd_kernel.cuh\"\ntemplate void run_cuda<complex_t>(P& p);\n");
  const auto complex = launch::estimate_unit(fs, "/m/bwd_fp16_complex.cu", 1);
  EXPECT_NEAR(complex.launches, 1.5 * launch::estimate_unit(fs, "/m/bwd_fp16.cu", 1).launches, 1.0);
  EXPECT_GT(complex.seconds, 1.4 * bwd);
  // Each device target compiles the device code again; the host part once.
  EXPECT_GT(seconds(fs, "/m/bwd_fp16.cu", 3), 2.5 * bwd);
  EXPECT_EQ(seconds(fs, "/m/missing.cu", 1), 0);
}

TEST(UnitEstimate, OnlyTheLaunchesTheUnitCallsCount) {
  // flash-attention 2 0251105: one header of launch templates (the forward's, the split-KV's), each
  // unit defining one specialisation that calls one of them. Counting the whole header weighed the
  // backward units at a fifth of the forward ones; they cost 1.5 times as much.
  io::FakeFilesystem fs;
  fs.add_file(
      "/f/launch.h",
      "#include <ATen/ATen.h>\n#define DEFINE_KERNEL(name, ...) template <typename K, __VA_ARGS__> __global__ "
      "void name(P p)\n"
      "DEFINE_KERNEL(fwd_kernel, bool A, bool B) { ns::compute<K, A>(p); }\n"
      "template <typename K, bool A> __device__ void compute(P p) {" +
          std::string(20000, ' ') +
          "}\n"
          "template <typename K, bool Q> void run_fwd(P& p) { BOOL_SWITCH(a, A, [&] { BOOL_SWITCH(b, B, [&] {\n"
          "  auto kernel = &fwd_kernel<K, A, B>; kernel<<<1, 1>>>(p); }); }); }\n"
          "template <typename K> void run_split(P& p) { BOOL_SWITCH(a, A, [&] { BOOL_SWITCH(b, B, [&] {\n"
          "  BOOL_SWITCH(c, C, [&] { BOOL_SWITCH(d, D, [&] { split<K, A, B, C, D><<<1, 1>>>(p); }); }); }); }); }\n"
          "template <typename T> void run_hdim64(P& p) { DROPOUT_SWITCH(q, Q, [&] {\n"
          "  if (big) { run_fwd<Traits<64, 128, T>, Q>(p); } else { run_fwd<Traits<64, 64, T>, Q>(p); } }); }\n");
  fs.add_file("/f/fwd_hdim64.cu",
              "#include \"launch.h\"\nnamespace ns {\ntemplate <>\n"
              "void run_<half, 64>(P& p) { run_hdim64<half>(p); }\n}\n");
  const auto e = launch::estimate_unit(fs, "/f/fwd_hdim64.cu", 1);
  // Two dropout cases, two calls, four switch cases, the kernel about 1.2 times the reference size
  // through compute's 20 KB: about 19; the split-KV launch (16 cases, 4 with a kernel it cannot
  // size) is never called.
  EXPECT_GT(e.launches, 16 * 1.2);
  EXPECT_LT(e.launches, 16 * 1.3);
  // A unit whose calls go through a macro kiln cannot see counts every launch its text holds.
  fs.add_file("/f/macro.cu", "#include \"launch.h\"\nINSTANTIATE_ALL(half)\n");
  EXPECT_DOUBLE_EQ(launch::estimate_unit(fs, "/f/macro.cu", 1).launches, 4 + 16);
}

TEST(UnitEstimate, TheTableIsTheEmbeddedData) {
  const auto& t = launch::CostTable::from_data();
  ASSERT_GE(t.classes.size(), 2u);
  EXPECT_EQ(t.classes.front().name, "torch API");
  EXPECT_TRUE(t.classes.back().includes.empty() && t.classes.back().prefixes.empty());  // matches every unit
  for (size_t i = 1; i < t.classes.size(); ++i) EXPECT_LE(t.classes[i].host_seconds, t.classes[i - 1].host_seconds);
  EXPECT_GT(t.seconds_per_launch, 0);
}

TEST(UnitEstimate, TheBackwardUnitOutweighsTheForwardOne) {
  // flash-attention 2 0251105, head dim 64 on the GPU host (Session 14): backward 4m48s of CPU,
  // forward 3m22s, causal units about 0.7 of either. The forward picks one kernel traits per
  // dropout case by `if constexpr` and folds six switches into 14-18 kernels; the backward compiles
  // both traits (a runtime `if`) of five switches folded into 14, each a bigger kernel. Counting
  // cases weighed the forward 600 and the backward 458, causal or not. Both build on CuTe; only the
  // forward includes an ATen header (the Philox state).
  io::FakeFilesystem fs;
  const std::string kernels =
      "#include <cute/tensor.hpp>\n#include <c10/cuda/CUDAException.h>\n"
      "template <typename K, bool D, bool C, bool L, bool A, bool MN, bool EK, bool S, bool R>\n"
      "__global__ void fwd_kernel(P p) { compute_attn<K, D, C>(p); }\n"
      "template <typename K, bool D, bool C> __device__ void compute_attn(P p) {" +
      std::string(37 * 1024, ' ') +
      "}\n"
      "template <typename K, bool D, bool C, bool L, bool A, bool MN, bool EK, bool S>\n"
      "__global__ void bwd_kernel(P p) { compute_dq_dk_dv<K, D, C>(p); }\n"
      "template <typename K, bool D, bool C> __device__ void compute_dq_dk_dv(P p) {" +
      std::string(54 * 1024, ' ') + "}\n";
  fs.add_file("/f/kernels.h", kernels);
  // The launchers of ReachableLaunches' fixture, with the traits each head dim picks.
  fs.add_file("/f/launchers.h", "#include \"kernels.h\"\n" + kiln::testing::flash2_launchers());
  fs.add_file("/f/fwd_launch.h",
              "#include \"launchers.h\"\n#include <ATen/cuda/PhiloxCudaState.h>\n"
              "template <typename T, bool C> void fwd64(P& p) { DROPOUT_SWITCH(pd, D, [&] {\n"
              "  if constexpr (!D) { run_fwd<Tr<128, T>, D, C>(p); } else { run_fwd<Tr<64, T>, D, C>(p); }\n"
              "}); }\n");
  fs.add_file("/f/bwd_launch.h",
              "#include \"launchers.h\"\n"
              "template <typename T, bool C> void bwd64(P& p) { DROPOUT_SWITCH(pd, D, [&] {\n"
              "  if (smem >= 144 * 1024) { run_bwd<Tr<128, T>, D, C>(p); } else { run_bwd<Tr<64, T>, D, C>(p); }\n"
              "}); }\n");
  auto unit = [&](const std::string& dir, bool causal) {
    const std::string c = causal ? "true" : "false", path = "/f/" + dir + (causal ? "_causal.cu" : ".cu");
    fs.add_file(path, "#include \"" + dir + "_launch.h\"\ntemplate <>\nvoid run_" + dir + "_<half, 64, " + c +
                          ">(P& p) { " + dir + "64<half, " + c + ">(p); }\n");
    return seconds(fs, path, 1);
  };
  const double fwd = unit("fwd", false), fwd_causal = unit("fwd", true);
  const double bwd = unit("bwd", false), bwd_causal = unit("bwd", true);
  EXPECT_GT(bwd, 1.2 * fwd);
  EXPECT_LT(bwd, 2.5 * fwd);
  EXPECT_LT(fwd_causal, 0.8 * fwd);
  EXPECT_LT(bwd_causal, 0.8 * bwd);
  // The CuTe kernels' launches weigh launch_factor times a plain kernel's.
  EXPECT_DOUBLE_EQ(launch::estimate_unit(fs, "/f/bwd.cu", 1).launch_factor, 5);
}

TEST(UnitEstimate, ASoftmaxUnrolledByItsRowLengthWeighsByIt) {
  // apex 6424da3b csrc/megatron on the GPU host (Session 17, nvcc 13, one target): a unit of the
  // torch API with no launch took 70-75 s of CPU, the one with cases 0-12 of two row-softmax
  // kernels 92.5 s, the one with cases 0-14 of two such kernels 117.6 s. The two top cases unroll
  // 256 and 512 copies per thread, more than cases 0-12 together: 2.2 times the device time for 15%
  // more instantiations. Counting instantiations weighed the two units alike.
  io::FakeFilesystem fs;
  fs.add_file("/a/softmax15.h", kiln::testing::apex_row_softmax(15));
  fs.add_file("/a/softmax13.h", kiln::testing::apex_row_softmax(13));
  auto unit = [&](const std::string& header) {
    return "#include <torch/extension.h>\n#include \"" + header +
           "\"\nvoid run(P& p) {\n"
           "  DISPATCH_HALF_AND_BFLOAT(p.t, \"softmax\", row_softmax<scalar_t>(p.o, p.i, p.rows, p.len, p.log2););\n"
           "}\n";
  };
  fs.add_file("/a/upper_cuda.cu", unit("softmax15.h"));
  fs.add_file("/a/masked_cuda.cu", unit("softmax13.h"));
  fs.add_file("/a/gemm_cuda.cu", "#include <torch/extension.h>\nvoid run(P& p) { cublasGemmEx(p.h, p.a); }\n");
  const double upper = seconds(fs, "/a/upper_cuda.cu", 1), masked = seconds(fs, "/a/masked_cuda.cu", 1);
  const double none = seconds(fs, "/a/gemm_cuda.cu", 1);
  // Measured 2.2 times; counted by instantiation 60 against 52 (1.15). This fixture's loop bodies
  // are a third of apex's, so its copies add less.
  EXPECT_GT(upper - none, 1.4 * (masked - none));
  EXPECT_LT(upper - none, 3.0 * (masked - none));
  // Cases 0-8 fit in one reference kernel each; the unrolled cases past them are what adds.
  EXPECT_GT(launch::estimate_unit(fs, "/a/masked_cuda.cu", 1).launches, 52);
}
