// kiln plan: placeholder until issue #5 lands; it says so and exits 2.
#include "cli/command.hpp"

namespace kiln::cli {
namespace {

class PlanCommand final : public Command {
 public:
  const char* name() const override { return "plan"; }
  const char* summary() const override { return "Plan a build: project kind, options, architectures, jobs and cache"; }
  void setup(CLI::App& app) override { app.allow_extras(); }
  int run(io::Seams& s) override {
    s.err << "kiln plan: not implemented yet (issue #5)\n";
    return kUsage;
  }
};

}  // namespace

std::unique_ptr<Command> make_plan() { return std::make_unique<PlanCommand>(); }

}  // namespace kiln::cli
