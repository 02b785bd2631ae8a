#include "binary/inspect.hpp"
#include "core/text.hpp"

#include <algorithm>
#include <thread>

#include <fmt/format.h>

#include "binary/archive.hpp"
#include "binary/elf.hpp"
#include "binary/file_walk.hpp"

namespace kiln::binary {
namespace {

constexpr std::uint32_t kWrapperMagic = 0x466243b1;  // .nvFatBinSegment records: magic, version, fatbin address

using core::ends_with;

// Members of wheels worth reading: anything that may hold CUDA code.
bool cuda_candidate(std::string_view name) {
  auto base = name.substr(name.rfind('/') == std::string_view::npos ? 0 : name.rfind('/') + 1);
  return ends_with(base, ".so") || base.find(".so.") != std::string_view::npos || ends_with(base, ".o") ||
         ends_with(base, ".a") || ends_with(base, ".cubin") || ends_with(base, ".fatbin") || ends_with(base, ".pyd");
}

bool shared_library(std::string_view name) {  // an ELF one: .pyd is Windows'
  auto base = name.substr(name.rfind('/') == std::string_view::npos ? 0 : name.rfind('/') + 1);
  return ends_with(base, ".so") || base.find(".so.") != std::string_view::npos;
}

void read_kernels(EntryReport& er, const FatbinEntry& e) {
  auto raw = decompress(e);
  if (!raw) {
    er.error = raw.error().to_string();
  } else if (e.target.kind == core::CodeKind::ptx) {
    auto p = read_ptx(*raw);
    er.ptx_version = p.version;
    er.ptx_target = p.target;
    er.kernels = std::move(p.entries);
  } else {
    auto c = read_cubin(Bytes(*raw, fmt::format("{} entry at {:#x}", e.payload.name(), e.offset)));
    if (!c)
      er.error = c.error().to_string();
    else
      er.kernels = std::move(c->kernels);
  }
}

void add_entries(FileReport& r, const std::vector<Fatbin>& fbs, const std::string& member, const InspectOptions& opt,
                 bool loadable_image = false) {
  std::vector<std::pair<std::size_t, const FatbinEntry*>> pending;  // entries whose kernels to read
  for (const auto& fb : fbs) {
    const bool side = loadable_image && fb.section == "__nv_relfatbin";
    if (!side) {
      r.containers++;
      r.fatbin_bytes += fb.size;
    }
    for (const auto& e : fb.entries) {
      EntryReport er;
      er.member = member;
      er.section = fb.section;
      er.target = e.target;
      er.offset = e.offset;
      er.header_size = e.header_size;
      er.stored_size = e.stored_size;
      er.uncompressed_size = e.uncompressed_size;
      er.compression = e.compression;
      er.version_major = e.version_major;
      er.version_minor = e.version_minor;
      er.flags = e.flags;
      if (opt.kernels && !side && !e.lto_ir()) pending.push_back({r.entries.size(), &e});
      (side ? r.relocatable : e.lto_ir() ? r.lto_ir : r.entries).push_back(std::move(er));
    }
  }
  // Decompressing and reading thousands of cubins (libtorch_cuda.so has 2,789) is the slow part of
  // --kernels: spread it over the cores; each task writes only its own entry.
  parallel_for(pending.size(), std::max(1u, std::thread::hardware_concurrency()),
               [&](std::size_t i) { read_kernels(r.entries[pending[i].first], *pending[i].second); });
}

// Reads one blob (the file itself or a member) into r. Returns an error line for the blob.
std::optional<std::string> scan(FileReport& r, const Bytes& b, const std::string& member, const InspectOptions& opt,
                                int depth);

std::optional<std::string> scan_elf(FileReport& r, const Bytes& b, const std::string& member,
                                    const InspectOptions& opt) {
  auto elf = Elf::parse(b);
  if (!elf) return elf.error().to_string();
  if (r.machine == 0 && elf->machine() != kEmCuda) r.machine = elf->machine();
  if (member.empty()) {
    if (elf->machine() == kEmCuda)
      r.format = FileFormat::cubin;
    else if (elf->type() == 1)
      r.format = FileFormat::elf_object;
    else if (elf->type() == 2)
      r.format = FileFormat::elf_exec;
    else {
      // A position-independent executable is ET_DYN too; its PT_INTERP tells it from a library.
      const bool interp =
          std::any_of(elf->segments().begin(), elf->segments().end(), [](const Segment& s) { return s.type == 3; });
      r.format = interp ? FileFormat::elf_exec : FileFormat::elf_shared;
    }
  }
  if (elf->machine() == kEmCuda) {
    // A standalone cubin is one SASS entry of the architecture in its e_flags.
    EntryReport er;
    er.member = member;
    er.target.kind = core::CodeKind::sass;
    er.target.arch = cubin_arch(*elf);
    er.stored_size = er.uncompressed_size = b.size();
    r.fatbin_bytes += b.size();  // the whole cubin is CUDA code
    if (opt.kernels) {
      auto c = read_cubin(b);
      if (!c)
        er.error = c.error().to_string();
      else
        er.kernels = std::move(c->kernels);
    }
    r.entries.push_back(std::move(er));
    return std::nullopt;
  }
  auto fbs = elf_fatbins(*elf);
  if (!fbs) return fbs.error().to_string();
  for (auto& n : fbs->notes) r.notes.push_back(member.empty() ? n : member + ": " + n);
  add_entries(r, fbs->fatbins, member, opt, elf->type() != 1 /* ET_REL */);
  return std::nullopt;
}

std::optional<std::string> scan(FileReport& r, const Bytes& b, const std::string& member, const InspectOptions& opt,
                                int depth) {
  if (looks_like_elf(b)) return scan_elf(r, b, member, opt);
  if (looks_like_fatbin(b)) {
    if (member.empty()) r.format = FileFormat::fatbin;
    auto fbs = parse_fatbins(b);
    if (!fbs) return fbs.error().to_string();
    add_entries(r, *fbs, member, opt);
    return std::nullopt;
  }
  if (looks_like_ar(b) && depth < 2) {
    if (member.empty()) r.format = FileFormat::archive;
    auto members = parse_ar(b);
    if (!members) return members.error().to_string();
    for (const auto& m : *members) {
      r.members_scanned++;
      const std::string name = member.empty() ? m.name : member + "!" + m.name;
      const Bytes mb = m.data.renamed(std::string(b.name()) + "!" + m.name, m.data.base());
      if (looks_like_elf(mb) || looks_like_fatbin(mb))
        if (auto err = scan(r, mb, name, opt, depth + 1)) return err;
    }
    return std::nullopt;
  }
  if (looks_like_zip(b) && depth == 0) {
    r.format = FileFormat::wheel;
    auto members = parse_zip(b);
    if (!members) return members.error().to_string();
    for (const auto& m : *members) {
      if (!cuda_candidate(m.name)) continue;
      r.members_scanned++;
      std::shared_ptr<const Blob> keep;
      auto mb = zip_member_data(b, m, keep);
      if (!mb) return mb.error().to_string();
      // A wheel's shared library that is no ELF would not load (a 0-byte _C.so: "file too short").
      if (shared_library(m.name) && !looks_like_elf(*mb) && !looks_like_fatbin(*mb))
        return fmt::format("{}!{}: {} bytes and not an ELF file: a shared library in a wheel must load", b.name(),
                           m.name, mb->size());
      if (auto err = scan(r, *mb, m.name, opt, depth + 1)) return err;
    }
    return std::nullopt;
  }
  return std::nullopt;  // not a format that carries CUDA code
}

}  // namespace

std::string to_string(FileFormat f) {
  switch (f) {
    case FileFormat::elf_shared:
      return "shared-library";
    case FileFormat::elf_exec:
      return "executable";
    case FileFormat::elf_object:
      return "object";
    case FileFormat::cubin:
      return "cubin";
    case FileFormat::fatbin:
      return "fatbin";
    case FileFormat::archive:
      return "archive";
    case FileFormat::wheel:
      return "wheel";
    case FileFormat::other:
      return "other";
  }
  return "other";
}

core::TargetSet FileReport::targets() const {
  core::TargetSet s;
  for (const auto& e : entries) s.add(e.target);
  return s;
}

namespace {

// The containers the file itself describes: its .nv_fatbin and __nv_relfatbin sections, else the
// .nvFatBinSegment wrapper records, else the `fatbinData` symbols.
Parsed<ElfFatbins> described_fatbins(const Elf& elf) {
  ElfFatbins out;
  bool found_section = false;
  for (const auto& s : elf.sections()) {
    if (s.name != ".nv_fatbin" && s.name != "__nv_relfatbin") continue;
    found_section = true;
    if (s.type == Section::kNobits) continue;
    auto d = elf.data(s);
    if (!d) return tl::unexpected(d.error());
    auto fbs = parse_fatbins(*d);
    if (!fbs) return tl::unexpected(fbs.error());
    for (auto& f : *fbs) {
      f.section = std::string(s.name);
      out.fatbins.push_back(std::move(f));
    }
  }
  if (found_section) return out;
  // .nv_fatbin renamed or merged away: the wrapper records still point at each container.
  if (const Section* seg = elf.section(".nvFatBinSegment"); seg && seg->type != Section::kNobits) {
    auto d = elf.data(*seg);
    if (!d) return tl::unexpected(d.error());
    std::vector<std::uint64_t> seen;
    for (std::uint64_t o = 0; d->fits(o, 24); o += 24) {
      if (d->at<std::uint32_t>(o) != kWrapperMagic) continue;
      const auto addr = d->at<std::uint64_t>(o + 8);
      auto off = elf.offset_of(addr);
      if (!off) {
        out.notes.push_back(
            fmt::format(".nvFatBinSegment record at {:#x} points at {:#x}, outside the file (relocated at load time)",
                        d->base() + o, addr));
        continue;
      }
      if (std::find(seen.begin(), seen.end(), *off) != seen.end()) continue;
      seen.push_back(*off);
      auto fb = parse_fatbin(elf.bytes().tail(*off));
      if (!fb) return tl::unexpected(fb.error());
      fb->section = ".nvFatBinSegment";
      out.fatbins.push_back(std::move(*fb));
    }
    return out;
  }
  // Neither section, but the symbol table survived: nvcc labels each container `fatbinData`
  // (`__nv_fatbin` in older releases).
  if (auto syms = elf.symbols()) {
    std::vector<std::uint64_t> seen;
    for (const auto& sym : *syms) {
      if (sym.name != "fatbinData" && sym.name != "__nv_fatbin") continue;
      auto off = elf.offset_of(sym.value);
      if (!off || std::find(seen.begin(), seen.end(), *off) != seen.end()) continue;
      seen.push_back(*off);
      auto fb = parse_fatbin(elf.bytes().tail(*off));
      if (!fb) return tl::unexpected(fb.error());
      fb->section = "symbol " + std::string(sym.name);
      out.fatbins.push_back(std::move(*fb));
    }
    if (!out.fatbins.empty()) return out;
  }
  if (elf.sections().empty() && !elf.segments().empty())
    out.notes.push_back("no section headers (stripped to segments): fat binaries cannot be located");
  return out;
}

constexpr std::uint64_t kShfAlloc = 2, kShfExecinstr = 4;

// Libraries that load their own modules (cuFFT: about 24,000 containers in .ldata) keep fat
// binaries as plain data, where neither the sections above nor cuobjdump look. Every other section
// loaded at run time is searched for container headers, except code (.text: a fat binary is data,
// and skipping it halves the bytes read in libcublasLt); containers already read are skipped.
void scan_other_sections(const Elf& elf, ElfFatbins& out) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> known;
  for (const auto& f : out.fatbins) known.emplace_back(f.offset, f.offset + f.size);
  for (const auto& s : elf.sections()) {
    if (!(s.flags & kShfAlloc) || (s.flags & kShfExecinstr) || s.type == Section::kNobits || s.name == ".nv_fatbin" ||
        s.name == "__nv_relfatbin")
      continue;
    auto d = elf.data(s);
    if (!d) continue;  // Elf::parse checked every section lies inside the file
    auto found = scan_fatbins(*d, known);
    if (!found.fatbins.empty())
      out.notes.push_back(
          fmt::format("{} fat binar{} in {}, found by header scan (outside .nv_fatbin, where cuobjdump does not look)",
                      found.fatbins.size(), found.fatbins.size() == 1 ? "y" : "ies", s.name));
    if (found.rejected)
      out.notes.push_back(fmt::format("{} fat-binary header{} in {} did not parse and {} skipped (first: {})",
                                      found.rejected, found.rejected == 1 ? "" : "s", s.name,
                                      found.rejected == 1 ? "was" : "were", found.first_rejected->to_string()));
    for (auto& f : found.fatbins) {
      f.section = std::string(s.name);
      out.fatbins.push_back(std::move(f));
    }
  }
}

}  // namespace

Parsed<ElfFatbins> elf_fatbins(const Elf& elf) {
  auto out = described_fatbins(elf);
  if (!out) return out;
  scan_other_sections(elf, *out);
  return out;
}

FileReport inspect_bytes(const Bytes& bytes, const std::string& name, const InspectOptions& opt) {
  FileReport r;
  r.path = name;
  r.file_size = bytes.size();
  if (auto err = scan(r, bytes, "", opt, 0)) r.error = *err;
  return r;
}

FileReport inspect_file(const std::string& path, const InspectOptions& opt) {
  auto blob = map_file(path);
  if (!blob) {
    FileReport r;
    r.path = path;
    r.error = blob.error();
    return r;
  }
  FileReport r = inspect_bytes((*blob)->bytes(), path, opt);
  if ((*blob)->changed_while_read()) {
    r.error =
        path + ": the file shrank while kiln read it (something is rewriting it); read it again once that is done";
    r.entries.clear();
  }
  return r;
}

}  // namespace kiln::binary
