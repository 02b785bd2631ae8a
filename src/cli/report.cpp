// kiln report: profile a finished build from its .ninja_log and kiln's records (launcher, ccache,
// nvcc --time): terminal tables, --json, or a self-contained --html page.
#include <fmt/format.h>

#include <filesystem>

#include "cli/command.hpp"
#include "cli/json_out.hpp"
#include "probe/machine.hpp"
#include "report/build_folders.hpp"
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
    // What kiln build printed (the project, kiln's build folder) or a Ninja folder: every Ninja
    // folder of the build, profiled together (report/build_folders).
    const auto found = report::find_build_folders(s.fs, dir);
    const int here = probe::probe_machine(s.fs, probe::online_cpus()).usable_cores();
    const auto input = load_all(s, dir, found, here);
    const auto profile = report::compute_profile(input);
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
  report::ProfileInput load_all(io::Seams& s, const std::string& dir, const report::BuildFolders& found, int here) const {
    const std::optional<int> forced = cores_ > 0 ? std::optional<int>(cores_) : std::nullopt;
    if (found.ninja_dirs.empty()) {
      if (!found.wheel_cache_hit.empty())
        throw Failure(fmt::format("{}: the last build compiled nothing: it installed a wheel kept by an earlier build "
                                  "from the same inputs ({}); run kiln report on the build that made it, or rebuild "
                                  "with --no-wheel-cache",
                                  dir, found.wheel_cache_hit.substr(std::string("kiln: wheel cache: ").size())));
      auto one = report::load_build(dir, s, here, forced);  // its error says what is missing
      if (!one) throw Failure(one.error());
      return std::move(*one);
    }
    std::vector<report::ProfileInput> parts;
    for (const auto& d : found.ninja_dirs) {
      auto in = report::load_build(d, s, here, forced, found.kiln_dir);
      if (!in) throw Failure(in.error());
      parts.push_back(std::move(*in));
    }
    auto merged = report::merge_inputs(std::move(parts));
    if (found.ninja_dirs.size() > 1) merged.build_dir = found.kiln_dir.empty() ? dir : found.kiln_dir;
    if (!found.wheel_cache_hit.empty())
      merged.notes.push_back("the last build installed a kept wheel (" + found.wheel_cache_hit +
                             "): these logs are from the build before it");
    return merged;
  }

  std::string dir_, html_;
  bool json_ = false;
  int top_ = 15;
  int cores_ = 0;
};

}  // namespace

std::unique_ptr<Command> make_report() { return std::make_unique<ReportCommand>(); }

}  // namespace kiln::cli
