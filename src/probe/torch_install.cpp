#include "probe/torch_install.hpp"

#include <algorithm>
#include <regex>
#include <set>

#include "binary/elf.hpp"
#include "binary/inspect.hpp"
#include "binary/mapped_file.hpp"
#include "probe/version_text.hpp"

namespace kiln::probe {
namespace {

// The value of a Python literal as version.py writes it: 'x' / "x", None, True, False.
std::optional<std::string> py_literal(std::string v) {
  v = trim(v);
  if (v.size() >= 2 && (v.front() == '\'' || v.front() == '"') && v.back() == v.front())
    return v.substr(1, v.size() - 2);
  if (v == "None") return std::string();
  if (v == "True" || v == "False") return v;
  return std::nullopt;
}

// Whether libc10.so was built with the C++11 ABI, from its exported C++ symbols: the new ABI
// mangles std::string as std::__cxx11::basic_string, the old one as `Ss`. nullopt when neither shows.
std::optional<bool> abi_from_symbols(const std::string& lib, std::string& note) {
  auto blob = binary::map_file(lib);
  if (!blob) {
    note = blob.error();
    return std::nullopt;
  }
  auto elf = binary::Elf::parse((*blob)->bytes());
  if (!elf) {
    note = elf.error().to_string();
    return std::nullopt;
  }
  auto syms = elf->dynamic_symbols();
  if (!syms) {
    note = syms.error().to_string();
    return std::nullopt;
  }
  bool old_string = false;
  for (const auto& s : *syms) {
    if (!s.defined() || s.name.substr(0, 2) != "_Z") continue;
    if (s.name.find("St7__cxx11") != std::string_view::npos) return true;
    // `Ss` after a nested-name or parameter boundary; an identifier's own letters follow its length.
    if (s.name.find("ESs") != std::string_view::npos || s.name.find("RKSs") != std::string_view::npos)
      old_string = true;
  }
  if (old_string) return false;
  return std::nullopt;
}

bool is_torch_cuda_lib(const std::string& name) {
  // libtorch_cuda.so, and the libtorch_cuda_cu.so / libtorch_cuda_cpp.so split of torch 1.10-1.13.
  return name.rfind("libtorch_cuda", 0) == 0 && name.size() > 3 && name.compare(name.size() - 3, 3, ".so") == 0;
}

}  // namespace

bool parse_torch_version_py(const std::string& text, TorchInfo& out) {
  static const std::regex line(R"(^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?::[^=]*)?=\s*(.*?)\s*$)");
  bool found = false;
  size_t pos = 0;
  while (pos <= text.size()) {
    auto end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    const std::string l = text.substr(pos, end - pos);
    pos = end + 1;
    std::smatch m;
    if (!std::regex_match(l, m, line)) continue;
    auto v = py_literal(m[2].str());
    if (!v) continue;
    const std::string key = m[1].str();
    if (key == "__version__")
      out.version = *v, found = true;
    else if (key == "cuda")
      out.cuda = *v;
    else if (key == "git_version")
      out.git_version = *v;
    else if (key == "debug" && (*v == "True" || *v == "False"))
      out.debug = *v == "True";
  }
  return found;
}

std::optional<bool> abi_from_torch_config(const std::string& text) {
  static const std::regex flag(R"(-D_GLIBCXX_USE_CXX11_ABI=([01])\b)");
  std::smatch m;
  if (!std::regex_search(text, m, flag)) return std::nullopt;
  return m[1].str() == "1";
}

TorchInfo read_torch_install(const io::Filesystem& fs, const std::string& dir) {
  TorchInfo t;
  t.path = dir;
  if (auto v = fs.read(dir + "/version.py")) {
    if (!parse_torch_version_py(*v, t)) t.notes.push_back(dir + "/version.py has no __version__");
  } else {
    t.notes.push_back("cannot read " + dir + "/version.py");
  }

  const std::string lib = dir + "/lib";
  if (auto cfg = fs.read(dir + "/share/cmake/Torch/TorchConfig.cmake"); cfg && abi_from_torch_config(*cfg)) {
    t.cxx11_abi = abi_from_torch_config(*cfg);
    t.cxx11_abi_source = "TorchConfig.cmake";
  } else if (fs.exists(lib + "/libc10.so")) {
    std::string note;
    t.cxx11_abi = abi_from_symbols(lib + "/libc10.so", note);
    if (t.cxx11_abi)
      t.cxx11_abi_source = "libc10.so symbols";
    else if (!note.empty())
      t.notes.push_back(note);
  }

  std::set<std::string> archs;
  std::vector<std::string> read;
  for (const auto& name : fs.list(lib)) {
    if (!is_torch_cuda_lib(name)) continue;
    auto r = binary::inspect_file(lib + "/" + name);
    if (r.error) {
      t.notes.push_back(*r.error);
      continue;
    }
    read.push_back(name);
    for (const auto& e : r.entries) archs.insert(e.target.name());
  }
  // Sorted as TargetSet sorts (by number, then variant, SASS before PTX), not as strings.
  core::TargetSet set;
  for (const auto& a : archs)
    if (auto arch = core::parse_arch_name(a))
      set.add(core::Target{*arch, a.rfind("compute_", 0) == 0 ? core::CodeKind::ptx : core::CodeKind::sass});
  for (const auto& tg : set) t.arch_list.push_back(tg.name());
  for (const auto& n : read) t.arch_source += (t.arch_source.empty() ? "" : ", ") + n;
  return t;
}

}  // namespace kiln::probe
