// One fuzz target over every reader of untrusted bytes. The first byte picks the entry point so
// that one corpus reaches all of them; the rest is the input. Any crash, sanitizer report, hang or
// exception is a bug: the readers must answer with a ParseError instead.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "binary/archive.hpp"
#include "binary/cubin.hpp"
#include "binary/elf.hpp"
#include "binary/fatbin.hpp"
#include "binary/inspect.hpp"
#include "binary/ld_cache.hpp"

using namespace kiln::binary;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t mode = data[0];
  const Bytes b(data + 1, size - 1, "fuzz");
  switch (mode % 6) {
    case 0: {  // the whole inspect path, kernels included (decompression, cubin attributes)
      auto r = inspect_bytes(b, "fuzz", InspectOptions{true});
      (void)r;
      break;
    }
    case 1: {  // ELF accessors one by one
      if (auto e = Elf::parse(b)) {
        (void)e->symbols();
        (void)e->dynamic_symbols();
        // The SONAMEs `kiln doctor`'s load check reads (probe/lib_load.cpp) come from here: a name
        // longer than the input was read out of bounds.
        if (auto d = e->dynamic(); d && d->soname && d->soname->size() > b.size()) __builtin_trap();
        (void)e->version_needs();
        (void)e->version_defs();
        (void)elf_fatbins(*e);
        (void)e->offset_of(0x1000);
      }
      break;
    }
    case 2: {  // fat binaries with every entry decompressed; containers found by magic in data
      if (auto fbs = parse_fatbins(b))
        for (const auto& fb : *fbs)
          for (const auto& e : fb.entries) (void)decompress(e);
      (void)scan_fatbins(b, {{b.size() / 3, b.size() / 2}});
      break;
    }
    case 3: {  // LZ stream with a size taken from the input
      std::uint64_t want = b.size() >= 2 ? (b.data()[0] | (b.data()[1] << 8)) * 4u : 0;
      (void)lz_decompress(b.tail(2), want);
      break;
    }
    case 4: {  // containers
      if (auto members = parse_ar(b)) (void)members;
      if (auto zip = parse_zip(b))
        for (const auto& m : *zip) {
          std::shared_ptr<const Blob> keep;
          (void)zip_member_data(b, m, keep);
        }
      break;
    }
    case 5: {  // ld.so.cache, cubins and PTX text
      (void)parse_ld_cache(b);
      (void)read_cubin(b);
      (void)read_ptx(b.view());
      break;
    }
  }
  return 0;
}
