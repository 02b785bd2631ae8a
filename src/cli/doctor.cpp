// kiln doctor: the environment report that checks libraries, not just headers (issue #4).
// The checks live in probe::run_doctor so `kiln plan` can reuse them; this file parses flags,
// prints, and maps error-level findings to exit 1. It also hosts the hidden `--internal-load`
// mode: kiln re-runs itself as the child under which the host's loader loads each library, so a
// crashing library cannot take the parent down.
#include <fmt/format.h>

#include "cli/command.hpp"
#include "cli/json_out.hpp"
#include "probe/doctor.hpp"
#include "probe/lib_load.hpp"
#include "report/doctor_report.hpp"

namespace kiln::cli {
namespace {

class DoctorCommand final : public Command {
public:
  const char* name() const override { return "doctor"; }
  const char* summary() const override { return "Check the toolchain, libraries, GPUs and machine a build will use"; }
  void setup(CLI::App& app) override {
    app.add_flag("--json", json_, "Print the report as JSON");
    app.add_flag("--deep", deep_, "Also compile a C++17 file and a tiny CUDA kernel to confirm the compilers");
    app.add_option("--cmake-cache", cmake_cache_, "Audit this CMakeCache.txt (or the one in this build folder)");
    app.add_option("--python", python_, "Python interpreter to inspect (default: $PYTHON, $VIRTUAL_ENV, python3)");
    app.add_option("--build-dir", build_dir_, "Folder a build would write to, for the free-disk check (default: .)");
    app.add_flag("--no-load-check", no_load_, "Do not load libraries (with the host's loader, in a child process)");
    // Hidden: the child side of the library load check.
    app.add_option(probe::kInternalLoadFlag, internal_load_, "")->group("");
  }

  int run(io::Seams& s) override {
    if (!internal_load_.empty()) return probe::internal_load_main(internal_load_, s.out);
    probe::DoctorOptions o;
    o.deep = deep_;
    o.python = python_;
    o.cmake_cache = cmake_cache_;
    o.build_dir = build_dir_.empty() ? "." : build_dir_;
    o.self_exe = no_load_ ? "" : probe::self_executable();
    o.parallel = true;  // the real seams are thread-safe
    auto report = probe::run_doctor(s, o);
    if (!report.cmake_cache_error.empty() && !json_) throw Failure(report.cmake_cache_error);
    if (json_)
      print_json(s.out, "doctor", report::doctor_json(report));
    else
      s.out << report::doctor_text(report);
    if (!report.cmake_cache_error.empty()) {
      s.err << "kiln doctor: error: " << report.cmake_cache_error << "\n";
      return kFindings;
    }
    return report.has_error() ? kFindings : kOk;
  }

private:
  bool json_ = false, deep_ = false, no_load_ = false;
  std::string cmake_cache_, python_, build_dir_;
  std::vector<std::string> internal_load_;
};

}  // namespace

std::unique_ptr<Command> make_doctor() { return std::make_unique<DoctorCommand>(); }

}  // namespace kiln::cli
