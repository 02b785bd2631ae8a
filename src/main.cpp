// kiln's entry point: wire the real I/O seams, parse, run, print.
#include <csignal>
#include <iostream>

#include "cli/command.hpp"

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  kiln::io::RealFilesystem fs;
  kiln::io::RealProcessRunner proc;
  kiln::io::RealClock clock;
  kiln::io::RealEnvironment env;
  kiln::io::Seams seams{fs, proc, clock, env, std::cout, std::cerr};
  int rc = kiln::cli::run_cli(argc, argv, seams);
  std::cout.flush();
  return rc;
}
