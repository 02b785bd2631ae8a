// kiln plan: what kiln build would do and why, or the plan written out for other tools.
#include "cli/command.hpp"
#include "cli/json_out.hpp"
#include "cli/plan_options.hpp"
#include "plan/emit.hpp"
#include "plan/plan_report.hpp"

namespace kiln::cli {
namespace {

class PlanCommand final : public Command {
public:
  const char* name() const override { return "plan"; }
  const char* summary() const override {
    return "Plan a build: project kind, options, architectures, jobs and cache, each with its reason";
  }
  void setup(CLI::App& app) override {
    app.add_option("dir", dir_,
                   "Project directory (default: the current folder when it is a project; the bundled example from the "
                   "kiln repository or with --example)");
    add_plan_options(app, req_);
    app.add_option("--emit", emit_, "text (default), env, cmake, json or dockerfile");
    app.add_flag("--json", json_, "Same as --emit json");
  }
  std::optional<ProjectArg> project_arg() const override { return ProjectArg{dir_, req_.example}; }
  int run(io::Seams& s) override {
    // SIGINT, SIGTERM and SIGHUP end the probes and the plan, with the error document under --json.
    io::BuildInterrupts interrupts(std::chrono::seconds(5));
    const auto planned = plan_unless_stopped(dir_, req_, s, origins, interrupts);
    if (!planned) return stopped_while_planning(s, interrupts, name(), json_ || emit_ == "json");
    const plan::Plan& plan = *planned;
    if (json_ || emit_ == "json") {
      print_json(s.out, "plan", plan::plan_to_json(plan));
      return kOk;
    }
    auto out = plan::emit(plan, emit_);
    if (!out) throw UsageError(out.error());
    s.out << *out;
    return kOk;
  }

private:
  std::string dir_, emit_ = "text";
  PlanOptions req_;
  bool json_ = false;
};

}  // namespace

std::unique_ptr<Command> make_plan() { return std::make_unique<PlanCommand>(); }

}  // namespace kiln::cli
