// kiln build: placeholder until issue #2 lands; it says so and exits 2.
#include "cli/command.hpp"

namespace kiln::cli {
namespace {

class BuildCommand final : public Command {
 public:
  const char* name() const override { return "build"; }
  const char* summary() const override { return "Plan, build and verify a CMake project, PyTorch checkout or extension"; }
  void setup(CLI::App& app) override { app.allow_extras(); }
  int run(io::Seams& s) override {
    s.err << "kiln build: not implemented yet (issue #2)\n";
    return kUsage;
  }
};

}  // namespace

std::unique_ptr<Command> make_build() { return std::make_unique<BuildCommand>(); }

}  // namespace kiln::cli
