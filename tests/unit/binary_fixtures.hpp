#pragma once
// Builders for handcrafted binary inputs (fat binaries, ar archives, zip files, ld.so.cache) and a
// temporary folder, shared by the test_binary_* suites.
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "temp_dir.hpp"

namespace kiln::testing {

inline void put16(std::string& s, std::uint16_t v) { s.append(reinterpret_cast<const char*>(&v), 2); }
inline void put32(std::string& s, std::uint32_t v) { s.append(reinterpret_cast<const char*>(&v), 4); }
inline void put64(std::string& s, std::uint64_t v) { s.append(reinterpret_cast<const char*>(&v), 8); }

struct FakeEntry {
  std::uint16_t kind = 2;  // 1 PTX, 2 ELF, 8 LTO IR
  std::uint32_t sm = 90;
  std::uint64_t flags = 0x11;
  std::string payload = std::string(32, 'x');
  std::uint32_t compressed_size = 0;
  std::uint64_t uncompressed_size = 0;
};

// One fatbin container laid out as CUDA 13 writes it (64-byte entry headers).
inline std::string make_fatbin(const std::vector<FakeEntry>& entries) {
  std::string body;
  for (const auto& e : entries) {
    put16(body, e.kind);
    put16(body, 0x0101);
    put32(body, 64);
    put64(body, e.payload.size());
    put32(body, e.compressed_size);
    put32(body, 0);
    put16(body, 0);
    put16(body, e.kind == 1 ? 9 : 1);
    put32(body, e.sm);
    put32(body, 0);
    put32(body, 0);
    put64(body, e.flags);
    put64(body, 0);
    put64(body, e.uncompressed_size);
    body += e.payload;
  }
  std::string out;
  put32(out, 0xBA55ED50);
  put16(out, 1);
  put16(out, 16);
  put64(out, body.size());
  return out + body;
}

// A section of a synthetic ELF: SHT_PROGBITS (1), SHF_ALLOC (2) unless told otherwise.
struct FakeSection {
  std::string name;
  std::string data;
  std::uint64_t flags = 2;
  std::uint32_t type = 1;
  std::uint64_t addr = 0;  // 0: placed at its file offset + 0x400000
};

// A minimal ELF64 little-endian file: header, section data (16-byte aligned), .shstrtab and the
// section header table, no program headers. `machine`: 62 x86-64, 183 aarch64; `type`: 3 ET_DYN.
inline std::string make_elf(const std::vector<FakeSection>& sections, std::uint16_t machine = 62,
                            std::uint16_t type = 3) {
  std::string body(64, '\0'), names(1, '\0');
  std::vector<std::uint64_t> offsets;
  std::vector<std::uint32_t> name_at;
  auto align = [&] { body.resize((body.size() + 15) & ~std::size_t{15}, '\0'); };
  for (const auto& s : sections) {
    align();
    offsets.push_back(body.size());
    body += s.data;
    name_at.push_back(static_cast<std::uint32_t>(names.size()));
    names += s.name + '\0';
  }
  const auto shstr_name = static_cast<std::uint32_t>(names.size());
  names += std::string(".shstrtab") + '\0';
  align();
  const std::uint64_t shstr_off = body.size();
  body += names;
  align();
  const std::uint64_t shoff = body.size();
  auto header = [&](std::uint32_t name, std::uint32_t stype, std::uint64_t flags, std::uint64_t addr, std::uint64_t off,
                    std::uint64_t size) {
    put32(body, name);
    put32(body, stype);
    put64(body, flags);
    put64(body, addr);
    put64(body, off);
    put64(body, size);
    put32(body, 0);
    put32(body, 0);
    put64(body, 16);
    put64(body, 0);
  };
  header(0, 0, 0, 0, 0, 0);
  for (std::size_t i = 0; i < sections.size(); ++i) {
    const auto& s = sections[i];
    header(name_at[i], s.type, s.flags, s.addr ? s.addr : offsets[i] + 0x400000, offsets[i], s.data.size());
  }
  header(shstr_name, 3, 0, 0, shstr_off, names.size());
  std::string h =
      "\x7f"
      "ELF";
  h += '\x02';
  h += '\x01';
  h += '\x01';  // 64-bit, little-endian, version 1
  h += std::string(9, '\0');
  put16(h, type);
  put16(h, machine);
  put32(h, 1);
  put64(h, 0);
  put64(h, 0);
  put64(h, shoff);  // entry, phoff, shoff
  put32(h, 0);
  put16(h, 64);
  put16(h, 56);
  put16(h, 0);
  put16(h, 64);
  put16(h, static_cast<std::uint16_t>(sections.size() + 2));
  put16(h, static_cast<std::uint16_t>(sections.size() + 1));
  return h + body.substr(64);
}

// A GNU ar archive; names longer than 15 characters go through the "//" table.
inline std::string make_ar(const std::vector<std::pair<std::string, std::string>>& members) {
  std::string longnames, out = "!<arch>\n";
  std::vector<std::string> names;
  for (const auto& [n, d] : members) {
    if (n.size() > 15) {
      names.push_back("/" + std::to_string(longnames.size()));
      longnames += n + "/\n";
    } else {
      names.push_back(n + "/");
    }
  }
  auto header = [](const std::string& name, std::size_t size) {
    char h[61];
    std::snprintf(h, sizeof h, "%-16s%-12s%-6s%-6s%-8s%-10zu`\n", name.c_str(), "0", "0", "0", "644", size);
    return std::string(h, 60);
  };
  if (!longnames.empty()) {
    out += header("//", longnames.size()) + longnames;
    if (longnames.size() & 1) out += "\n";
  }
  for (std::size_t i = 0; i < members.size(); ++i) {
    out += header(names[i], members[i].second.size()) + members[i].second;
    if (members[i].second.size() & 1) out += "\n";
  }
  return out;
}

// An /etc/ld.so.cache in the glibc-ld.so.cache1.1 format (x86-64 entries by default).
inline std::string make_ld_cache(const std::vector<std::pair<std::string, std::string>>& libs,
                                 std::int32_t flags = 0x0303) {
  const std::string magic = "glibc-ld.so.cache1.1";
  std::string strings;
  const std::uint32_t strings_at = static_cast<std::uint32_t>(48 + libs.size() * 24);
  std::string table;
  for (const auto& [name, path] : libs) {
    const auto key = strings_at + static_cast<std::uint32_t>(strings.size());
    strings += name + '\0';
    const auto value = strings_at + static_cast<std::uint32_t>(strings.size());
    strings += path + '\0';
    put32(table, static_cast<std::uint32_t>(flags));
    put32(table, key);
    put32(table, value);
    put32(table, 0);
    put64(table, 0);
  }
  std::string out = magic;
  put32(out, static_cast<std::uint32_t>(libs.size()));
  put32(out, static_cast<std::uint32_t>(strings.size()));
  out += std::string(20, '\0');  // flags, padding, extension offset, unused: 48-byte header
  return out + table + strings;
}

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace kiln::testing
