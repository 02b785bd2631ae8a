// kiln inspect: what CUDA code (architectures, sizes, kernels) and which libraries are inside
// binaries, read natively (no cuobjdump, no ldd). Files are read in parallel, printed in order.
#include <fmt/format.h>

#include <thread>

#include <nlohmann/json.hpp>

#include "binary/deps.hpp"
#include "binary/extension_torch.hpp"
#include "binary/file_walk.hpp"
#include "binary/inspect.hpp"
#include "binary/verify.hpp"
#include "cli/command.hpp"
#include "cli/json_out.hpp"
#include "cli/inspect_render.hpp"
#include "cli/python_option.hpp"

namespace kiln::cli {
namespace {

using json = nlohmann::ordered_json;

class InspectCommand final : public Command {
public:
  const char* name() const override { return "inspect"; }
  const char* summary() const override {
    return "List the CUDA code (architectures, kernels, sizes) and dependencies inside binaries";
  }
  void setup(CLI::App& app) override {
    app.add_option("paths", paths_, "Files or folders: .so, executables, .o, .a, .cubin, .fatbin, .whl")->required();
    app.add_flag("--json", json_, "Print JSON");
    app.add_flag("--sizes", render_.sizes, "Size breakdown per architecture: bytes in the file, share, uncompressed");
    app.add_flag("--kernels", render_.kernels,
                 "Kernels per entry: names, registers, shared memory, stack; PTX entries");
    app.add_flag("--deps", render_.deps, "Resolve DT_NEEDED like ld.so; C++ ABI and GLIBC/GLIBCXX versions needed");
    app.add_flag("--undefined", render_.undefined, "With --deps: undefined symbols that no resolved library defines");
    app.add_option("--root", root_, "Resolve dependencies inside a container image unpacked at DIR");
    app.add_option("--python", python_,
                   "With --deps: the interpreter that will import the extension modules; their libraries resolve "
                   "as after its `import torch` (default: found from where each module sits, as kiln verify does)");
    app.add_option("-j,--jobs", jobs_, "Files read in parallel (default: all cores)");
  }

  int run(io::Seams& s) override {
    if (render_.undefined) render_.deps = true;
    if (!root_.empty()) {
      if (!s.fs.is_directory(root_)) throw UsageError("--root '" + root_ + "' is not a folder");
      render_.deps = true;
    }
    refuse_missing_paths(s.fs, paths_);
    const std::string python = python_interpreter(s, python_);
    if (!python.empty()) render_.deps = true;
    auto walk = binary::walk_paths(paths_, s.fs);
    const auto build_system = skip_build_system_files(walk.files);
    const bool from_folders =
        walk.files.size() > paths_.size() ||
        std::any_of(paths_.begin(), paths_.end(), [&](const std::string& p) { return s.fs.is_directory(p); });
    std::vector<binary::FileReport> files(walk.files.size());
    std::vector<std::optional<binary::DepsReport>> deps(walk.files.size());
    binary::InspectOptions opt{render_.kernels};
    binary::DepsOptions dopt;
    dopt.root = root_;
    dopt.undefined = render_.undefined;
    // Extension modules resolve as kiln verify resolves them: after their interpreter's `import torch`.
    binary::ExtensionTorchFinder torch(s, python, root_);
    const unsigned threads =
        jobs_ > 0 ? static_cast<unsigned>(jobs_) : std::max(1u, std::thread::hardware_concurrency());
    binary::parallel_for(files.size(), threads, [&](std::size_t i) {
      files[i] = binary::inspect_file(walk.files[i], opt);
      if (render_.deps && files[i].format != binary::FileFormat::other &&
          files[i].format != binary::FileFormat::wheel && files[i].format != binary::FileFormat::archive) {
        deps[i] = torch.resolve(walk.files[i], dopt);
      }
    });
    int rc = kOk;
    for (const auto& m : walk.missing) {
      s.err << fmt::format("kiln inspect: {}: no such file or folder\n", m);
      rc = kFindings;
    }
    json special = json::array();
    for (const auto& [path, kind] : walk.special) {
      if (!json_) s.err << fmt::format("kiln inspect: note: {}: skipped: {}, not a file\n", path, kind);
      special.push_back({{"path", path}, {"kind", kind}});
    }
    std::size_t skipped = 0;
    json out_files = json::array();
    for (std::size_t i = 0; i < files.size(); ++i) {
      const auto& f = files[i];
      if (f.error) rc = kFindings;
      if (deps[i] && (deps[i]->missing() || deps[i]->error)) rc = kFindings;
      // Inside folders, files that cannot hold CUDA code (scripts, headers, data) are counted, not listed.
      if (from_folders && f.format == binary::FileFormat::other && !f.error) {
        ++skipped;
        continue;
      }
      if (json_)
        out_files.push_back(file_json(f, deps[i], render_));
      else
        print_file(s.out, f, deps[i], render_);
    }
    if (json_) {
      json j;
      j["files"] = out_files;
      j["skipped"] = skipped;
      j["missing"] = walk.missing;
      j["special_files"] = special;  // FIFOs, sockets, devices inside folders: never opened
      j["build_system_files"] = build_system;
      json torches = json::array();
      for (const auto& t : torch.used())
        torches.push_back({{"torch", t.torch_dir.empty() ? json(nullptr) : json(t.torch_dir)}, {"how", t.how}});
      j["extension_torch"] = torches;
      print_json(s.out, "inspect", std::move(j));
    } else {
      for (const auto& t : torch.used())
        s.out << (t.torch_dir.empty() ? fmt::format("(extension modules resolved with no torch loaded: {})\n", t.how)
                                      : fmt::format("(extension modules resolved as imported after torch {}: {})\n",
                                                    t.torch_dir, t.how));
      if (skipped)
        s.out << fmt::format("({} other file{} skipped: not ELF, archive, wheel, cubin or fatbin)\n", skipped,
                             skipped == 1 ? "" : "s");
      if (!build_system.empty())
        s.out << fmt::format(
            "({} build-system file{} under CMakeFiles/ skipped, as kiln verify skips them; name one to read it)\n",
            build_system.size(), build_system.size() == 1 ? "" : "s");
    }
    return rc;
  }

private:
  // Inside folders, CMake's compiler-id programs and probes are not products (verify skips them
  // too); a file named on the command line is always read. Returns the ones taken out.
  std::vector<std::string> skip_build_system_files(std::vector<std::string>& files) const {
    std::vector<std::string> keep, skipped;
    for (auto& f : files) {
      const bool named = std::find(paths_.begin(), paths_.end(), f) != paths_.end();
      (!named && binary::build_system_file(f) ? skipped : keep).push_back(std::move(f));
    }
    files = std::move(keep);
    return skipped;
  }

  std::vector<std::string> paths_;
  std::string root_, python_;
  bool json_ = false;
  int jobs_ = 0;
  RenderOptions render_;
};

}  // namespace

std::unique_ptr<Command> make_inspect() { return std::make_unique<InspectCommand>(); }

}  // namespace kiln::cli
