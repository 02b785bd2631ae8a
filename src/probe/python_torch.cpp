#include "probe/python_torch.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/data.hpp"
#include "io/isolated_python.hpp"
#include "probe/externally_managed.hpp"

namespace kiln::probe {

// The programs are data/python_probe.py and data/torch_import.py (what each finds is said there).
const std::string& python_probe_script() {
  static const std::string s(data::file("python_probe.py").value_or(""));
  return s;
}

const std::string& torch_import_script() {
  static const std::string s(data::file("torch_import.py").value_or(""));
  return s;
}

PythonInfo parse_python_probe(const std::string& text) {
  PythonInfo p;
  // The JSON is the last line; anything before it was printed by site hooks.
  auto start = text.rfind("\n{");
  auto j = nlohmann::json::parse(start == std::string::npos ? text : text.substr(start + 1), nullptr, false);
  if (!j.is_object()) {
    p.error = "the probe printed no JSON: " + first_line(text);
    return p;
  }
  p.version = j.value("python", "");
  for (const auto& sp : j.value("site_packages", nlohmann::json::array()))
    if (sp.is_string()) p.site_packages.push_back(sp.get<std::string>());
  if (j.contains("torch") && j["torch"].is_object()) {
    TorchInfo ti;
    ti.path = j["torch"].value("path", "");
    p.torch = ti;
  }
  return p;
}

void check_torch_cuda(const std::string& torch_cuda, const Version& nvcc, const std::string& nvcc_path, Findings& out) {
  auto tv = parse_version(torch_cuda);
  if (!tv) return;
  const std::string nv = fmt::format("{}.{}", nvcc.major(), nvcc.minor());  // as cpp_extension prints it
  if (tv->major() != nvcc.major())
    out.push_back(
        {Severity::error, "python", "python.torch-cuda-major-mismatch",
         fmt::format("torch was built with CUDA {} but nvcc ({}) is CUDA {}: torch.utils.cpp_extension refuses "
                     "to build (\"The detected CUDA version ({}) mismatches the version that was used to compile "
                     "PyTorch ({})\").",
                     torch_cuda, nvcc_path, nv, nv, torch_cuda),
         fmt::format("install CUDA {}.{} and export CUDA_HOME=/usr/local/cuda-{}.{}, or install a torch built "
                     "for CUDA {}.x",
                     tv->major(), tv->minor(), tv->major(), tv->minor(), nvcc.major())});
  else if (tv->minor() != nvcc.minor())
    out.push_back(
        {Severity::warning, "python", "python.torch-cuda-minor-mismatch",
         fmt::format("torch was built with CUDA {} and nvcc is CUDA {}: cpp_extension builds, with a warning "
                     "about a minor version mismatch; an extension that uses newer CUDA APIs than {} may fail "
                     "to load.",
                     torch_cuda, nv, torch_cuda),
         fmt::format("export CUDA_HOME=/usr/local/cuda-{}.{} if that toolkit is installed", tv->major(), tv->minor())});
}

namespace {

// Runs `import torch` and takes what the files could not tell.
void import_torch(const io::Seams& s, const std::string& python, TorchInfo& t) {
  auto r = s.proc.run(io::isolated_python(python, torch_import_script(), io::PythonSite::needed));
  auto start = r.out.rfind("\n{");
  auto j = nlohmann::json::parse(start == std::string::npos ? r.out : r.out.substr(start + 1), nullptr, false);
  if (!j.is_object()) {
    t.import_error = first_line(r.started ? (r.err.empty() ? r.out : r.err) : r.spawn_error);
    if (t.import_error.empty()) t.import_error = "the import check printed nothing";
    return;
  }
  t.import_error = j.value("import_error", "");
  if (t.version.empty()) t.version = j.value("version", "");
  if (!t.cxx11_abi && j.contains("cxx11_abi") && j["cxx11_abi"].is_boolean()) {
    t.cxx11_abi = j["cxx11_abi"].get<bool>();
    t.cxx11_abi_source = "import torch";
  }
  if (t.arch_list.empty() && j.contains("arch_list") && j["arch_list"].is_array()) {
    for (const auto& a : j["arch_list"])
      if (a.is_string()) t.arch_list.push_back(a.get<std::string>());
    if (!t.arch_list.empty()) t.arch_source = "torch._C._cuda_getArchFlags()";
  }
}

// Calls the callback exactly once: with the early line when it comes, else at the end.
struct SiteNotifier {
  const std::function<void(const std::vector<std::string>&)>& cb;
  bool done = false;
  void operator()(const std::vector<std::string>& sp) {
    if (done) return;
    done = true;
    if (cb) cb(sp);
  }
  ~SiteNotifier() { (*this)({}); }
};

}  // namespace

PythonInfo detect_python(const io::Seams& s, const CudaToolkit& tk, const PythonOptions& o) {
  SiteNotifier notify{o.on_site_packages};
  std::string path, how;
  auto pick = [&](const std::string& cand, const std::string& why) {
    if (!path.empty() || cand.empty()) return;
    if (auto p = io::which(s, cand)) path = *p, how = why;
  };
  pick(o.python, "--python");
  if (auto v = s.env.get("PYTHON")) pick(*v, "PYTHON");
  if (auto v = s.env.get("VIRTUAL_ENV"); v && !v->empty()) pick(*v + "/bin/python", "VIRTUAL_ENV");
  if (auto v = s.env.get("CONDA_PREFIX"); v && !v->empty()) pick(*v + "/bin/python", "CONDA_PREFIX");
  pick("python3", "python3 on PATH");
  pick("python", "python on PATH");
  PythonInfo info;
  if (!o.python.empty() && how != "--python") {
    info.findings.push_back({Severity::error, "python", "python.not-found",
                             "--python " + o.python + " is not an executable file.",
                             "pass the interpreter's full path"});
  }
  if (path.empty()) {
    info.error = "no python interpreter found";
    info.findings.push_back(
        {Severity::note, "python", "python.none",
         "No Python interpreter was found, so PyTorch and cpp_extension builds are not possible here.",
         "install python3, or pass --python /path/to/venv/bin/python"});
    return info;
  }
  io::ProcessSpec spec = io::isolated_python(path, python_probe_script(), io::PythonSite::needed);
  spec.on_line = [&](std::string_view line) {
    if (line.rfind("KILN-SITE ", 0) != 0) return;
    auto j = nlohmann::json::parse(line.substr(10), nullptr, false);
    std::vector<std::string> sp;
    if (j.is_array())
      for (const auto& e : j)
        if (e.is_string()) sp.push_back(e.get<std::string>());
    notify(sp);
  };
  auto r = s.proc.run(spec);
  if (!r.ok()) {
    info.path = path;
    info.how = how;
    info.error = first_line(r.started ? (r.err.empty() ? r.out : r.err) : r.spawn_error);
    info.findings.push_back({Severity::warning, "python", "python.probe-failed",
                             fmt::format("{} could not run kiln's probe: {}", path, info.error),
                             "pass a working interpreter with --python"});
    return info;
  }
  auto parsed = parse_python_probe(r.out);
  notify(parsed.site_packages);
  if (parsed.torch) {
    parsed.torch = read_torch_install(s.fs, parsed.torch->path);
    if (o.import_torch) import_torch(s, path, *parsed.torch);
  }
  parsed.path = path;
  parsed.how = how;
  parsed.findings = std::move(info.findings);
  if (!parsed.error.empty()) {
    parsed.findings.push_back({Severity::warning, "python", "python.probe-failed", path + ": " + parsed.error,
                               "pass a working interpreter with --python"});
    return parsed;
  }
  if (auto marker = externally_managed(s, path))
    parsed.findings.push_back(
        {Severity::warning, "python", "python.externally-managed",
         fmt::format(
             "{} is externally managed ({}, PEP 668): pip refuses to install the extensions kiln builds for it.", path,
             *marker),
         externally_managed_fix(path)});
  if (!parsed.torch) {
    parsed.findings.push_back({Severity::note, "python", "python.no-torch",
                               fmt::format("torch is not installed for {} ({}).", path, parsed.version),
                               "pip install torch, or pass the venv that has it: --python /path/to/venv/bin/python"});
    return parsed;
  }
  const auto& t = *parsed.torch;
  if (t.version.empty())
    parsed.findings.push_back({Severity::warning, "python", "python.torch-unreadable",
                               fmt::format("torch is installed at {} but its version could not be read{}", t.path,
                                           t.notes.empty() ? "" : ": " + t.notes.front()),
                               "reinstall torch in this environment (pip install --force-reinstall torch)"});
  if (!t.import_error.empty())
    parsed.findings.push_back(
        {Severity::error, "python", "python.torch-import-failed",
         fmt::format("torch {} is installed at {} but `import torch` fails: {}", t.version, t.path, t.import_error),
         "reinstall torch in this environment (pip install --force-reinstall torch)"});
  if (t.cuda.empty()) {
    if (tk.found)
      parsed.findings.push_back(
          {Severity::warning, "python", "python.torch-cpu-only",
           fmt::format("torch {} is a CPU-only build, so CUDA extensions built here cannot run with it.", t.version),
           "pip install torch --index-url https://download.pytorch.org/whl/cu<XY>"});
  } else if (tk.version && !tk.nvcc.empty()) {
    check_torch_cuda(t.cuda, *tk.version, tk.nvcc, parsed.findings);
  }
  if (t.cxx11_abi && !*t.cxx11_abi)
    parsed.findings.push_back({Severity::note, "python", "python.torch-old-abi",
                               "torch uses the pre-C++11 libstdc++ ABI (_GLIBCXX_USE_CXX11_ABI=0); C++ code linked "
                               "against libtorch outside cpp_extension must be compiled the same way.",
                               "add -D_GLIBCXX_USE_CXX11_ABI=0 to CXXFLAGS for code that links libtorch"});
  return parsed;
}

}  // namespace kiln::probe
