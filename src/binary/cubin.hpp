#pragma once
// What a SASS cubin and a PTX module say about their kernels: names, registers, shared memory and
// stack from the cubin's symbols, section headers and .nv.info attributes; PTX from its text.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "binary/bytes.hpp"
#include "core/arch.hpp"

namespace kiln::binary {

struct KernelInfo {
  std::string name;       // mangled, as in the symbol table
  std::string demangled;  // abi::__cxa_demangle, or the name when it is not mangled
  bool entry = true;      // a __global__ kernel (STO_CUDA_ENTRY) rather than a device function
  std::optional<std::uint32_t> registers;
  std::uint64_t shared_bytes = 0;     // .nv.shared.<name>
  std::uint64_t stack_bytes = 0;      // EIATTR_FRAME_SIZE: ptxas's "bytes stack frame"
  std::uint64_t local_bytes = 0;      // .nv.local.<name>
  std::uint64_t constant0_bytes = 0;  // .nv.constant0.<name>: parameters and driver constants
  std::uint64_t code_bytes = 0;       // the symbol's size
};

struct CubinInfo {
  core::Arch arch;  // number from e_flags; `a` from .nv.compat (a standalone cubin cannot show `f`)
  std::vector<KernelInfo> kernels;
};
Parsed<CubinInfo> read_cubin(const Bytes& elf);
class Elf;
// The architecture a cubin was built for. ptxas writes .nv.compat attribute 0x09 = 1 for the
// arch-specific `a` targets (sm_90a, sm_100a); `f` targets are not told apart inside the cubin.
core::Arch cubin_arch(const Elf& elf);

struct PtxInfo {
  std::string version;              // ".version 9.0" -> "9.0"
  std::string target;               // ".target sm_90a" -> "sm_90a"
  std::vector<KernelInfo> entries;  // names only
};
PtxInfo read_ptx(std::string_view text);

std::string demangle(const std::string& name);

}  // namespace kiln::binary
