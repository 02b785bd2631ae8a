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

}  // namespace kiln::testing
