#include "test_support.hpp"

#include "cli/command.hpp"

namespace kiln::testing {

std::string source_dir() { return KILN_SOURCE_DIR; }
std::string kiln_binary() { return KILN_BINARY; }

int run_kiln(io::Seams& s, std::vector<std::string> args) {
  args.insert(args.begin(), "kiln");
  std::vector<const char*> argv;
  for (auto& a : args) argv.push_back(a.c_str());
  return cli::run_cli(static_cast<int>(argv.size()), argv.data(), s);
}

}  // namespace kiln::testing
