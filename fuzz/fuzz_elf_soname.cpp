// libFuzzer target for the SONAME reader (probe/elf_soname.hpp), which parses untrusted library
// files. Build: cmake -DKILN_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++ && ninja fuzz_elf_soname
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "probe/elf_soname.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto r = kiln::probe::read_elf_soname(std::string_view(reinterpret_cast<const char*>(data), size));
  if (r && r->soname.size() > size) __builtin_trap();  // a name longer than the input was read out of bounds
  return 0;
}
