#pragma once
// /etc/ld.so.cache as ldconfig writes it (the "glibc-ld.so.cache1.1" format, optionally after the
// old "ld.so-1.7.0" table), read natively so kiln never runs `ldconfig -p`.
#include <cstdint>
#include <string>
#include <vector>

#include "binary/bytes.hpp"

namespace kiln::binary {

struct LdCacheEntry {
  std::string name;        // "libcudart.so.13"
  std::string path;        // "/usr/local/cuda/lib64/libcudart.so.13"
  std::int32_t flags = 0;  // FLAG_ELF_LIBC6 | FLAG_X8664_LIB64 = 0x0303 on x86-64
};

Parsed<std::vector<LdCacheEntry>> parse_ld_cache(const Bytes& b);
// The cache flags that match an ELF machine (EM_X86_64 62 -> 0x0303, EM_AARCH64 183 -> 0x0a03).
std::int32_t ld_cache_flags_for(std::uint16_t machine);

}  // namespace kiln::binary
