// kiln verify: placeholder until issue #3 lands; it says so and exits 2.
#include "cli/command.hpp"

namespace kiln::cli {
namespace {

class VerifyCommand final : public Command {
 public:
  const char* name() const override { return "verify"; }
  const char* summary() const override { return "Check that binaries run on the named GPUs and their libraries resolve"; }
  void setup(CLI::App& app) override { app.allow_extras(); }
  int run(io::Seams& s) override {
    s.err << "kiln verify: not implemented yet (issue #3)\n";
    return kUsage;
  }
};

}  // namespace

std::unique_ptr<Command> make_verify() { return std::make_unique<VerifyCommand>(); }

}  // namespace kiln::cli
