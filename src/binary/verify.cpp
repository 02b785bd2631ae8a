#include "binary/verify.hpp"

#include <algorithm>
#include <thread>

#include <fmt/format.h>

#include "binary/deps.hpp"
#include "binary/elf.hpp"
#include "core/text.hpp"
#include "binary/file_walk.hpp"
#include "binary/inspect.hpp"
#include "binary/vendor.hpp"
#include "core/arch_spec.hpp"
#include "core/name_table.hpp"

namespace kiln::binary {
namespace {

bool is_torch_core(const std::string& name) {
  return name.rfind("libc10.so", 0) == 0 || name.rfind("libtorch_cpu.so", 0) == 0 || name.rfind("libtorch.so", 0) == 0;
}

// x86-64 code judged for a GPU that only comes with an Arm CPU: it never loads there.
std::optional<Problem> wrong_cpu(const FileReport& f, const core::GpuModel& m, const std::string& gpu) {
  if (!m.aarch64_only || f.machine == 0 || f.machine == kEmAarch64) return std::nullopt;
  return Problem{
      f.path, gpu, ProblemKind::wrong_cpu,
      fmt::format("{} code cannot load on {}, whose CPU is aarch64 (whatever GPU code it holds)",
                  machine_name(f.machine), m.name),
      vendor_library(f.path)
          ? "install NVIDIA's aarch64 build of it (JetPack / L4T on a Jetson, the aarch64 wheel or sbsa toolkit on "
            "Grace)"
          : "build it on or for aarch64 (on the device, or cross-compiled against its JetPack / L4T or Grace image)"};
}

// What to do about a missing image: rebuild the user's code, or for NVIDIA's own libraries, get a
// release of the library built for the GPU.
std::string image_fix(const std::string& path, const core::TargetSet& have, int cc) {
  if (auto lib = vendor_library(path)) return vendor_fix(path, *lib, cc);
  return rebuild_hint(have, cc);
}

void judge_gpu(const FileReport& f, const std::string& name, const core::GpuModel& model,
               const std::optional<KernelTable>& table, const VerifyOptions& opt, FileVerdict& v, VerifyReport& rep) {
  auto c = core::coverage(v.targets, model.cc);
  GpuVerdict gv{name, model, c, std::nullopt};
  if (table) gv.kernels = kernel_coverage(*table, model.cc);
  gv.no_kernels = table && table->kernels.empty();
  v.gpus.push_back(gv);
  const std::string gpu = fmt::format("{} (cc {})", model.name, core::cc_string(model.cc));
  if (auto p = wrong_cpu(f, model, gpu)) {
    rep.problems.push_back(*p);
    return;
  }
  if (gv.no_kernels) return;
  const std::string fix = image_fix(f.path, v.targets, model.cc);
  if (c.verdict == core::Verdict::none) {
    std::string have;
    for (const auto& t : v.targets) have += (have.empty() ? "" : ", ") + t.name();
    rep.problems.push_back(
        {f.path, gpu, ProblemKind::no_kernel,
         fmt::format("no kernel image runs here (has {}){}", have,
                     table ? fmt::format("; none of its {} kernels can launch", table->kernels.size()) : ""),
         fix});
    return;
  }
  if (!gv.kernels || gv.kernels->missing.empty()) return;
  const auto& kc = *gv.kernels;
  const std::size_t shown = opt.kernel_names == 0 ? kc.missing.size() : std::min(kc.missing.size(), opt.kernel_names);
  std::vector<std::string> names;
  for (std::size_t k = 0; k < shown; ++k) names.push_back(demangle(kc.missing[k]));
  rep.problems.push_back(
      {f.path, gpu, ProblemKind::kernel_missing,
       fmt::format(
           "{} of {} kernels have no image that runs here{} (the file's {} serves the others): {}{}", kc.missing.size(),
           kc.total,
           c.verdict == core::Verdict::ptx_jit ? ", where only PTX can run"
                                               : " though built for every other architecture family of the file",
           c.via ? c.via->name() : std::string("image"), fmt::format("{}", fmt::join(names, "; ")),
           shown < kc.missing.size() ? fmt::format("; ... ({} more, --all names every one)", kc.missing.size() - shown)
                                     : ""),
       fix});
}

}  // namespace

bool build_system_file(const std::string& path) {
  return path.find("/CMakeFiles/") != std::string::npos || path.rfind("CMakeFiles/", 0) == 0;
}

std::string rebuild_hint(const core::TargetSet& have, int cc) {
  const std::string list = rebuild_arch_list(have, cc);
  const bool torch = list.find('.') != std::string::npos;
  return fmt::format("rebuild with {}=\"{}\" (nvcc: -gencode arch=compute_{},code=sm_{})",
                     torch ? "TORCH_CUDA_ARCH_LIST" : "CMAKE_CUDA_ARCHITECTURES", list, cc, cc);
}

namespace {

constexpr core::NameTable<ProblemKind, 9> kProblemKindNames{{{{ProblemKind::no_kernel, "no-kernel"},
                                                              {ProblemKind::kernel_missing, "kernel-missing"},
                                                              {ProblemKind::missing_library, "missing-library"},
                                                              {ProblemKind::abi_mismatch, "abi-mismatch"},
                                                              {ProblemKind::symbol_version, "symbol-version"},
                                                              {ProblemKind::undefined_symbol, "undefined-symbol"},
                                                              {ProblemKind::unreadable, "unreadable"},
                                                              {ProblemKind::no_cuda, "no-cuda"},
                                                              {ProblemKind::wrong_cpu, "wrong-cpu"}}}};

}  // namespace

std::string_view to_string(ProblemKind k) { return kProblemKindNames.name(k, "problem"); }

std::optional<ProblemKind> problem_kind_from(std::string_view s) { return kProblemKindNames.find(s); }

std::string Problem::line() const {
  return fmt::format("{}: {}{}{}", file, gpu.empty() ? "" : gpu + ": ", why, fix.empty() ? "" : "; " + fix);
}

std::string rebuild_arch_list(const core::TargetSet& have, int cc) {
  core::TargetSet want;
  for (const auto& t : have) {
    want.add(t);
    // PTX stays (the forward compatibility it gives is why it was built); torch spells it `X+PTX`,
    // which builds the SASS of X too.
    if (t.kind == core::CodeKind::ptx) want.add(core::Target{t.arch, core::CodeKind::sass});
  }
  want.add(core::Target{core::Arch{cc, core::Variant::none}, core::CodeKind::sass});
  // TORCH_CUDA_ARCH_LIST keeps what torch can spell (not `f` variants); the GPU's own arch decides.
  auto [spellable, rest] = core::split_for_torch(want);
  if (spellable.contains(core::Target{core::Arch{cc}, core::CodeKind::sass}))
    if (auto torch = core::format_torch(spellable)) return *torch;
  return core::format_cmake(want);
}

namespace {

// What the loader will say about one file: missing libraries, symbol versions, the C++ ABI
// against the libtorch it loads, and undefined symbols.
void add_deps_problems(const std::string& path, bool python_module, const DepsReport& d, const std::string& torch_abi,
                       const std::string& torch_path, const VerifyOptions& opt, VerifyReport& rep) {
  if (d.error) rep.problems.push_back({path, "", ProblemKind::unreadable, *d.error, ""});
  for (const auto& lib : d.libraries) {
    if (lib.path || lib.via == Via::driver) continue;
    rep.problems.push_back(
        {path, "", ProblemKind::missing_library,
         fmt::format("needs {} (through {}), which is not found{}", lib.name,
                     lib.needed_by == d.path ? "itself" : lib.needed_by,
                     opt.root.empty() ? "" : " in the image at " + opt.root),
         fmt::format(
             "install it where the loader looks, or add its folder to LD_LIBRARY_PATH or the RUNPATH (searched: {})",
             lib.searched.empty() ? std::string("ld.so.cache and the default folders")
                                  : fmt::format("{}", fmt::join(lib.searched, ", ")))});
  }
  for (const auto& p : d.version_problems)
    rep.problems.push_back({path, "", ProblemKind::symbol_version,
                            fmt::format("needs {} from {}, which {} does not define", p.version, p.library, p.provider),
                            "build against an older toolchain/sysroot or ship a newer " + p.library});
  if (!torch_abi.empty() && torch_abi != "none" && d.abi.cxx_abi != "both" && torch_abi != "both" &&
      torch_abi != d.abi.cxx_abi) {
    const int want = torch_abi == "cxx11" ? 1 : 0;
    rep.problems.push_back(
        {path, "", ProblemKind::abi_mismatch,
         fmt::format("uses the {} C++ string ABI but {} uses {}", d.abi.cxx_abi, torch_path, torch_abi),
         fmt::format("rebuild with -D_GLIBCXX_USE_CXX11_ABI={} (torch.compiled_with_cxx11_abi() is {})", want,
                     want ? "True" : "False")});
  }
  // Undefined symbols: an import error for extensions; for other libraries only when asked.
  if ((opt.undefined || python_module) && d.missing() == 0 && !d.undefined.empty()) {
    const std::size_t shown = std::min<std::size_t>(d.undefined.size(), 5);
    std::vector<std::string> names(d.undefined.begin(), d.undefined.begin() + static_cast<long>(shown));
    rep.problems.push_back({path, "", ProblemKind::undefined_symbol,
                            fmt::format("{} undefined symbol{} that no resolved library defines: {}{}",
                                        d.undefined.size(), d.undefined.size() == 1 ? "" : "s", fmt::join(names, ", "),
                                        d.undefined.size() > shown ? ", ..." : ""),
                            "rebuild against the libraries it will load (same torch version), or add the missing "
                            "library to its link line"});
  }
}

}  // namespace

VerifyReport verify_files(const std::vector<std::string>& paths,
                          const std::vector<std::pair<std::string, core::GpuModel>>& gpus, const VerifyOptions& opt,
                          const io::Seams& s) {
  VerifyReport rep;
  auto walk = walk_paths(paths, s.fs);
  for (const auto& m : walk.missing)
    rep.problems.push_back({m, "", ProblemKind::unreadable, "no such file or folder", ""});
  for (const auto& [path, kind] : walk.special) rep.notes.push_back(path + ": skipped: " + kind + ", not a file");
  // A file named on the command line is always checked; inside folders, what the build system
  // made for itself is not a product.
  auto named = [&](const std::string& f) {
    return std::any_of(paths.begin(), paths.end(),
                       [&](const std::string& p) { return core::without_trailing_slashes(p) == f; });
  };
  {
    std::vector<std::string> keep;
    for (auto& f : walk.files) {
      if (!named(f) && build_system_file(f))
        rep.skipped.push_back(f);
      else
        keep.push_back(std::move(f));
    }
    walk.files = std::move(keep);
  }
  InspectOptions iopt;
  iopt.kernels = opt.per_kernel && !gpus.empty();
  struct Work {
    FileReport file;
    std::optional<DepsReport> deps;
    std::string torch_abi, torch_path;
    bool python_module = false;
  };
  std::vector<Work> work(walk.files.size());
  ExtensionTorchFinder torch(s, opt.python, opt.root);
  parallel_for(work.size(), std::max(1u, std::thread::hardware_concurrency()), [&](std::size_t i) {
    auto& w = work[i];
    w.file = inspect_file(walk.files[i], iopt);
    if (w.file.format == FileFormat::elf_object && !opt.objects && !named(walk.files[i])) return;
    if (!opt.deps || w.file.error) return;
    if (w.file.format != FileFormat::elf_shared && w.file.format != FileFormat::elf_exec) return;
    DepsOptions d;
    d.root = opt.root;
    d.undefined = true;
    d.preloaded = opt.preloaded;
    w.deps = torch.resolve(walk.files[i], d, &w.python_module);
    // An extension is checked against the libtorch it will load: the first torch core library.
    for (const auto& lib : w.deps->libraries)
      if (lib.path && is_torch_core(lib.name) && w.deps->abi.cxx_abi != "none") {
        w.torch_path = *lib.path;
        w.torch_abi = cxx_abi_of_path(*lib.path, s, opt.root);
        break;
      }
  });
  for (std::size_t i = 0; i < work.size(); ++i) {
    const auto& w = work[i];
    const auto& f = w.file;
    // An unparseable ELF/fatbin/archive keeps format `other` but carries an error: a broken
    // product, never "not CUDA".
    if (f.format == FileFormat::other && !f.error) continue;
    if (f.format == FileFormat::elf_object && !opt.objects && !named(f.path)) {
      rep.skipped.push_back(f.path);
      continue;
    }
    rep.files_checked++;
    if (f.error) {
      rep.problems.push_back({f.path, "", ProblemKind::unreadable, *f.error, ""});
      continue;
    }
    if (f.has_cuda()) {
      FileVerdict v;
      v.file = f.path;
      v.targets = f.targets();
      std::optional<KernelTable> table;
      if (iopt.kernels) {
        table = kernel_table(f);
        v.kernels = table->kernels.size();
        // Without a single kernel the union is all there is to go on, unless every entry was read
        // and simply holds none (libcufftw's lone sm_75 cubin): then nothing is ever launched.
        if (table->kernels.empty() && table->unreadable_entries) table.reset();
      }
      for (const auto& [name, model] : gpus) judge_gpu(f, name, model, table, opt, v, rep);
      if (w.deps) v.cxx_abi = w.deps->abi.cxx_abi;
      rep.files.push_back(std::move(v));
    }
    if (!w.deps || !w.deps->is_elf) continue;
    add_deps_problems(f.path, w.python_module, *w.deps, w.torch_abi, w.torch_path, opt, rep);
  }
  rep.torches = torch.used();
  if (rep.files.empty())
    rep.problems.push_back({fmt::format("{}", fmt::join(paths, " ")), "", ProblemKind::no_cuda,
                            "no file holds CUDA code, so nothing runs on any GPU",
                            "check that the build produced its CUDA extension"});
  return rep;
}

}  // namespace kiln::binary
