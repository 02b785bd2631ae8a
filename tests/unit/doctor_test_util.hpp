#pragma once
// Helpers for the doctor's tests: a temporary folder removed at the end, seams over fakes, and
// building a real shared library with the system compiler (tests that need one skip without it).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fakes/environment.hpp"
#include "io/seams.hpp"
#include "temp_dir.hpp"
#include "test_support.hpp"

namespace kiln::doctest {

using testing::TempDir;

// Seams over fakes, with a FakeEnvironment that has an empty PATH unless a test sets one.
struct FakeSeams : kiln::testing::FakeSeams {
  FakeSeams() { env.set("PATH", "/fakebin"); }
};

// Compiles `source_path` (C) into a shared library at `out`, plus `extra` arguments; false when
// there is no C compiler (the caller skips).
inline bool build_shared_library(const std::string& source_path, const std::string& out,
                                 std::vector<std::string> extra = {}) {
  io::RealProcessRunner proc;
  io::ProcessSpec spec;
  spec.argv = {"cc", "-shared", "-fPIC", "-o", out, source_path};
  spec.argv.insert(spec.argv.end(), extra.begin(), extra.end());
  return proc.run(spec).ok();
}

}  // namespace kiln::doctest
