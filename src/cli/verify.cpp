// kiln verify: the CI gate. Exit 0 iff every CUDA-bearing file has a kernel image for every named
// GPU and its libraries resolve with a matching ABI; otherwise one line per problem and exit 1.
#include <fmt/format.h>

#include "binary/verify.hpp"
#include "cli/command.hpp"
#include "cli/json_out.hpp"
#include "cli/python_option.hpp"
#include "cli/verify_json.hpp"
#include "core/arch_spec.hpp"
#include "core/gpu_table.hpp"
#include "probe/spec_context.hpp"

namespace kiln::cli {
namespace {

class VerifyCommand final : public Command {
public:
  const char* name() const override { return "verify"; }
  const char* summary() const override {
    return "Check that binaries run on the named GPUs and their libraries resolve";
  }
  void setup(CLI::App& app) override {
    app.add_option("paths", paths_, "Files or folders to check")->required();
    app.add_option("--gpu", gpus_,
                   "A GPU the files must run on (name or compute capability); repeatable, or a comma list")
        ->delimiter(',');
    app.add_option(
        "--archs", archs_,
        "Or: every architecture of this list must be covered (TORCH_CUDA_ARCH_LIST, CMake or nvcc spelling)");
    app.add_option("--root", root_, "Resolve libraries inside a container image unpacked at DIR");
    app.add_option("--python", python_,
                   "The interpreter that will import the extension modules: they are checked against its torch "
                   "(default: found from where each module sits)");
    app.add_flag("--undefined", undefined_,
                 "Report undefined symbols for every library (always on for Python extensions)");
    app.add_flag("--no-deps", no_deps_, "Skip the dependency, ABI and symbol checks");
    app.add_flag("--all", all_, "Name every kernel that cannot run (default: the first 5 per file and GPU)");
    app.add_flag("--objects", objects_,
                 "Inside folders, check object files (.o) too; they are skipped as build intermediates");
    app.add_flag("--union", union_,
                 "Judge each file by the union of its architectures only, not kernel by kernel (faster)");
    app.add_flag("--json", json_, "Print JSON");
  }

  int run(io::Seams& s) override {
    if (gpus_.empty() && archs_.empty())
      throw UsageError("name the GPUs to verify for: --gpu NAME (repeatable) or --archs SPEC");
    if (!root_.empty() && !s.fs.is_directory(root_)) throw UsageError("--root '" + root_ + "' is not a folder");
    refuse_missing_paths(s.fs, paths_);
    const std::string python = python_interpreter(s, python_);
    std::vector<std::pair<std::string, core::GpuModel>> gpus;
    for (const auto& g : gpus_) {
      auto m = core::GpuTable::get().lookup(g);
      if (!m) throw UsageError(m.error().message);
      gpus.emplace_back(g, *m);
    }
    if (!archs_.empty()) {
      auto set = core::parse_spec(archs_, core::Syntax::automatic, probe::spec_context_for(archs_, s));
      if (!set) throw UsageError(set.error().message);
      std::vector<int> seen;
      for (const auto& t : *set) {
        if (std::find(seen.begin(), seen.end(), t.arch.number) != seen.end()) continue;
        seen.push_back(t.arch.number);
        core::GpuModel m;
        m.name = "sm_" + std::to_string(t.arch.number);
        m.cc = t.arch.number;
        gpus.emplace_back(m.name, m);
      }
    }
    binary::VerifyOptions opt{root_, undefined_, !no_deps_};
    opt.per_kernel = !union_;
    opt.objects = objects_;
    opt.kernel_names = all_ ? 0 : 5;
    opt.python = python;
    auto rep = binary::verify_files(paths_, gpus, opt, s);
    if (json_) {
      print_json(s.out, "verify", verify_report_json(rep, opt.kernel_names));
    } else {
      for (const auto& f : rep.files)
        for (const auto& v : f.gpus)
          if (v.no_kernels)
            s.out << fmt::format("{}: {} (cc {}): no kernels to launch (its images hold none)\n", f.file, v.model.name,
                                 core::cc_string(v.model.cc));
          else if (v.coverage.verdict != core::Verdict::none)
            s.out << fmt::format(
                "{}: {} (cc {}): {} via {}{}\n", f.file, v.model.name, core::cc_string(v.model.cc),
                core::to_string(v.coverage.verdict), v.coverage.via->name(),
                v.kernels ? fmt::format(", {} of {} kernels run{}", v.kernels->runnable, v.kernels->total,
                                        v.kernels->specialised
                                            ? fmt::format(" ({} others are built for other architectures only)",
                                                          v.kernels->specialised)
                                            : "")
                          : "");
      for (const auto& n : rep.notes) s.err << "kiln verify: note: " << n << "\n";
      for (const auto& t : rep.torches)
        s.out << (t.torch_dir.empty()
                      ? fmt::format("extension modules checked with no torch loaded: {}\n", t.how)
                      : fmt::format("extension modules checked as imported after torch {} ({})\n", t.torch_dir, t.how));
      for (const auto& p : rep.problems) s.out << "FAIL " << p.line() << "\n";
      s.out << fmt::format(
          "{}: {} file{} checked, {} with CUDA code, {} problem{}{}\n", rep.ok() ? "ok" : "FAILED", rep.files_checked,
          rep.files_checked == 1 ? "" : "s", rep.files.size(), rep.problems.size(), rep.problems.size() == 1 ? "" : "s",
          rep.skipped.empty() ? ""
                              : fmt::format(" ({} build-system file{} and objects skipped; --objects checks objects)",
                                            rep.skipped.size(), rep.skipped.size() == 1 ? "" : "s"));
    }
    return rep.ok() ? kOk : kFindings;
  }

private:
  std::vector<std::string> paths_, gpus_;
  std::string archs_, root_, python_;
  bool undefined_ = false, no_deps_ = false, json_ = false, all_ = false, objects_ = false, union_ = false;
};

}  // namespace

std::unique_ptr<Command> make_verify() { return std::make_unique<VerifyCommand>(); }

}  // namespace kiln::cli
