#include "cli/command.hpp"
#include "cli/json_out.hpp"
#include "core/text.hpp"

#include <fmt/format.h>

#include <cmath>

namespace kiln::cli {

std::unique_ptr<Command> make_doctor();
std::unique_ptr<Command> make_archs();
std::unique_ptr<Command> make_gpus();
std::unique_ptr<Command> make_plan();
std::unique_ptr<Command> make_build();
std::unique_ptr<Command> make_inspect();
std::unique_ptr<Command> make_verify();
std::unique_ptr<Command> make_diagnose();
std::unique_ptr<Command> make_report();
std::unique_ptr<Command> make_cache();
std::unique_ptr<Command> make_bench();
std::unique_ptr<Command> make_completion();

std::vector<std::unique_ptr<Command>> all_commands() {
  std::vector<std::unique_ptr<Command>> v;
  v.push_back(make_doctor());
  v.push_back(make_archs());
  v.push_back(make_gpus());
  v.push_back(make_plan());
  v.push_back(make_build());
  v.push_back(make_inspect());
  v.push_back(make_verify());
  v.push_back(make_diagnose());
  v.push_back(make_report());
  v.push_back(make_cache());
  v.push_back(make_bench());
  v.push_back(make_completion());
  return v;
}

void declare(Command& c, CLI::App& app) {
  c.setup(app);
  // CLI11 lets a vector option take every following word up to the next flag; a positional
  // (inspect's paths) still takes many.
  for (CLI::Option* o : app.get_options())
    if (o->nonpositional() && o->get_allow_extra_args()) o->allow_extra_args(false);
  // --help names the schema the output carries, from the one list of versions (cli/json_out).
  if (CLI::Option* j = app.get_option_no_throw("--json"))
    j->description(fmt::format("{} (schema {}, docs/cli/{}.md)", j->get_description(), schema_for(c.name()), c.name()));
}

void refuse_missing_paths(const io::Filesystem& fs, const std::vector<std::string>& paths) {
  std::string missing;
  for (const auto& p : paths)
    if (!fs.exists(p) && !fs.is_symlink(p)) missing += (missing.empty() ? "'" : ", '") + p + "'";
  if (!missing.empty()) throw UsageError(missing + ": no such file or folder");
}

CLI::Validator number_in(double lo, double hi, bool whole) {
  return CLI::Validator(
      [=](std::string& v) -> std::string {
        const auto n = core::parse_double(v);
        const bool ok = n && *n >= lo && *n <= hi && (!whole || *n == std::floor(*n));
        if (ok) return {};
        const std::string kind = whole ? "a whole number" : "a number";
        if (std::isinf(hi)) return fmt::format("'{}': give {} {} or more", v, kind, lo);
        return fmt::format("'{}': give {} from {} to {}", v, kind, lo, hi);
      },
      whole ? "N" : "X");
}

}  // namespace kiln::cli
