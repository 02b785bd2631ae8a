// kiln report: profile a finished build from its .ninja_log and kiln's records (launcher, ccache,
// nvcc --time): terminal tables, --json, or a self-contained --html page.
#include <fmt/format.h>

#include <filesystem>

#include "cli/command.hpp"
#include "cli/json_out.hpp"
#include "probe/machine.hpp"
#include "report/load.hpp"
#include "report/render.hpp"

namespace kiln::cli {
namespace {

class ReportCommand final : public Command {
 public:
  const char* name() const override { return "report"; }
  const char* summary() const override { return "Profile a finished build: critical path, parallelism, slowest units"; }
  void setup(CLI::App& app) override {
    app.add_option("build_dir", dir_, "Build folder with a .ninja_log (default: ./build-kiln, else the current folder)");
    app.add_flag("--json", json_, "Print the profile as JSON");
    app.add_option("--html", html_, "Also write a self-contained HTML page with charts to FILE");
    app.add_option("--top", top_, "Rows in the slowest units and targets tables (default 15)")->check(number_in(1));
    app.add_option("--cores", cores_, "Cores for the lower bound (default: as the build recorded them in kiln-build.json, "
                                      "else this machine's usable cores)")
        ->check(number_in(1));
  }

  int run(io::Seams& s) override {
    std::string dir = dir_;
    if (dir.empty()) {
      std::error_code ec;
      const std::string cwd = std::filesystem::current_path(ec).string();
      dir = s.fs.exists(cwd + "/build-kiln/.ninja_log") ? cwd + "/build-kiln" : cwd;
    }
    {
      std::error_code ec;
      auto abs = std::filesystem::absolute(dir, ec);
      if (!ec) dir = abs.lexically_normal().string();
    }
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    // A project folder: its kiln build folder, or the Ninja folder torch.utils.cpp_extension made.
    if (!s.fs.exists(dir + "/.ninja_log")) {
      if (s.fs.exists(dir + "/build-kiln/.ninja_log")) dir += "/build-kiln";
      else
        for (const auto& d : s.fs.list(dir + "/build"))
          if (s.fs.exists(dir + "/build/" + d + "/.ninja_log")) {
            dir += "/build/" + d;
            break;
          }
    }
    const int here = probe::probe_machine(s.fs, probe::online_cpus()).usable_cores();
    auto input = report::load_build(dir, s, here, cores_ > 0 ? std::optional<int>(cores_) : std::nullopt);
    if (!input) throw Failure(input.error());
    const auto profile = report::compute_profile(*input);
    if (!html_.empty()) {
      if (!s.fs.write(html_, report::render_html(profile, static_cast<size_t>(top_))))
        throw Failure(fmt::format("cannot write {}; check the folder exists and is writable", html_));
    }
    if (json_) {
      print_json(s.out, "report", report::to_json(profile, static_cast<size_t>(top_)));
    } else {
      s.out << report::render_text(profile, static_cast<size_t>(top_));
      if (!html_.empty()) s.out << "\nwrote " << html_ << "\n";
    }
    return kOk;
  }

 private:
  std::string dir_, html_;
  bool json_ = false;
  int top_ = 15;
  int cores_ = 0;
};

}  // namespace

std::unique_ptr<Command> make_report() { return std::make_unique<ReportCommand>(); }

}  // namespace kiln::cli
