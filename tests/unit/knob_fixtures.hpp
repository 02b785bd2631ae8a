#pragma once
// The project-knob tests' shared reading of a fixture folder (tests/fixtures/projects/<name>/) and
// their one view of a decision, for test_read_project_knobs and test_read_knob_effects.
#include <map>
#include <ostream>
#include <string>

#include "test_support.hpp"

#include "io/fs.hpp"
#include "io/process.hpp"
#include "read/project_kind.hpp"
#include "read/project_knobs.hpp"
#include "read/setup_py_ast.hpp"

namespace kiln::testing {

inline const std::string kKnobFixtures = source_dir() + "/tests/fixtures/projects/";

// A knob's decision as a test states it: role, value, origin and where the project reads it.
struct Decided {
  std::string role, value, origin, where;
  bool operator==(const Decided&) const = default;
};
inline std::ostream& operator<<(std::ostream& o, const Decided& d) {
  return o << "{" << d.role << ", '" << d.value << "', " << d.origin << ", " << d.where << "}";
}

// The folder read as `kiln plan` reads it (setup.py with Python's ast by python3), planned for sm_90
// unless `ctx` names targets.
inline read::KnobPlan plan_in(const std::string& dir, read::KnobContext ctx = {}) {
  io::RealFilesystem fs;
  io::RealProcessRunner proc;
  auto setup = read::read_setup_py_ast(proc, "python3", dir);
  if (fs.exists(dir + "/setup.py")) EXPECT_TRUE(setup.has_value()) << dir << ": " << setup.error();
  const bool cmake = read::detect_project_kind(fs, dir, &setup) == read::ProjectKind::cmake;
  if (ctx.sass.empty()) ctx.sass = {90};
  return read::decide_knobs(read::read_project(fs, dir, cmake, &setup), ctx);
}

// Every knob but the ones the table calls unrelated, by name.
inline std::map<std::string, Decided> decided(const read::KnobPlan& kp) {
  std::map<std::string, Decided> out;
  for (const auto& k : kp.knobs)
    if (k.role != "unrelated") out[k.name] = {k.role, k.value, std::string(read::to_string(k.origin)), k.where};
  return out;
}

inline const read::Knob* find(const read::KnobPlan& kp, const std::string& name) {
  for (const auto& k : kp.knobs)
    if (k.name == name) return &k;
  return nullptr;
}

// A fixture of tests/fixtures/projects/ by its folder name, planned as plan_in plans it.
inline read::KnobPlan plan_for(const std::string& name, read::KnobContext ctx = {}) {
  return plan_in(kKnobFixtures + name, ctx);
}

}  // namespace kiln::testing
