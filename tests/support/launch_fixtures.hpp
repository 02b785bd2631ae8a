#pragma once
// Launch code for the estimate's tests (launch/reachable_launches, launch/unit_estimate), written
// here after the shapes of the projects named.
#include <string>

namespace kiln::testing {

// After flash-attention 2 0251105's flash_fwd_launch_template.h and flash_bwd_launch_template.h
// (written here): the kernel's template arguments fold the switches' constants together
// (`Is_local && !Is_causal`, "we also set IsEvenMNConst to false to reduce number of templates").
inline std::string flash2_launchers() {
  return "template <typename K, bool D, bool C> void run_fwd(P& p) {\n"
         "  BOOL_SWITCH(mn, EvenMN, [&] { BOOL_SWITCH(k, EvenK, [&] { LOCAL_SWITCH(l, Local, [&] {\n"
         "  BOOL_SWITCH(rs, RetSm, [&] { ALIBI_SWITCH(al, Alibi, [&] { SOFTCAP_SWITCH(sc, Softcap, [&] {\n"
         "    auto kernel = &fwd_kernel<K, D && !Softcap, C, Local && !C, Alibi,\n"
         "                              EvenMN && EvenK && !Local && !Alibi && !RetSm && K::kHeadDim <= 128,\n"
         "                              EvenK && !RetSm && !Alibi, Softcap, RetSm && D && !Softcap>;\n"
         "    kernel<<<grid, K::kNThreads, smem, stream>>>(p);\n"
         "  }); }); }); }); }); });\n"
         "}\n"
         "template <typename K, bool D, bool C> void run_bwd(P& p) {\n"
         "  BOOL_SWITCH(mn, EvenMN, [&] { EVENK_SWITCH(k, EvenK, [&] { LOCAL_SWITCH(l, Local, [&] {\n"
         "  ALIBI_SWITCH(al, Alibi, [&] { SOFTCAP_SWITCH(sc, Softcap, [&] {\n"
         "    auto kernel = &bwd_kernel<K, D && !Softcap, C, Local && !C, Alibi,\n"
         "                              EvenMN && EvenK && !Local && !Alibi, EvenK && !Alibi, Softcap>;\n"
         "    kernel<<<grid, K::kNThreads, smem, stream>>>(p);\n"
         "  }); }); }); }); });\n"
         "}\n";
}

// After apex 6424da3b's csrc/megatron/scaled_upper_triang_masked_softmax.h (written here): a row
// softmax whose integer template argument is the log2 of the row length, launched once per case of
// a switch over it, each case a distinct template; the per-thread work is 2^n over the warp's width
// (c10's C10_WARP_SIZE), unrolled, so case 14 compiles 512 copies of its loop bodies and case 0 one.
// `cases` of each of the two kernels, one dtype.
inline std::string apex_row_softmax(int cases) {
  std::string kernels;
  for (const std::string dir : {"fwd", "bwd"})
    kernels += "template <typename T, int LOG2_N>\n__global__ void row_softmax_" + dir +
               "(T* out, const T* in, int rows, int len) {\n"
               "  constexpr int N = 1 << LOG2_N;\n"
               "  constexpr int LANES = (N < C10_WARP_SIZE) ? N : C10_WARP_SIZE;\n"
               "  constexpr int PER_LANE = N / LANES;\n"
               "  constexpr int VEC = PER_LANE >= 4 ? 4 : 1;\n"
               "  float v[PER_LANE];\n"
               "  const int row = blockIdx.x * blockDim.y + threadIdx.y;\n"
               "#pragma unroll\n"
               "  for (int j = 0; j < PER_LANE; j += VEC) {\n"
               "    const int col = VEC * threadIdx.x + j * LANES;\n"
               "#pragma unroll\n"
               "    for (int e = 0; e < VEC; ++e) v[j + e] = col + e < len ? float(in[row * len + col + e]) : -1e30f;\n"
               "  }\n"
               "  float top = v[0];\n"
               "#pragma unroll\n"
               "  for (int j = 1; j < PER_LANE; ++j) top = v[j] > top ? v[j] : top;\n"
               "  top = lane_max<LANES>(top);\n"
               "  float sum = 0.f;\n"
               "#pragma unroll\n"
               "  for (int j = 0; j < PER_LANE; ++j) { v[j] = __expf(v[j] - top); sum += v[j]; }\n"
               "  sum = lane_sum<LANES>(sum);\n"
               "#pragma unroll\n"
               "  for (int j = 0; j < PER_LANE; j += VEC) {\n"
               "    const int col = VEC * threadIdx.x + j * LANES;\n"
               "#pragma unroll\n"
               "    for (int e = 0; e < VEC; ++e) if (col + e < len) out[row * len + col + e] = T(v[j + e] / sum);\n"
               "  }\n"
               "}\n";
  std::string launch =
      "template <typename T> void row_softmax(T* out, const T* in, int rows, int len, int log2) {\n"
      "  dim3 blocks(rows / 4), threads(32, 4);\n";
  for (const std::string dir : {"fwd", "bwd"}) {
    launch += "  switch (log2) {\n";
    for (int n = 0; n < cases; ++n)
      launch += "    case " + std::to_string(n) + ": row_softmax_" + dir + "<T, " + std::to_string(n) +
                "><<<blocks, threads, 0, stream()>>>(out, in, rows, len); break;\n";
    launch += "    default: break;\n  }\n";
  }
  return kernels + launch + "}\n";
}

}  // namespace kiln::testing
