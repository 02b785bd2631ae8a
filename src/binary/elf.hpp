#pragma once
// An ELF64 little-endian reader over Bytes: section headers, symbol tables, the dynamic section and
// symbol versioning. It copies nothing but the small header records; names are views into the file.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "binary/bytes.hpp"

namespace kiln::binary {

constexpr std::uint16_t kEmCuda = 190;  // EM_CUDA: a cubin
constexpr std::uint16_t kEmX86_64 = 62, kEmAarch64 = 183;
std::string machine_name(std::uint16_t em);  // "x86-64", "aarch64", "ppc64", or "machine N"

struct Section {
  std::string_view name;
  std::uint32_t type = 0;
  std::uint64_t flags = 0, addr = 0, offset = 0, size = 0;
  std::uint32_t link = 0, info = 0;
  std::uint64_t entsize = 0;
  static constexpr std::uint32_t kNobits = 8;
};

struct Symbol {
  std::string_view name;
  std::uint64_t value = 0, size = 0;
  std::uint16_t shndx = 0;
  std::uint8_t type = 0;     // STT_*
  std::uint8_t binding = 0;  // STB_*
  std::uint8_t other = 0;
  bool defined() const { return shndx != 0; }
  // For dynamic symbols: the version name ("GLIBC_2.34") when versioned, empty otherwise.
  std::string_view version;
  bool hidden_version = false;
};

struct Segment {
  std::uint32_t type = 0, flags = 0;
  std::uint64_t offset = 0, vaddr = 0, filesz = 0, memsz = 0;
};

struct VersionNeed {
  std::string_view file;                   // "libc.so.6"
  std::vector<std::string_view> versions;  // "GLIBC_2.34", ...
};

struct Dynamic {
  std::vector<std::string_view> needed;
  std::optional<std::string_view> soname, rpath, runpath;
};

class Elf {
public:
  // Checks the identification, the headers and that every section lies inside the file.
  static Parsed<Elf> parse(const Bytes& file);

  const Bytes& bytes() const { return file_; }
  std::uint16_t type() const { return type_; }  // ET_REL 1, ET_EXEC 2, ET_DYN 3
  std::uint16_t machine() const { return machine_; }
  std::uint32_t flags() const { return flags_; }
  std::uint8_t abi_version() const { return abi_version_; }
  const std::vector<Section>& sections() const { return sections_; }
  const std::vector<Segment>& segments() const { return segments_; }
  const Section* section(std::string_view name) const;
  // The section's bytes; empty for SHT_NOBITS.
  Parsed<Bytes> data(const Section& s) const;

  // .symtab (when not stripped) and .dynsym with versions.
  Parsed<std::vector<Symbol>> symbols() const;
  Parsed<std::vector<Symbol>> dynamic_symbols() const;
  Parsed<Dynamic> dynamic() const;
  Parsed<std::vector<VersionNeed>> version_needs() const;
  // Versions this object defines (.gnu.version_d): "GLIBC_2.34", "GLIBCXX_3.4.30", ...
  Parsed<std::vector<std::string_view>> version_defs() const;
  // The file offset that holds virtual address `vaddr` (through PT_LOAD, else section addresses).
  std::optional<std::uint64_t> offset_of(std::uint64_t vaddr) const;

private:
  Parsed<std::vector<Symbol>> read_symbols(const Section& table) const;
  Bytes file_;
  std::uint16_t type_ = 0, machine_ = 0;
  std::uint32_t flags_ = 0;
  std::uint8_t abi_version_ = 0;
  std::vector<Section> sections_;
  std::vector<Segment> segments_;
};

bool looks_like_elf(const Bytes& b);

}  // namespace kiln::binary
