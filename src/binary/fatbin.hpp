#pragma once
// CUDA fat binaries: containers (magic 0xBA55ED50) holding SASS cubins, PTX and LTO IR, back to back
// in an ELF's .nv_fatbin section, alone in a .fatbin file, or embedded as data by libraries that load
// their own modules (cuFFT keeps about 24,000 in .ldata). Layout as measured on CUDA 13 output
// (docs/cli/inspect.md records the fields and where the `a`/`f` variants sit).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "binary/bytes.hpp"
#include "core/arch.hpp"

namespace kiln::binary {

constexpr std::uint32_t kFatbinMagic = 0xBA55ED50;

enum class Compression { none, lz, zstd };
std::string to_string(Compression c);  // "none", "lz", "zstd"

constexpr std::uint16_t kEntryPtx = 1, kEntryElf = 2, kEntryLtoIr = 8;  // entry header kinds

struct FatbinEntry {
  std::uint16_t kind = kEntryElf;  // kEntryPtx, kEntryElf or kEntryLtoIr (nvcc code=lto_XX)
  core::Target target;             // kind and architecture (variant from the flags); LTO IR reads as PTX
  bool lto_ir() const { return kind == kEntryLtoIr; }  // input for nvJitLink, never loaded as is
  std::uint64_t offset = 0;                            // absolute offset of the entry header in the file
  std::uint32_t header_size = 0;
  std::uint64_t stored_size = 0;        // payload bytes in the file (padded)
  std::uint64_t compressed_size = 0;    // exact compressed bytes; 0 when not compressed
  std::uint64_t uncompressed_size = 0;  // the payload after decompression
  std::uint64_t flags = 0;
  std::uint16_t version_major = 0, version_minor = 0;  // PTX ISA for PTX, ELF ABI for SASS
  Compression compression = Compression::none;
  Bytes payload;  // the stored bytes (compressed_size of them when compressed)
  std::uint64_t file_bytes() const { return header_size + stored_size; }  // what it costs in the file
};

struct Fatbin {
  std::string section;       // the ELF section it was found in ("" outside ELF files)
  std::uint64_t offset = 0;  // absolute offset of the container header
  std::uint64_t size = 0;    // header + entries
  std::vector<FatbinEntry> entries;
};

bool looks_like_fatbin(const Bytes& b);
// One container at the start of `b`.
Parsed<Fatbin> parse_fatbin(const Bytes& b);
// All containers in a region such as .nv_fatbin: back to back, 8-byte aligned, zero padding between.
Parsed<std::vector<Fatbin>> parse_fatbins(const Bytes& region);

// Containers anywhere in a region of other data (.ldata, .rodata): found by their header (magic,
// version 1, 16-byte header, a size that fits), then parsed whole. `skip` holds absolute
// [begin, end) ranges already read through .nv_fatbin or the wrapper records, never read twice.
// A header that passes those checks but whose entries do not parse is counted in `rejected`.
struct FatbinScan {
  std::vector<Fatbin> fatbins;
  std::size_t rejected = 0;
  std::optional<ParseError> first_rejected;
};
FatbinScan scan_fatbins(const Bytes& region, const std::vector<std::pair<std::uint64_t, std::uint64_t>>& skip = {});

// The payload decompressed (or copied when stored plainly). Checks the size the header promised.
Parsed<std::string> decompress(const FatbinEntry& e);
// The LZ4-style block format of CUDA 11/12 fatbins (flag 0x2000, `-compress-mode=speed` in CUDA 13).
Parsed<std::string> lz_decompress(const Bytes& in, std::uint64_t expected_size);

}  // namespace kiln::binary
