#include "binary/cubin.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "binary/elf.hpp"

namespace kiln::binary {
namespace {

// .nv.info attribute records: u8 format, u8 attribute, then either a u16 value (formats 1-3) or a
// u16 size and that many bytes (format 4). Attribute numbers as ptxas writes them.
constexpr std::uint8_t kFmtSval = 4;
constexpr std::uint8_t kAttrFrameSize = 0x11, kAttrRegCount = 0x2f;
constexpr std::uint8_t kStoCudaEntry = 0x10;
constexpr std::uint8_t kCompatArchSpecific = 0x09;  // .nv.compat: 1 for sm_XXa

struct Attr {
  std::uint8_t id;
  Bytes value;
};

Parsed<std::vector<Attr>> read_attrs(const Bytes& sec) {
  std::vector<Attr> out;
  std::uint64_t o = 0;
  while (o < sec.size()) {
    auto h = sec.slice(o, 4, ".nv.info attribute");
    if (!h) return tl::unexpected(h.error());
    const auto fmt_ = h->at<std::uint8_t>(0), id = h->at<std::uint8_t>(1);
    if (fmt_ == kFmtSval) {
      const auto len = h->at<std::uint16_t>(2);
      auto v = sec.slice(o + 4, len, ".nv.info attribute value");
      if (!v) return tl::unexpected(v.error());
      out.push_back({id, *v});
      o += 4 + len;
    } else {
      out.push_back({id, *h->slice(2, 2, "value")});
      o += 4;
    }
  }
  return out;
}

}  // namespace

core::Arch cubin_arch(const Elf& elf) {
  core::Arch a;
  // ELF ABI version 8 and later keep the SM number in bits 8-15 of e_flags, older ones in bits 0-7.
  a.number = static_cast<int>(elf.abi_version() >= 8 ? (elf.flags() >> 8) & 0xff : elf.flags() & 0xff);
  if (const Section* compat = elf.section(".nv.compat")) {
    if (auto d = elf.data(*compat))
      if (auto attrs = read_attrs(*d))
        for (const auto& at : *attrs)
          if (at.id == kCompatArchSpecific && at.value.size() >= 1 && at.value.at<std::uint8_t>(0) == 1)
            a.variant = core::Variant::a;
  }
  return a;
}

std::string demangle(const std::string& name) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && out ? std::string(out.get()) : name;
}

Parsed<CubinInfo> read_cubin(const Bytes& bytes) {
  auto elf = Elf::parse(bytes);
  if (!elf) return tl::unexpected(elf.error());
  CubinInfo info;
  info.arch = cubin_arch(*elf);
  auto syms = elf->symbols();
  if (!syms) return tl::unexpected(syms.error());
  std::map<std::string_view, const Section*> by_name;
  for (const auto& s : elf->sections()) by_name[s.name] = &s;
  auto section_size = [&](const std::string& name) -> std::uint64_t {
    auto it = by_name.find(name);
    return it == by_name.end() ? 0 : it->second->size;
  };
  std::map<std::uint32_t, size_t> kernel_of_symbol;  // symbol index -> kernels[i]
  for (size_t i = 0; i < syms->size(); ++i) {
    const auto& s = (*syms)[i];
    if (s.type != 2 /* STT_FUNC */ || !s.defined() || s.name.empty()) continue;
    KernelInfo k;
    k.name = std::string(s.name);
    k.demangled = demangle(k.name);
    k.entry = (s.other & kStoCudaEntry) != 0;
    k.code_bytes = s.size;
    k.shared_bytes = section_size(".nv.shared." + k.name);
    k.local_bytes = section_size(".nv.local." + k.name);
    k.constant0_bytes = section_size(".nv.constant0." + k.name);
    // The code section's sh_info carries the register count in its top byte.
    if (s.shndx < elf->sections().size()) {
      const auto& text = elf->sections()[s.shndx];
      if (text.name.substr(0, 6) == ".text." && (text.info >> 24)) k.registers = text.info >> 24;
    }
    kernel_of_symbol[static_cast<std::uint32_t>(i)] = info.kernels.size();
    info.kernels.push_back(std::move(k));
  }
  if (const Section* nvinfo = elf->section(".nv.info")) {
    auto data = elf->data(*nvinfo);
    if (!data) return tl::unexpected(data.error());
    auto attrs = read_attrs(*data);
    if (!attrs) return tl::unexpected(attrs.error());
    for (const auto& a : *attrs) {
      if ((a.id != kAttrRegCount && a.id != kAttrFrameSize) || a.value.size() < 8) continue;
      auto it = kernel_of_symbol.find(a.value.at<std::uint32_t>(0));
      if (it == kernel_of_symbol.end()) continue;
      const auto v = a.value.at<std::uint32_t>(4);
      if (a.id == kAttrRegCount)
        info.kernels[it->second].registers = v;
      else
        info.kernels[it->second].stack_bytes = v;
    }
  }
  return info;
}

PtxInfo read_ptx(std::string_view text) {
  PtxInfo p;
  auto word_after = [](std::string_view line, size_t pos) {
    while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t')) ++pos;
    size_t end = pos;
    while (end < line.size() && line[end] != ' ' && line[end] != '\t' && line[end] != '(' && line[end] != ',' &&
           line[end] != '\r')
      ++end;
    return line.substr(pos, end - pos);
  };
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    size_t first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos || line[first] == '/') continue;
    line = line.substr(first);
    if (line.rfind(".version", 0) == 0 && p.version.empty())
      p.version = std::string(word_after(line, 8));
    else if (line.rfind(".target", 0) == 0 && p.target.empty())
      p.target = std::string(word_after(line, 7));
    else if (auto e = line.find(".entry"); e != std::string_view::npos && line[0] == '.') {
      auto name = word_after(line, e + 6);
      if (!name.empty()) {
        KernelInfo k;
        k.name = std::string(name);
        k.demangled = demangle(k.name);
        p.entries.push_back(std::move(k));
      }
    }
  }
  return p;
}

}  // namespace kiln::binary
