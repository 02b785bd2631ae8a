#include "probe/cuda_toolkit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/text.hpp"
#include "probe/nvcc.hpp"
#include "probe/run_tool.hpp"

namespace kiln::probe {
namespace {

// cuda.h lives in include/ of a runfile install and in targets/<triple>/include of packaged ones.
std::optional<std::string> find_cuda_h(const io::Filesystem& fs, const std::string& root) {
  for (const char* sub : {"/include", "/targets/x86_64-linux/include", "/targets/sbsa-linux/include"})
    if (fs.exists(root + sub + "/cuda.h")) return root + sub;
  return std::nullopt;
}

std::optional<Version> file_version(const io::Filesystem& fs, const std::string& root) {
  if (auto text = fs.read(root + "/version.json"))
    if (auto v = version_json_cuda(*text))
      if (auto pv = parse_version(*v)) return pv;
  if (auto inc = find_cuda_h(fs, root))
    if (auto text = fs.read(*inc + "/cuda.h")) return cuda_h_version(*text);
  return std::nullopt;
}

bool same_minor(const Version& a, const Version& b) { return a.major() == b.major() && a.minor() == b.minor(); }

std::string mm(const Version& v) { return fmt::format("{}.{}", v.major(), v.minor()); }

}  // namespace

std::optional<std::string> version_json_cuda(const std::string& text) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  auto it = j.find("cuda");
  if (it == j.end() || !it->is_object()) return std::nullopt;
  auto v = it->find("version");
  if (v == it->end() || !v->is_string()) return std::nullopt;
  return v->get<std::string>();
}

std::optional<Version> cuda_h_version(const std::string& text) {
  auto n = header_define_int(text, "CUDA_VERSION");
  if (!n || *n < 1000) return std::nullopt;
  return Version{{static_cast<int>(*n / 1000), static_cast<int>(*n % 1000 / 10)}};
}

namespace {

// Every folder that may be a CUDA root, in the order tools look: CUDA_HOME, CUDA_PATH, nvcc on
// PATH, /usr/local/cuda, then /usr/local/cuda-* newest first.
void find_candidates(const io::Seams& s, const std::string& sysroot, CudaToolkit& tk) {
  auto add = [&](std::string path, std::string how) {
    path = core::without_trailing_slashes(std::move(path));
    for (const auto& c : tk.candidates)
      if (c.path == path) return;
    if (!s.fs.is_directory(path)) return;
    ToolkitRoot r{path, how, s.fs.is_executable(path + "/bin/nvcc"), file_version(s.fs, path)};
    tk.candidates.push_back(r);
  };
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (auto v = s.env.get(var); v && !v->empty()) {
      add(*v, var);
      if (!s.fs.is_directory(*v))
        tk.findings.push_back({Severity::warning, "cuda", "cuda.env-root-missing",
                               fmt::format("{}={} is not a folder, so builds that read it find no toolkit.", var, *v),
                               fmt::format("export {}=<your CUDA root> (or unset it)", var)});
    }
  if (auto p = io::which(s, "nvcc")) add(core::dir_name(core::dir_name(*p)), "nvcc on PATH");
  add(sysroot + "/usr/local/cuda", "/usr/local/cuda");
  std::vector<std::string> versioned;
  for (const auto& name : s.fs.list(sysroot + "/usr/local"))
    if (name.rfind("cuda-", 0) == 0) versioned.push_back(name);
  std::sort(versioned.rbegin(), versioned.rend());
  for (const auto& name : versioned) add(sysroot + "/usr/local/" + name, "/usr/local/cuda-*");
}

// The toolkit's version as each of its files says it: nvcc --version, version.json, cuda.h.
void read_versions(const io::Seams& s, CudaToolkit& tk) {
  if (!tk.nvcc.empty()) {
    auto r = run_tool(s.proc, {tk.nvcc, "--version"});
    VersionReading vr{"nvcc --version", tk.nvcc, "", std::nullopt};
    if (r.ok())
      if (auto rel = parse_nvcc_release(r.out)) {
        vr.raw = *rel;
        vr.version = parse_version(*rel);
      }
    if (!vr.version)
      tk.findings.push_back({Severity::error, "cuda", "cuda.nvcc-broken",
                             fmt::format("{} --version did not report a release ({}).", tk.nvcc,
                                         r.started ? first_line(r.err.empty() ? r.out : r.err) : r.spawn_error),
                             "reinstall the CUDA toolkit's nvcc (package cuda-nvcc-<major>-<minor>)"});
    tk.versions.push_back(vr);
  } else {
    tk.findings.push_back(
        {Severity::error, "cuda", "cuda.no-nvcc",
         fmt::format("The toolkit at {} has headers but no bin/nvcc, so no CUDA source can be compiled.", tk.root),
         "install nvcc (package cuda-nvcc-<major>-<minor>) or point CUDA_HOME at a full toolkit"});
  }
  if (auto text = s.fs.read(tk.root + "/version.json")) {
    VersionReading vr{"version.json", tk.root + "/version.json", "", std::nullopt};
    if (auto v = version_json_cuda(*text)) {
      vr.raw = *v;
      vr.version = parse_version(*v);
    }
    tk.versions.push_back(vr);
  }
  if (auto inc = find_cuda_h(s.fs, tk.root)) {
    tk.include_dir = *inc;
    VersionReading vr{"cuda.h CUDA_VERSION", *inc + "/cuda.h", "", std::nullopt};
    if (auto text = s.fs.read(*inc + "/cuda.h")) {
      vr.raw = header_define(*text, "CUDA_VERSION").value_or("");
      vr.version = cuda_h_version(*text);
    }
    tk.versions.push_back(vr);
  } else {
    tk.findings.push_back(
        {Severity::error, "cuda", "cuda.no-headers",
         fmt::format("No cuda.h under {}/include or {}/targets/*/include: CMake cannot configure CUDA.", tk.root,
                     tk.root),
         "install the toolkit's development headers (package cuda-cudart-dev-<major>-<minor>)"});
  }
}

// Readings that disagree (a toolkit of two releases), and roots that disagree with the one chosen.
void agreement_findings(CudaToolkit& tk, const ToolkitRoot* chosen) {
  // Disagreement among the readings: a toolkit assembled from two releases.
  std::vector<const VersionReading*> known;
  for (const auto& v : tk.versions)
    if (v.version) known.push_back(&v);
  for (size_t i = 1; i < known.size(); ++i)
    if (!same_minor(*known[0]->version, *known[i]->version)) {
      tk.findings.push_back(
          {Severity::error, "cuda", "cuda.version-mismatch",
           fmt::format("{} says CUDA {} but {} says {}: the toolkit at {} mixes two releases, which CMake reports as "
                       "\"FindCUDA says version X but headers say version Y\".",
                       known[0]->source, mm(*known[0]->version), known[i]->source, mm(*known[i]->version), tk.root),
           "reinstall one CUDA release into a clean folder and point CUDA_HOME at it"});
      break;
    }
  // Roots that disagree with the chosen one: a shell where CUDA_HOME and PATH name different toolkits.
  for (const auto& c : tk.candidates)
    if (&c != chosen && c.version && tk.version && !same_minor(*c.version, *tk.version) &&
        (c.how == "CUDA_HOME" || c.how == "CUDA_PATH" || c.how == "nvcc on PATH"))
      tk.findings.push_back(
          {Severity::warning, "cuda", "cuda.roots-disagree",
           fmt::format("{} ({}) is CUDA {} but the toolkit in use ({}, via {}) is CUDA {}; tools that "
                       "read {} will mix them.",
                       c.how, c.path, mm(*c.version), tk.root, tk.how, mm(*tk.version), c.how),
           fmt::format("export CUDA_HOME={} PATH={}/bin:$PATH", tk.root, tk.root)});
}

}  // namespace

CudaToolkit detect_cuda_toolkit(const io::Seams& s, const std::string& sysroot) {
  CudaToolkit tk;
  find_candidates(s, sysroot, tk);
  // The first root with nvcc wins (that is what find_nvcc and PyTorch's CUDA_HOME logic pick);
  // failing that, the first with headers.
  const ToolkitRoot* chosen = nullptr;
  for (const auto& c : tk.candidates)
    if (c.has_nvcc) {
      chosen = &c;
      break;
    }
  for (const auto& c : tk.candidates)
    if (!chosen && find_cuda_h(s.fs, c.path)) chosen = &c;
  if (!chosen) {
    tk.findings.push_back({Severity::error, "cuda", "cuda.not-found",
                           "No CUDA toolkit was found in CUDA_HOME, CUDA_PATH, PATH or /usr/local/cuda*, so nothing "
                           "with CUDA can be built.",
                           "install the CUDA toolkit and export CUDA_HOME=/usr/local/cuda-<version>"});
    return tk;
  }
  tk.found = true;
  tk.root = chosen->path;
  tk.how = chosen->how;
  if (chosen->has_nvcc) tk.nvcc = tk.root + "/bin/nvcc";
  for (const char* sub :
       {"/lib64", "/lib", "/targets/x86_64-linux/lib", "/targets/sbsa-linux/lib", "/extras/CUPTI/lib64"})
    if (s.fs.is_directory(tk.root + sub)) tk.lib_dirs.push_back(tk.root + sub);

  read_versions(s, tk);
  for (const auto& v : tk.versions)
    if (v.version && (!tk.version || v.version->parts.size() > tk.version->parts.size())) tk.version = v.version;

  agreement_findings(tk, chosen);
  if (tk.how != "CUDA_HOME" && !s.env.get("CUDA_HOME"))
    tk.findings.push_back({Severity::note, "cuda", "cuda.home-unset",
                           fmt::format("CUDA_HOME is not set; PyTorch's cpp_extension will guess the toolkit from nvcc "
                                       "on PATH or /usr/local/cuda, which here is {}.",
                                       tk.root),
                           fmt::format("export CUDA_HOME={}", tk.root)});
  return tk;
}

}  // namespace kiln::probe
