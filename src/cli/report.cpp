// kiln report: placeholder until issue #7 lands; it says so and exits 2.
#include "cli/command.hpp"

namespace kiln::cli {
namespace {

class ReportCommand final : public Command {
 public:
  const char* name() const override { return "report"; }
  const char* summary() const override { return "Profile a finished build: critical path, parallelism, slowest units"; }
  void setup(CLI::App& app) override { app.allow_extras(); }
  int run(io::Seams& s) override {
    s.err << "kiln report: not implemented yet (issue #7)\n";
    return kUsage;
  }
};

}  // namespace

std::unique_ptr<Command> make_report() { return std::make_unique<ReportCommand>(); }

}  // namespace kiln::cli
