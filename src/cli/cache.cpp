// kiln cache: placeholder until issue #7 lands; it says so and exits 2.
#include "cli/command.hpp"

namespace kiln::cli {
namespace {

class CacheCommand final : public Command {
 public:
  const char* name() const override { return "cache"; }
  const char* summary() const override { return "Show, clear and configure the compile cache"; }
  void setup(CLI::App& app) override { app.allow_extras(); }
  int run(io::Seams& s) override {
    s.err << "kiln cache: not implemented yet (issue #7)\n";
    return kUsage;
  }
};

}  // namespace

std::unique_ptr<Command> make_cache() { return std::make_unique<CacheCommand>(); }

}  // namespace kiln::cli
