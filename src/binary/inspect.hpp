#pragma once
// What CUDA code a file holds: the fat-binary entries of an ELF (shared library, executable,
// object), of each member of an `ar` archive or a wheel, of a .fatbin or a standalone .cubin.
// This is the library behind `kiln inspect` and `kiln verify`; it returns values and never prints.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "binary/cubin.hpp"
#include "binary/fatbin.hpp"
#include "binary/mapped_file.hpp"
#include "core/arch.hpp"

namespace kiln::binary {

struct InspectOptions {
  bool kernels = false;  // decompress entries and read kernels / PTX entry points
};

struct EntryReport {
  std::string member;   // archive or wheel member ("" for the file itself)
  std::string section;  // ".nv_fatbin", "__nv_relfatbin" ("" outside ELF files)
  core::Target target;
  std::uint64_t offset = 0;  // in the file (or in the inflated member)
  std::uint64_t header_size = 0, stored_size = 0, uncompressed_size = 0;
  Compression compression = Compression::none;
  std::uint16_t version_major = 0, version_minor = 0;
  std::uint64_t flags = 0;
  // With --kernels:
  std::vector<KernelInfo> kernels;
  std::string ptx_version, ptx_target;
  std::optional<std::string> error;  // decompression or cubin parse failure for this entry
};

enum class FileFormat { elf_shared, elf_exec, elf_object, cubin, fatbin, archive, wheel, other };
std::string to_string(FileFormat f);

struct FileReport {
  std::string path;
  FileFormat format = FileFormat::other;
  std::uint64_t file_size = 0;
  std::uint16_t machine = 0;  // ELF e_machine of the host code (the file, or an archive's first member); 0 otherwise
  std::uint64_t fatbin_bytes = 0;  // bytes of fat-binary containers (what CUDA code costs the file)
  std::size_t containers = 0;
  std::size_t members_scanned = 0;   // archive / wheel members looked at
  std::vector<EntryReport> entries;  // in file order
  // Relocatable device code (__nv_relfatbin) inside a shared library or executable: kept for
  // device linking by consumers, never loaded by the CUDA runtime, and not listed by cuobjdump.
  std::vector<EntryReport> relocatable;
  // LTO IR (nvcc code=lto_XX; cuFFT ships thousands for its callbacks): linked at run time by
  // nvJitLink into a new module, never loaded as is, so no GPU is served by it directly.
  std::vector<EntryReport> lto_ir;
  std::vector<std::string> notes;    // e.g. "no section headers: fatbins cannot be located"
  std::optional<std::string> error;  // the file could not be read at all: one line
  bool has_cuda() const { return !entries.empty(); }
  core::TargetSet targets() const;
};

// Reads one file (mmap). Never throws; an unreadable or corrupt file gives `error`.
FileReport inspect_file(const std::string& path, const InspectOptions& opt = {});
// Same over bytes already in memory (tests, fuzzing); `name` is used in messages.
FileReport inspect_bytes(const Bytes& bytes, const std::string& name, const InspectOptions& opt = {});

// The fat binaries of an ELF: .nv_fatbin and __nv_relfatbin (else the .nvFatBinSegment records, else
// the fatbinData symbols), plus containers found by their headers in every other loaded section.
struct ElfFatbins {
  std::vector<Fatbin> fatbins;
  std::vector<std::string> notes;
};
class Elf;
Parsed<ElfFatbins> elf_fatbins(const Elf& elf);

}  // namespace kiln::binary
