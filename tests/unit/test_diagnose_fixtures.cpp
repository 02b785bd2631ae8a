// Every signature against a real log excerpt: one test per file in tests/fixtures/diagnose/.
// A fixture's header (#~ lines, stripped before diagnosis) names the expected root cause (or
// `none`), any other finding that must be present, its captures, and where the text came from.
#include <gtest/gtest.h>

#include "test_support.hpp"

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "diagnose/diagnoser.hpp"

namespace fs = std::filesystem;
using namespace kiln::diagnose;

namespace {

struct Fixture {
  std::string name;
  std::string expect;   // signature id or "none"
  std::string finding;  // optional: a finding that must be present
  std::vector<std::pair<std::string, std::string>> captures;
  std::vector<std::string> empty_submodules;  // the plan's, from "#~ empty-submodule:" lines
  std::vector<std::string> project_headers;   // the project's, from "#~ project-header:" lines
  std::string source;
  std::string body;
};

Fixture load(const fs::path& p) {
  Fixture f;
  f.name = p.stem().string();
  std::ifstream in(p);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("#~ ", 0) == 0) {
      std::string rest = line.substr(3);
      auto colon = rest.find(": ");
      std::string key = rest.substr(0, colon), val = rest.substr(colon + 2);
      if (key == "expect")
        f.expect = val;
      else if (key == "finding")
        f.finding = val;
      else if (key == "source")
        f.source = val;
      else if (key == "empty-submodule")
        f.empty_submodules.push_back(val);
      else if (key == "project-header")
        f.project_headers.push_back(val);
      else if (key == "capture") {
        auto eq = val.find('=');
        f.captures.emplace_back(val.substr(0, eq), val.substr(eq + 1));
      }
      continue;
    }
    f.body += line + "\n";
  }
  return f;
}

std::vector<fs::path> fixture_files() {
  std::vector<fs::path> v;
  fs::path dir = fs::path(kiln::testing::source_dir()) / "tests/fixtures/diagnose";
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".log") v.push_back(e.path());
  std::sort(v.begin(), v.end());
  return v;
}

class SignatureFixture : public ::testing::TestWithParam<fs::path> {};

TEST_P(SignatureFixture, DiagnosesItsExcerpt) {
  Fixture f = load(GetParam());
  ASSERT_FALSE(f.expect.empty()) << f.name << ": no '#~ expect:' line";
  ASSERT_FALSE(f.source.empty()) << f.name << ": no '#~ source:' line";
  Options opts;
  if (!f.empty_submodules.empty() || !f.project_headers.empty())
    opts.plan = PlanContext{.empty_submodules = f.empty_submodules, .project_headers = f.project_headers};
  Diagnosis d = diagnose_text(f.body, opts);
  const Finding* target = nullptr;
  if (f.expect == "none") {
    EXPECT_FALSE(d.failed()) << f.name << ": reported " << d.findings.front().signature->id;
  } else {
    ASSERT_TRUE(d.failed()) << f.name << ": nothing found";
    EXPECT_EQ(d.root_cause()->signature->id, f.expect) << f.name;
    target = d.root_cause();
  }
  if (!f.finding.empty()) {
    target = d.find(f.finding);
    ASSERT_NE(target, nullptr) << f.name << ": no finding " << f.finding;
  }
  if (!target) return;
  EXPECT_FALSE(target->evidence.empty());
  for (const auto& [k, v] : f.captures) {
    const std::string* got = target->capture(k);
    ASSERT_NE(got, nullptr) << f.name << ": no capture " << k;
    EXPECT_EQ(*got, v) << f.name << ": capture " << k;
  }
  // The fix must not leave a placeholder for a value this excerpt provides.
  for (const auto& [k, v] : target->captures) EXPECT_EQ(target->fix.find("{" + k + "}"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, SignatureFixture, ::testing::ValuesIn(fixture_files()),
                         [](const ::testing::TestParamInfo<fs::path>& info) {
                           std::string n = info.param.stem().string();
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

TEST(SignatureFixtures, EverySignatureHasAFixture) {
  std::set<std::string> covered;
  for (const auto& p : fixture_files()) {
    Fixture f = load(p);
    covered.insert(f.expect);
    covered.insert(f.finding);
  }
  for (const auto& s : SignatureSet::builtin().all())
    EXPECT_TRUE(covered.count(s.id)) << "signature " << s.id << " has no fixture in tests/fixtures/diagnose";
}

TEST(SignatureFixtures, TableIsLargeAndCoversEveryCategory) {
  const auto& all = SignatureSet::builtin().all();
  EXPECT_GE(all.size(), 45u);
  std::set<std::string> cats;
  for (const auto& s : all) cats.insert(s.category);
  for (const char* c :
       {"cmake", "nvcc", "host-compiler", "linker", "python-packaging", "cpp-extension", "runtime", "resources"})
    EXPECT_TRUE(cats.count(c)) << c;
}

}  // namespace
