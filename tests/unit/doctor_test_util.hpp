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

#include "io/seams.hpp"
#include "test_support.hpp"

namespace kiln::doctest {

class TempDir {
public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "kiln-doctor-test-XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data()) ? tmpl : "";
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string write(const std::string& rel, const std::string& content, bool exec = false) const {
    const std::string p = path_ + "/" + rel;
    std::filesystem::create_directories(std::filesystem::path(p).parent_path());
    std::ofstream(p, std::ios::binary) << content;
    if (exec) std::filesystem::permissions(p, std::filesystem::perms::owner_all, std::filesystem::perm_options::add);
    return p;
  }
  std::string mkdir(const std::string& rel) const {
    std::filesystem::create_directories(path_ + "/" + rel);
    return path_ + "/" + rel;
  }

private:
  std::string path_;
};

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
