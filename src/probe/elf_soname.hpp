#pragma once
// The DT_SONAME of an ELF shared library, read from the file's bytes. The file is untrusted input
// (it may be truncated, not an ELF, or hostile), so every read is bounds-checked and a bad file
// gives an error string, never a crash.
#include <string>
#include <string_view>

#include <tl/expected.hpp>

namespace kiln::probe {

struct ElfSoname {
  std::string soname;  // empty when the library declares none
  bool is_64 = true;
  int machine = 0;  // e_machine (62 = x86-64, 183 = aarch64)
};

tl::expected<ElfSoname, std::string> read_elf_soname(std::string_view bytes);

}  // namespace kiln::probe
