#include "probe/elf_soname.hpp"

#include <cstdint>
#include <cstring>

namespace kiln::probe {
namespace {

// Reads an unsigned integer of `size` bytes at `off` in the file's byte order; false when it would
// run past the end.
struct Reader {
  std::string_view b;
  bool little = true;
  bool get(std::uint64_t off, int size, std::uint64_t& out) const {
    if (off > b.size() || static_cast<std::uint64_t>(size) > b.size() - off) return false;
    out = 0;
    for (int i = 0; i < size; ++i) {
      std::uint64_t byte = static_cast<unsigned char>(b[off + (little ? size - 1 - i : i)]);
      out = (out << 8) | byte;
    }
    return true;
  }
};

constexpr std::uint64_t kPtDynamic = 2, kPtLoad = 1;
constexpr std::uint64_t kDtNull = 0, kDtStrtab = 5, kDtSoname = 14;

}  // namespace

tl::expected<ElfSoname, std::string> read_elf_soname(std::string_view b) {
  if (b.size() < 16 || std::memcmp(b.data(),
                                   "\x7f"
                                   "ELF",
                                   4) != 0)
    return tl::unexpected(std::string("not an ELF file"));
  ElfSoname out;
  const int cls = static_cast<unsigned char>(b[4]), data = static_cast<unsigned char>(b[5]);
  if (cls != 1 && cls != 2) return tl::unexpected(std::string("bad ELF class"));
  if (data != 1 && data != 2) return tl::unexpected(std::string("bad ELF byte order"));
  out.is_64 = cls == 2;
  Reader r{b, data == 1};
  const int w = out.is_64 ? 8 : 4;  // address width
  std::uint64_t type = 0, machine = 0, phoff = 0, phentsize = 0, phnum = 0;
  if (!r.get(16, 2, type) || !r.get(18, 2, machine)) return tl::unexpected(std::string("truncated ELF header"));
  out.machine = static_cast<int>(machine);
  if (type != 3 && type != 2)
    return tl::unexpected(std::string("not a shared library (ELF type ") + std::to_string(type) + ")");
  const std::uint64_t ph_at = out.is_64 ? 32 : 28, phes_at = out.is_64 ? 54 : 42, phn_at = out.is_64 ? 56 : 44;
  if (!r.get(ph_at, w, phoff) || !r.get(phes_at, 2, phentsize) || !r.get(phn_at, 2, phnum))
    return tl::unexpected(std::string("truncated ELF header"));
  if (phnum == 0) return tl::unexpected(std::string("no program headers"));
  if (phentsize < (out.is_64 ? 56u : 32u)) return tl::unexpected(std::string("bad program header size"));

  // Program header field offsets differ between ELF32 and ELF64.
  const std::uint64_t off_offset = out.is_64 ? 8 : 4, off_vaddr = out.is_64 ? 16 : 8, off_filesz = out.is_64 ? 32 : 16;
  struct Load {
    std::uint64_t vaddr, offset, filesz;
  };
  std::uint64_t dyn_off = 0, dyn_size = 0;
  bool have_dyn = false;
  Load loads[64];
  int nloads = 0;
  for (std::uint64_t i = 0; i < phnum; ++i) {
    const std::uint64_t at = phoff + i * phentsize;
    if (phoff > b.size() || i * phentsize > b.size())
      return tl::unexpected(std::string("program headers past end of file"));
    std::uint64_t ptype = 0, poff = 0, pvaddr = 0, pfilesz = 0;
    if (!r.get(at, 4, ptype) || !r.get(at + off_offset, w, poff) || !r.get(at + off_vaddr, w, pvaddr) ||
        !r.get(at + off_filesz, w, pfilesz))
      return tl::unexpected(std::string("program headers past end of file"));
    if (ptype == kPtDynamic) {
      have_dyn = true;
      dyn_off = poff;
      dyn_size = pfilesz;
    } else if (ptype == kPtLoad && nloads < 64) {
      loads[nloads++] = {pvaddr, poff, pfilesz};
    }
  }
  if (!have_dyn) return tl::unexpected(std::string("no dynamic section (a static object)"));
  if (dyn_off > b.size() || dyn_size > b.size() - dyn_off)
    return tl::unexpected(std::string("dynamic section past end of file"));

  std::uint64_t strtab = 0, soname = 0;
  bool have_strtab = false, have_soname = false;
  for (std::uint64_t at = dyn_off; at + 2 * w <= dyn_off + dyn_size; at += 2 * w) {
    std::uint64_t tag = 0, val = 0;
    if (!r.get(at, w, tag) || !r.get(at + w, w, val)) break;
    if (tag == kDtNull) break;
    if (tag == kDtStrtab) have_strtab = true, strtab = val;
    if (tag == kDtSoname) have_soname = true, soname = val;
  }
  if (!have_soname) return out;
  if (!have_strtab) return tl::unexpected(std::string("DT_SONAME without DT_STRTAB"));
  // DT_STRTAB is a virtual address: map it back to a file offset through the PT_LOAD segments.
  std::uint64_t str_off = 0;
  bool mapped = false;
  for (int i = 0; i < nloads && !mapped; ++i)
    if (strtab >= loads[i].vaddr && strtab - loads[i].vaddr < loads[i].filesz) {
      str_off = loads[i].offset + (strtab - loads[i].vaddr);
      mapped = true;
    }
  if (!mapped) return tl::unexpected(std::string("string table outside every loadable segment"));
  if (str_off > b.size() || soname > b.size() - str_off) return tl::unexpected(std::string("SONAME past end of file"));
  const std::uint64_t start = str_off + soname;
  const void* nul = std::memchr(b.data() + start, '\0', b.size() - start);
  if (!nul) return tl::unexpected(std::string("unterminated SONAME"));
  out.soname.assign(b.data() + start, static_cast<const char*>(nul));
  return out;
}

}  // namespace kiln::probe
