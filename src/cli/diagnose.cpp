// kiln diagnose: placeholder until issue #6 lands; it says so and exits 2.
#include "cli/command.hpp"

namespace kiln::cli {
namespace {

class DiagnoseCommand final : public Command {
 public:
  const char* name() const override { return "diagnose"; }
  const char* summary() const override { return "Explain why a build failed, from its log"; }
  void setup(CLI::App& app) override { app.allow_extras(); }
  int run(io::Seams& s) override {
    s.err << "kiln diagnose: not implemented yet (issue #6)\n";
    return kUsage;
  }
};

}  // namespace

std::unique_ptr<Command> make_diagnose() { return std::make_unique<DiagnoseCommand>(); }

}  // namespace kiln::cli
