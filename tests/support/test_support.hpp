#pragma once
// What every unit test may need: where it runs, and the I/O seams over fakes (or the real disk and
// processes) in one bundle. Only test_support.cpp is compiled with the checkout's paths, so the other
// test objects are the same in every clone (ccache shares them).
#include <sstream>
#include <string>
#include <vector>

#include "fakes/clock.hpp"
#include "fakes/environment.hpp"
#include "fakes/fs.hpp"
#include "fakes/process.hpp"
#include "io/seams.hpp"

namespace kiln::testing {

std::string source_dir();   // the kiln checkout (fixtures live under tests/fixtures)
std::string kiln_binary();  // the built kiln executable

// The seams a test runs against, each one a member the test can script (proc.on, fs.add_file,
// env.set) and `seams` bundling them. Fakes by default; a test that needs its own runner names it.
template <typename Fs = io::FakeFilesystem, typename Proc = io::FakeProcessRunner, typename Clk = io::FakeClock,
          typename Env = io::FakeEnvironment>
struct SeamsOf {
  Fs fs;
  Proc proc;
  Clk clock;
  Env env;
  std::ostringstream out, err;
  io::Seams seams{fs, proc, clock, env, out, err};
};

using FakeSeams = SeamsOf<>;
// The real disk, processes and clock, but an environment of the test's own: nothing from the
// developer's shell (LD_LIBRARY_PATH, KILN_*) leaks in.
using RealSeams = SeamsOf<io::RealFilesystem, io::RealProcessRunner, io::RealClock, io::FakeEnvironment>;

// `kiln ARGS...` through run_cli over `s`, its exit code; `s`'s out and err are not cleared.
int run_kiln(io::Seams& s, std::vector<std::string> args);

// kiln's command line over RealSeams; each run starts with empty out and err.
struct CliRig : RealSeams {
  int run(std::vector<std::string> args) {
    out.str(""), err.str("");
    return run_kiln(seams, std::move(args));
  }
};

}  // namespace kiln::testing
