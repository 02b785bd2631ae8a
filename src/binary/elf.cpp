#include "binary/elf.hpp"

#include <fmt/format.h>

namespace kiln::binary {
namespace {

constexpr std::uint32_t kShtSymtab = 2, kShtStrtab = 3, kShtDynamic = 6, kShtDynsym = 11;
constexpr std::uint32_t kShtGnuVerneed = 0x6ffffffe, kShtGnuVersym = 0x6fffffff;
constexpr std::uint32_t kPtLoad = 1, kPtDynamic = 2;
constexpr std::int64_t kDtNull = 0, kDtNeeded = 1, kDtStrtab = 5, kDtSoname = 14, kDtRpath = 15, kDtRunpath = 29;

template <class T>
tl::unexpected<ParseError> fail(const Bytes& b, std::uint64_t off, T&& msg) {
  return tl::unexpected(b.error(off, std::forward<T>(msg)));
}

}  // namespace

std::string machine_name(std::uint16_t em) {
  switch (em) {
    case kEmX86_64:
      return "x86-64";
    case kEmAarch64:
      return "aarch64";
    case 21:
      return "ppc64";
    case kEmCuda:
      return "CUDA";
  }
  return "machine " + std::to_string(em);
}

bool looks_like_elf(const Bytes& b) {
  return b.starts_with(
      "\x7f"
      "ELF");
}

Parsed<Elf> Elf::parse(const Bytes& file) {
  Elf e;
  e.file_ = file;
  if (!looks_like_elf(file)) return fail(file, 0, "not an ELF file (no \\x7fELF magic)");
  if (file.size() < 64) return fail(file, 0, fmt::format("truncated ELF header: {} bytes, 64 needed", file.size()));
  if (file.at<std::uint8_t>(4) != 2) return fail(file, 4, "not a 64-bit ELF (EI_CLASS is not ELFCLASS64)");
  if (file.at<std::uint8_t>(5) != 1) return fail(file, 5, "not a little-endian ELF (EI_DATA is not ELFDATA2LSB)");
  e.abi_version_ = file.at<std::uint8_t>(8);
  e.type_ = file.at<std::uint16_t>(16);
  e.machine_ = file.at<std::uint16_t>(18);
  e.flags_ = file.at<std::uint32_t>(48);
  const auto phoff = file.at<std::uint64_t>(32), shoff = file.at<std::uint64_t>(40);
  const auto phentsize = file.at<std::uint16_t>(54), phnum = file.at<std::uint16_t>(56);
  const auto shentsize = file.at<std::uint16_t>(58);
  std::uint64_t shnum = file.at<std::uint16_t>(60);
  std::uint32_t shstrndx = file.at<std::uint16_t>(62);

  if (phnum) {
    if (phentsize < 56) return fail(file, 54, fmt::format("program header entry size {} is below 56", phentsize));
    auto table = file.slice(phoff, std::uint64_t(phnum) * phentsize, "program header table");
    if (!table) return tl::unexpected(table.error());
    for (std::uint64_t i = 0; i < phnum; ++i) {
      const std::uint64_t o = i * phentsize;
      Segment s;
      s.type = table->at<std::uint32_t>(o);
      s.flags = table->at<std::uint32_t>(o + 4);
      s.offset = table->at<std::uint64_t>(o + 8);
      s.vaddr = table->at<std::uint64_t>(o + 16);
      s.filesz = table->at<std::uint64_t>(o + 32);
      s.memsz = table->at<std::uint64_t>(o + 40);
      e.segments_.push_back(s);
    }
  }
  if (shoff == 0) return e;  // sections stripped entirely: segments only
  if (shentsize < 64) return fail(file, 58, fmt::format("section header entry size {} is below 64", shentsize));
  // Extended numbering: the real counts live in section 0.
  if (shnum == 0 || shstrndx == 0xffff) {
    auto s0 = file.slice(shoff, 64, "section header 0");
    if (!s0) return tl::unexpected(s0.error());
    if (shnum == 0) shnum = s0->at<std::uint64_t>(32);
    if (shstrndx == 0xffff) shstrndx = s0->at<std::uint32_t>(40);
  }
  if (shnum > file.size() / 64) return fail(file, 60, fmt::format("{} section headers cannot fit in the file", shnum));
  auto table = file.slice(shoff, shnum * shentsize, "section header table");
  if (!table) return tl::unexpected(table.error());
  e.sections_.reserve(shnum);
  std::vector<std::uint32_t> name_offsets;
  for (std::uint64_t i = 0; i < shnum; ++i) {
    const std::uint64_t o = i * shentsize;
    Section s;
    name_offsets.push_back(table->at<std::uint32_t>(o));
    s.type = table->at<std::uint32_t>(o + 4);
    s.flags = table->at<std::uint64_t>(o + 8);
    s.addr = table->at<std::uint64_t>(o + 16);
    s.offset = table->at<std::uint64_t>(o + 24);
    s.size = table->at<std::uint64_t>(o + 32);
    s.link = table->at<std::uint32_t>(o + 40);
    s.info = table->at<std::uint32_t>(o + 44);
    s.entsize = table->at<std::uint64_t>(o + 56);
    if (s.type != Section::kNobits && i != 0 && !file.fits(s.offset, s.size))
      return fail(
          file, shoff + o,
          fmt::format("section {} [{:#x}, +{:#x}) lies outside the {}-byte file", i, s.offset, s.size, file.size()));
    e.sections_.push_back(s);
  }
  if (shstrndx != 0) {
    if (shstrndx >= e.sections_.size())
      return fail(file, 62, fmt::format("section name table index {} out of range ({} sections)", shstrndx, shnum));
    auto names = e.data(e.sections_[shstrndx]);
    if (!names) return tl::unexpected(names.error());
    for (size_t i = 0; i < e.sections_.size(); ++i) {
      if (name_offsets[i] == 0 && i == 0) continue;
      auto n = names->cstr(name_offsets[i], fmt::format("name of section {}", i));
      if (!n) return tl::unexpected(n.error());
      e.sections_[i].name = *n;
    }
  }
  return e;
}

const Section* Elf::section(std::string_view name) const {
  for (const auto& s : sections_)
    if (s.name == name) return &s;
  return nullptr;
}

Parsed<Bytes> Elf::data(const Section& s) const {
  if (s.type == Section::kNobits) return file_.slice(0, 0, "empty section");
  return file_.slice(s.offset, s.size, fmt::format("section {}", s.name.empty() ? "(unnamed)" : s.name));
}

Parsed<std::vector<Symbol>> Elf::read_symbols(const Section& table) const {
  std::vector<Symbol> out;
  auto data = this->data(table);
  if (!data) return tl::unexpected(data.error());
  if (table.link >= sections_.size())
    return fail(*data, 0,
                fmt::format("symbol table {} links to section {} of {}", table.name, table.link, sections_.size()));
  auto strings = this->data(sections_[table.link]);
  if (!strings) return tl::unexpected(strings.error());
  const std::uint64_t ent = table.entsize ? table.entsize : 24;
  if (ent < 24) return fail(*data, 0, fmt::format("symbol entry size {} is below 24", ent));
  const std::uint64_t n = data->size() / ent;
  out.reserve(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint64_t o = i * ent;
    Symbol s;
    const auto name_off = data->at<std::uint32_t>(o);
    const auto info = data->at<std::uint8_t>(o + 4);
    s.type = info & 0xf;
    s.binding = info >> 4;
    s.other = data->at<std::uint8_t>(o + 5);
    s.shndx = data->at<std::uint16_t>(o + 6);
    s.value = data->at<std::uint64_t>(o + 8);
    s.size = data->at<std::uint64_t>(o + 16);
    if (name_off) {
      auto nm = strings->cstr(name_off, "symbol name");
      if (!nm) return tl::unexpected(nm.error());
      s.name = *nm;
    }
    out.push_back(s);
  }
  return out;
}

Parsed<std::vector<Symbol>> Elf::symbols() const {
  for (const auto& s : sections_)
    if (s.type == kShtSymtab) return read_symbols(s);
  return std::vector<Symbol>{};
}

Parsed<std::vector<Symbol>> Elf::dynamic_symbols() const {
  const Section* dynsym = nullptr;
  const Section* versym = nullptr;
  for (const auto& s : sections_) {
    if (s.type == kShtDynsym) dynsym = &s;
    if (s.type == kShtGnuVersym) versym = &s;
  }
  if (!dynsym) return std::vector<Symbol>{};
  auto syms = read_symbols(*dynsym);
  if (!syms || !versym) return syms;
  // Version indexes map to names through .gnu.version_r (needs) and .gnu.version_d (definitions).
  std::vector<std::string_view> names;  // by index
  auto remember = [&](size_t idx, std::string_view name) {
    if (idx >= names.size()) names.resize(idx + 1);
    names[idx] = name;
  };
  for (const auto& s : sections_) {
    if (s.type != kShtGnuVerneed && s.type != 0x6ffffffd /* SHT_GNU_verdef */) continue;
    if (s.link >= sections_.size()) continue;
    auto d = data(s);
    auto str = data(sections_[s.link]);
    if (!d || !str) continue;
    std::uint64_t off = 0;
    for (std::uint32_t guard = 0; guard < 100000 && d->fits(off, 16); ++guard) {
      if (s.type == kShtGnuVerneed) {
        const std::uint32_t cnt = d->at<std::uint16_t>(off + 2), aux = d->at<std::uint32_t>(off + 8),
                            next = d->at<std::uint32_t>(off + 12);
        std::uint64_t a = off + aux;
        for (std::uint32_t k = 0; k < cnt && d->fits(a, 16); ++k) {
          const auto other = d->at<std::uint16_t>(a + 6);
          auto nm = str->cstr(d->at<std::uint32_t>(a + 8), "version name");
          if (nm) remember(other & 0x7fff, *nm);
          const auto an = d->at<std::uint32_t>(a + 12);
          if (!an) break;
          a += an;
        }
        if (!next) break;
        off += next;
      } else {
        if (!d->fits(off, 20)) break;
        const std::uint32_t ndx = d->at<std::uint16_t>(off + 4), aux = d->at<std::uint32_t>(off + 12),
                            next = d->at<std::uint32_t>(off + 16);
        if (d->fits(off + aux, 8)) {
          auto nm = str->cstr(d->at<std::uint32_t>(off + aux), "version name");
          if (nm) remember(ndx & 0x7fff, *nm);
        }
        if (!next) break;
        off += next;
      }
    }
  }
  auto vs = data(*versym);
  if (!vs) return tl::unexpected(vs.error());
  for (size_t i = 0; i < syms->size() && vs->fits(i * 2, 2); ++i) {
    const auto v = vs->at<std::uint16_t>(i * 2);
    const size_t idx = v & 0x7fff;
    if (idx >= 2 && idx < names.size()) {
      (*syms)[i].version = names[idx];
      (*syms)[i].hidden_version = (v & 0x8000) != 0;
    }
  }
  return syms;
}

Parsed<Dynamic> Elf::dynamic() const {
  Dynamic d;
  const Section* dyn = nullptr;
  for (const auto& s : sections_)
    if (s.type == kShtDynamic) dyn = &s;
  Bytes table, strings;
  if (dyn) {
    auto t = data(*dyn);
    if (!t) return tl::unexpected(t.error());
    table = *t;
    if (dyn->link >= sections_.size())
      return fail(table, 0, fmt::format(".dynamic links to section {} of {}", dyn->link, sections_.size()));
    auto s = data(sections_[dyn->link]);
    if (!s) return tl::unexpected(s.error());
    strings = *s;
  } else {
    // Section headers stripped: PT_DYNAMIC and DT_STRTAB through the load segments.
    const Segment* pd = nullptr;
    for (const auto& s : segments_)
      if (s.type == kPtDynamic) pd = &s;
    if (!pd) return d;
    auto t = file_.slice(pd->offset, pd->filesz, "PT_DYNAMIC segment");
    if (!t) return tl::unexpected(t.error());
    table = *t;
    std::optional<std::uint64_t> strtab;
    for (std::uint64_t o = 0; table.fits(o, 16); o += 16) {
      const auto tag = table.at<std::int64_t>(o);
      if (tag == kDtNull) break;
      if (tag == kDtStrtab) strtab = offset_of(table.at<std::uint64_t>(o + 8));
    }
    if (!strtab) return fail(table, 0, "PT_DYNAMIC has no DT_STRTAB that maps into the file");
    strings = file_.tail(*strtab);
  }
  for (std::uint64_t o = 0; table.fits(o, 16); o += 16) {
    const auto tag = table.at<std::int64_t>(o);
    const auto val = table.at<std::uint64_t>(o + 8);
    if (tag == kDtNull) break;
    if (tag != kDtNeeded && tag != kDtSoname && tag != kDtRpath && tag != kDtRunpath) continue;
    auto s = strings.cstr(val, "dynamic string");
    if (!s) return tl::unexpected(s.error());
    if (tag == kDtNeeded) d.needed.push_back(*s);
    if (tag == kDtSoname) d.soname = *s;
    if (tag == kDtRpath) d.rpath = *s;
    if (tag == kDtRunpath) d.runpath = *s;
  }
  return d;
}

Parsed<std::vector<VersionNeed>> Elf::version_needs() const {
  std::vector<VersionNeed> out;
  for (const auto& s : sections_) {
    if (s.type != kShtGnuVerneed) continue;
    auto d = data(s);
    if (!d) return tl::unexpected(d.error());
    if (s.link >= sections_.size()) return fail(*d, 0, ".gnu.version_r links past the section table");
    auto str = data(sections_[s.link]);
    if (!str) return tl::unexpected(str.error());
    std::uint64_t off = 0;
    for (std::uint32_t guard = 0; guard < 100000; ++guard) {
      auto rec = d->slice(off, 16, "version need record");
      if (!rec) return tl::unexpected(rec.error());
      VersionNeed vn;
      auto file = str->cstr(rec->at<std::uint32_t>(4), "needed file name");
      if (!file) return tl::unexpected(file.error());
      vn.file = *file;
      const auto cnt = rec->at<std::uint16_t>(2);
      std::uint64_t a = off + rec->at<std::uint32_t>(8);
      for (std::uint16_t k = 0; k < cnt; ++k) {
        auto aux = d->slice(a, 16, "version need aux record");
        if (!aux) return tl::unexpected(aux.error());
        auto nm = str->cstr(aux->at<std::uint32_t>(8), "version name");
        if (!nm) return tl::unexpected(nm.error());
        vn.versions.push_back(*nm);
        const auto next = aux->at<std::uint32_t>(12);
        if (!next) break;
        a += next;
      }
      out.push_back(std::move(vn));
      const auto next = rec->at<std::uint32_t>(12);
      if (!next) break;
      off += next;
    }
  }
  return out;
}

Parsed<std::vector<std::string_view>> Elf::version_defs() const {
  std::vector<std::string_view> out;
  for (const auto& s : sections_) {
    if (s.type != 0x6ffffffd /* SHT_GNU_verdef */) continue;
    auto d = data(s);
    if (!d) return tl::unexpected(d.error());
    if (s.link >= sections_.size()) return fail(*d, 0, ".gnu.version_d links past the section table");
    auto str = data(sections_[s.link]);
    if (!str) return tl::unexpected(str.error());
    std::uint64_t off = 0;
    for (std::uint32_t guard = 0; guard < 100000; ++guard) {
      auto rec = d->slice(off, 20, "version definition record");
      if (!rec) return tl::unexpected(rec.error());
      auto aux = d->slice(off + rec->at<std::uint32_t>(12), 8, "version definition aux record");
      if (!aux) return tl::unexpected(aux.error());
      auto nm = str->cstr(aux->at<std::uint32_t>(0), "version name");
      if (!nm) return tl::unexpected(nm.error());
      if (!(rec->at<std::uint16_t>(2) & 1)) out.push_back(*nm);  // VER_FLG_BASE names the file itself
      const auto next = rec->at<std::uint32_t>(16);
      if (!next) break;
      off += next;
    }
  }
  return out;
}

std::optional<std::uint64_t> Elf::offset_of(std::uint64_t vaddr) const {
  for (const auto& s : segments_)
    if (s.type == kPtLoad && vaddr >= s.vaddr && vaddr - s.vaddr < s.filesz) return s.offset + (vaddr - s.vaddr);
  for (const auto& s : sections_)
    if (s.addr && s.type != Section::kNobits && vaddr >= s.addr && vaddr - s.addr < s.size)
      return s.offset + (vaddr - s.addr);
  return std::nullopt;
}

}  // namespace kiln::binary
