#include "cli/inspect_render.hpp"

#include "binary/kernel_coverage.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace kiln::cli {
namespace {

using json = nlohmann::ordered_json;

struct ArchRow {
  std::uint64_t sass_count = 0, sass_bytes = 0, ptx_count = 0, ptx_bytes = 0;
  std::uint64_t file_bytes = 0, uncompressed = 0;
};

std::map<core::Arch, ArchRow> by_arch(const binary::FileReport& f, ArchRow& total) {
  std::map<core::Arch, ArchRow> rows;
  for (const auto& e : f.entries) {
    auto& r = rows[e.target.arch];
    const std::uint64_t stored = e.compression == binary::Compression::none ? e.stored_size : e.stored_size;
    for (ArchRow* x : {&r, &total}) {
      if (e.target.kind == core::CodeKind::sass)
        x->sass_count++, x->sass_bytes += stored;
      else
        x->ptx_count++, x->ptx_bytes += stored;
      x->file_bytes += e.header_size + e.stored_size;
      x->uncompressed += e.uncompressed_size;
    }
  }
  return rows;
}

// The file split into the rows of --sizes: each architecture's entries, then what is left.
struct SizeParts {
  std::vector<std::uint64_t> bytes;
  std::vector<std::string> names;  // for the rows after the architectures
};
SizeParts size_parts(const binary::FileReport& f, const std::map<core::Arch, ArchRow>& rows) {
  SizeParts p;
  std::uint64_t entries = 0, lto = 0, reloc = 0;
  for (const auto& [a, r] : rows) {
    p.bytes.push_back(r.file_bytes);
    p.names.push_back(a.sm());
    entries += r.file_bytes;
  }
  for (const auto& e : f.lto_ir) lto += e.header_size + e.stored_size;
  for (const auto& e : f.relocatable) reloc += e.header_size + e.stored_size;
  const std::uint64_t in_containers = std::max(f.fatbin_bytes, entries + lto);
  auto add = [&](const char* name, std::uint64_t n) {
    p.bytes.push_back(n);
    p.names.push_back(name);
  };
  add("LTO IR entries", lto);
  add("fat-binary headers and padding", in_containers - entries - lto);
  // Wheels: entries are counted inflated, so they can exceed the (compressed) file.
  const std::uint64_t rest = f.file_size > in_containers ? f.file_size - in_containers : 0;
  add("relocatable device code (__nv_relfatbin)", std::min(reloc, rest));
  add("outside fat binaries", rest - std::min(reloc, rest));
  return p;
}

json kernel_json(const binary::KernelInfo& k, bool sass) {
  json j{{"name", k.name}, {"demangled", k.demangled}};
  if (!sass) return j;
  j["entry"] = k.entry;
  j["registers"] = k.registers ? json(*k.registers) : json(nullptr);
  j["shared_bytes"] = k.shared_bytes;
  j["stack_bytes"] = k.stack_bytes;
  j["local_bytes"] = k.local_bytes;
  j["constant0_bytes"] = k.constant0_bytes;
  j["code_bytes"] = k.code_bytes;
  return j;
}

}  // namespace

std::string human_bytes(std::uint64_t n) {
  if (n < 1024) return fmt::format("{} B", n);
  const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(n) / 1024;
  int u = 0;
  while (v >= 1024 && u < 3) v /= 1024, ++u;
  return fmt::format("{:.1f} {}", v, units[u]);
}

std::string arch_name(const core::Target& t) { return t.arch.sm(); }

std::vector<int> tenths_of_percent(const std::vector<std::uint64_t>& parts) {
  std::vector<int> out(parts.size(), 0);
  long double sum = 0;
  for (auto p : parts) sum += static_cast<long double>(p);
  if (sum == 0) return out;
  std::vector<std::pair<long double, std::size_t>> remainders;
  int given = 0;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const long double exact = 1000.0L * static_cast<long double>(parts[i]) / sum;
    out[i] = static_cast<int>(exact);
    given += out[i];
    remainders.push_back({exact - out[i], i});
  }
  std::stable_sort(remainders.begin(), remainders.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::size_t k = 0; given < 1000 && k < remainders.size(); ++k, ++given) ++out[remainders[k].second];
  return out;
}

json file_json(const binary::FileReport& f, const std::optional<binary::DepsReport>& d, const RenderOptions& o) {
  json j;
  j["path"] = f.path;
  j["format"] = binary::to_string(f.format);
  j["size_bytes"] = f.file_size;
  j["cuda"] = f.has_cuda();
  j["containers"] = f.containers;
  j["fatbin_bytes"] = f.fatbin_bytes;
  j["error"] = f.error ? json(*f.error) : json(nullptr);
  json entries = json::array();
  for (const auto& e : f.entries) {
    json x;
    x["kind"] = core::to_string(e.target.kind);
    x["arch"] = arch_name(e.target);
    x["size_bytes"] = e.stored_size;
    x["compressed"] = e.compression != binary::Compression::none;
    x["compression"] = binary::to_string(e.compression);
    x["uncompressed_bytes"] = e.uncompressed_size;
    x["header_bytes"] = e.header_size;
    x["offset"] = e.offset;
    x["flags"] = e.flags;
    x["section"] = e.section;
    if (!e.member.empty()) x["member"] = e.member;
    if (o.kernels) {
      if (e.target.kind == core::CodeKind::ptx) x["ptx"] = {{"version", e.ptx_version}, {"target", e.ptx_target}};
      json ks = json::array();
      for (const auto& k : e.kernels) ks.push_back(kernel_json(k, e.target.kind == core::CodeKind::sass));
      x["kernels"] = ks;
      if (e.error) x["error"] = *e.error;
    }
    entries.push_back(std::move(x));
  }
  j["entries"] = entries;
  if (o.kernels) {
    // Per kernel, across every fat binary of the file: its images and where it can run.
    json ks = json::array();
    for (const auto& k : binary::kernel_table(f).kernels) {
      json images = json::array();
      for (const auto& t : k.images) images.push_back(t.name());
      ks.push_back({{"name", k.name},
                    {"demangled", binary::demangle(k.name)},
                    {"images", images},
                    {"runs_on", binary::runs_on(k.images)}});
    }
    j["kernel_coverage"] = ks;
  }
  json reloc = json::array();
  for (const auto& e : f.relocatable)
    reloc.push_back({{"kind", core::to_string(e.target.kind)},
                     {"arch", arch_name(e.target)},
                     {"size_bytes", e.stored_size},
                     {"offset", e.offset},
                     {"section", e.section}});
  j["relocatable_entries"] = reloc;
  json lto = json::array();
  for (const auto& e : f.lto_ir)
    lto.push_back(
        {{"arch", arch_name(e.target)}, {"size_bytes", e.stored_size}, {"offset", e.offset}, {"section", e.section}});
  j["lto_ir_entries"] = lto;
  ArchRow total;
  json archs = json::array();
  for (const auto& [a, r] : by_arch(f, total))
    archs.push_back({{"arch", a.sm()},
                     {"sass_count", r.sass_count},
                     {"sass_bytes", r.sass_bytes},
                     {"ptx_count", r.ptx_count},
                     {"ptx_bytes", r.ptx_bytes},
                     {"file_bytes", r.file_bytes},
                     {"uncompressed_bytes", r.uncompressed}});
  j["archs"] = archs;
  j["totals"] = {{"sass_count", total.sass_count}, {"sass_bytes", total.sass_bytes},
                 {"ptx_count", total.ptx_count},   {"ptx_bytes", total.ptx_bytes},
                 {"file_bytes", total.file_bytes}, {"uncompressed_bytes", total.uncompressed}};
  j["notes"] = f.notes;
  if (o.deps && d) {
    json libs = json::array();
    for (const auto& l : d->libraries)
      libs.push_back({{"name", l.name},
                      {"path", l.path ? json(*l.path) : json(nullptr)},
                      {"via", binary::to_string(l.via)},
                      {"needed_by", l.needed_by},
                      {"missing", !l.path && l.via != binary::Via::driver}});
    json needs = json::object();
    for (const auto& [file, vs] : d->abi.version_needs) needs[file] = vs;
    json problems = json::array();
    for (const auto& p : d->version_problems)
      problems.push_back({{"version", p.version}, {"library", p.library}, {"provider", p.provider}});
    j["deps"] = {{"soname", d->soname ? json(*d->soname) : json(nullptr)},
                 {"rpath", d->rpath ? json(*d->rpath) : json(nullptr)},
                 {"runpath", d->runpath ? json(*d->runpath) : json(nullptr)},
                 {"needed", d->needed},
                 {"libraries", libs},
                 {"missing", d->missing()},
                 {"cxx_abi", d->abi.cxx_abi},
                 {"max_glibc", d->abi.max_glibc},
                 {"max_glibcxx", d->abi.max_glibcxx},
                 {"version_needs", needs},
                 {"version_problems", problems},
                 {"error", d->error ? json(*d->error) : json(nullptr)}};
    if (o.undefined) j["deps"]["undefined"] = d->undefined;
  }
  return j;
}

namespace {

// --kernels: each image with its kernels and their resources, then where each kernel can run.
void print_kernels(std::ostream& out, const binary::FileReport& f) {
  for (const auto& e : f.entries) {
    const bool sass = e.target.kind == core::CodeKind::sass;
    out << fmt::format("  {} {} at {:#x}{}{}:\n", arch_name(e.target), sass ? "SASS" : "PTX", e.offset,
                       e.member.empty() ? "" : " in " + e.member,
                       sass ? "" : fmt::format(" (.version {}, .target {})", e.ptx_version, e.ptx_target));
    if (e.error) out << fmt::format("    error: {}\n", *e.error);
    for (const auto& k : e.kernels) {
      if (sass)
        out << fmt::format("    {} regs {} shared {} stack {} local {}  {}{}\n", k.name,
                           k.registers ? std::to_string(*k.registers) : "?", k.shared_bytes, k.stack_bytes,
                           k.local_bytes, k.demangled, k.entry ? "" : " [device function]");
      else
        out << fmt::format("    .entry {}  {}\n", k.name, k.demangled);
    }
  }
  const auto table = binary::kernel_table(f);
  if (!table.kernels.empty()) out << fmt::format("  kernels ({}), where each can run:\n", table.kernels.size());
  for (const auto& k : table.kernels)
    out << fmt::format("    {}  {}\n", binary::demangle(k.name), fmt::join(binary::runs_on(k.images), ", "));
}

// --deps: what the file needs and where the loader finds it, its C++ ABI and symbol versions.
void print_deps(std::ostream& out, const binary::DepsReport& dr, const RenderOptions& o) {
  const binary::DepsReport* d = &dr;
  if (d->error) out << fmt::format("  deps: error: {}\n", *d->error);
  for (const auto& l : d->libraries) {
    if (l.path)
      out << fmt::format("  needs {} -> {} ({}{})\n", l.name, *l.path, binary::to_string(l.via),
                         l.needed_by == d->path ? "" : ", for " + l.needed_by);
    else if (l.via == binary::Via::driver)
      out << fmt::format("  needs {} -> provided by the NVIDIA driver at run time\n", l.name);
    else
      out << fmt::format("  needs {} -> MISSING (needed by {}; searched {})\n", l.name, l.needed_by,
                         l.searched.empty() ? std::string("nothing") : fmt::format("{}", fmt::join(l.searched, ", ")));
  }
  std::vector<std::string> highest;
  for (const auto* v : {&d->abi.max_glibc, &d->abi.max_glibcxx})
    if (!v->empty()) highest.push_back(*v);
  out << fmt::format("  C++ ABI: {}{}\n", d->abi.cxx_abi,
                     highest.empty() ? "" : fmt::format("; needs {}", fmt::join(highest, ", ")));
  for (const auto& p : d->version_problems)
    out << fmt::format("  version {} of {} is not defined by {}\n", p.version, p.library, p.provider);
  if (o.undefined) {
    out << fmt::format("  undefined symbols no resolved library defines: {}\n", d->undefined.size());
    for (const auto& u : d->undefined) out << "    " << u << "  " << binary::demangle(u.substr(0, u.find('@'))) << "\n";
  }
}

}  // namespace

void print_file(std::ostream& out, const binary::FileReport& f, const std::optional<binary::DepsReport>& d,
                const RenderOptions& o) {
  if (f.error) {
    // Errors name their file already ("PATH: offset 0x..: ..."); do not say the path twice.
    std::string_view e = *f.error;
    if (e.rfind(f.path + ": ", 0) == 0) e.remove_prefix(f.path.size() + 2);
    out << fmt::format("{}: error: {}\n", f.path, e);
  } else if (!f.has_cuda()) {
    out << fmt::format("{}: no CUDA code ({}{})\n", f.path,
                       f.format == binary::FileFormat::other ? "not an ELF, archive, wheel, cubin or fatbin"
                                                             : binary::to_string(f.format),
                       f.members_scanned ? fmt::format(", {} members read", f.members_scanned) : "");
  } else {
    out << fmt::format("{} ({}, {}): {}{} of CUDA code\n", f.path, binary::to_string(f.format),
                       human_bytes(f.file_size),
                       f.format == binary::FileFormat::cubin
                           ? std::string()
                           : fmt::format("{} fat binar{}, ", f.containers, f.containers == 1 ? "y" : "ies"),
                       human_bytes(f.fatbin_bytes));
    ArchRow total;
    auto rows = by_arch(f, total);
    auto bytes = [](std::uint64_t count, std::uint64_t b) { return count ? human_bytes(b) : std::string("-"); };
    if (o.sizes) {
      out << fmt::format("  {:<10} {:>6} {:>11} {:>6} {:>11} {:>11} {:>7} {:>13}\n", "arch", "SASS", "bytes", "PTX",
                         "bytes", "in file", "% file", "uncompressed");
    } else {
      out << fmt::format("  {:<10} {:>6} {:>11} {:>6} {:>11}\n", "arch", "SASS", "bytes", "PTX", "bytes");
    }
    // --sizes: every byte of the file in exactly one row, so the shares add up to 100%.
    const SizeParts parts = size_parts(f, rows);
    const auto share = tenths_of_percent(parts.bytes);
    int total_share = 0;
    auto line = [&](const std::string& name, const ArchRow& r, int tenths) {
      out << fmt::format("  {:<10} {:>6} {:>11} {:>6} {:>11}", name, r.sass_count, bytes(r.sass_count, r.sass_bytes),
                         r.ptx_count, bytes(r.ptx_count, r.ptx_bytes));
      if (o.sizes)
        out << fmt::format(" {:>11} {:>4}.{}% {:>13}", human_bytes(r.file_bytes), tenths / 10, tenths % 10,
                           human_bytes(r.uncompressed));
      out << "\n";
    };
    std::size_t i = 0;
    for (const auto& [a, r] : rows) {
      total_share += share[i];
      line(a.sm(), r, share[i++]);
    }
    line("total", total, total_share);
    // Archives and wheels: which members carry the code.
    if (f.format == binary::FileFormat::archive || f.format == binary::FileFormat::wheel) {
      std::vector<std::string> order;
      std::map<std::string, core::TargetSet> by_member;
      for (const auto& e : f.entries) {
        if (!by_member.count(e.member)) order.push_back(e.member);
        by_member[e.member].add(e.target);
      }
      for (const auto& m : order) {
        std::string list;
        for (const auto& t : by_member[m]) {
          if (!list.empty()) list += ' ';
          list += arch_name(t);
          if (t.kind == core::CodeKind::ptx) list += "(ptx)";
        }
        out << fmt::format("  member {}: {}\n", m, list);
      }
    }
    if (o.sizes)
      for (std::size_t k = rows.size(); k < parts.bytes.size(); ++k)
        if (parts.bytes[k])
          out << fmt::format("  {}: {} ({}.{}%)\n", parts.names[k], human_bytes(parts.bytes[k]), share[k] / 10,
                             share[k] % 10);
    if (o.kernels) print_kernels(out, f);
  }
  if (!f.relocatable.empty()) {
    core::TargetSet rs;
    for (const auto& e : f.relocatable) rs.add(e.target);
    std::string archs;
    for (const auto& t : rs)
      archs += (archs.empty() ? "" : ", ") + arch_name(t) + (t.kind == core::CodeKind::ptx ? " PTX" : "");
    out << fmt::format(
        "  plus {} relocatable device-code entr{} in __nv_relfatbin ({}): for device linking, never loaded at run "
        "time\n",
        f.relocatable.size(), f.relocatable.size() == 1 ? "y" : "ies", archs);
  }
  if (!f.lto_ir.empty()) {
    core::TargetSet ls;
    for (const auto& e : f.lto_ir) ls.add(e.target);
    std::string archs;
    for (const auto& t : ls) archs += (archs.empty() ? "lto_" : ", lto_") + std::to_string(t.arch.number);
    out << fmt::format("  plus {} LTO IR entr{} ({}): linked by nvJitLink at run time, never loaded as is\n",
                       f.lto_ir.size(), f.lto_ir.size() == 1 ? "y" : "ies", archs);
  }
  for (const auto& n : f.notes) out << fmt::format("  note: {}\n", n);
  if (o.deps && d && d->is_elf) print_deps(out, *d, o);
}

}  // namespace kiln::cli
