#pragma once
// What TORCH_CUDA_ARCH_LIST a given torch release accepts (data/torch_archs.toml): its named
// architectures, in the order torch replaces them, and its list of supported entries. kiln reads
// more than torch does (commas, f variants, any architecture nvcc builds); this table is how it
// tells which of that torch itself would refuse, and what it may hand torch.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/arch.hpp"

namespace kiln::core {

struct TorchArchTable {
  std::string version;                                     // "2.11"
  std::vector<std::pair<std::string, std::string>> named;  // replaced as text, in this order
  std::vector<std::string> supported;                      // "9.0", "9.0a"; each also with +PTX
  bool accepts_entry(std::string_view entry) const;        // one ';'-separated piece
  bool can_spell(const Arch& a) const;                     // "9.0a" is in `supported`
};

// The table for a torch version ("2.11.0+cu130"; "" or unknown: the newest kiln knows).
const TorchArchTable& torch_arch_table(std::string_view torch_version = "");

struct TorchVerdict {
  bool accepted = true;
  std::string entry;  // the first piece torch refuses ("" is an empty piece)
};
// _get_cuda_arch_flags's own reading of TORCH_CUDA_ARCH_LIST, step by step.
TorchVerdict torch_reads(std::string_view list, const TorchArchTable& table);

}  // namespace kiln::core
