// kiln doctor: placeholder until issue #4 lands; it says so and exits 2.
#include "cli/command.hpp"

namespace kiln::cli {
namespace {

class DoctorCommand final : public Command {
 public:
  const char* name() const override { return "doctor"; }
  const char* summary() const override { return "Check the toolchain, libraries, GPUs and machine a build will use"; }
  void setup(CLI::App& app) override { app.allow_extras(); }
  int run(io::Seams& s) override {
    s.err << "kiln doctor: not implemented yet (issue #4)\n";
    return kUsage;
  }
};

}  // namespace

std::unique_ptr<Command> make_doctor() { return std::make_unique<DoctorCommand>(); }

}  // namespace kiln::cli
