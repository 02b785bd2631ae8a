// kiln inspect: placeholder until issue #3 lands; it says so and exits 2.
#include "cli/command.hpp"

namespace kiln::cli {
namespace {

class InspectCommand final : public Command {
 public:
  const char* name() const override { return "inspect"; }
  const char* summary() const override { return "List the CUDA code (architectures, kernels, sizes) and dependencies inside binaries"; }
  void setup(CLI::App& app) override { app.allow_extras(); }
  int run(io::Seams& s) override {
    s.err << "kiln inspect: not implemented yet (issue #3)\n";
    return kUsage;
  }
};

}  // namespace

std::unique_ptr<Command> make_inspect() { return std::make_unique<InspectCommand>(); }

}  // namespace kiln::cli
