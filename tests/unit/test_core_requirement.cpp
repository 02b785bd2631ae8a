// PEP 440 specifiers on torch, as projects write them, against installed versions.
#include <gtest/gtest.h>

#include "test_support.hpp"

#include "core/requirement.hpp"
#include "io/fs.hpp"
#include "read/torch_requirement.hpp"

using namespace kiln;

namespace {

std::optional<bool> met(const char* requirement, const char* version) {
  auto r = core::parse_requirement(requirement);
  if (!r) return std::nullopt;
  return core::requirement_met(*r, version);
}

}  // namespace

TEST(Requirement, SpecifiersAgainstInstalledVersions) {
  EXPECT_EQ(met("torch>=2.0", "1.13.1"), false);
  EXPECT_EQ(met("torch>=2.0", "2.0.0"), true);
  EXPECT_EQ(met("torch>=2.0", "2.11.0+cu130"), true);  // the local part is not compared
  EXPECT_EQ(met("torch >=2.1, <2.6", "2.6.0"), false);
  EXPECT_EQ(met("torch >=2.1, <2.6", "2.5.1"), true);
  EXPECT_EQ(met("torch==2.4.*", "2.4.1"), true);
  EXPECT_EQ(met("torch==2.4.*", "2.5.0"), false);
  EXPECT_EQ(met("torch!=2.2.0", "2.2.0"), false);
  EXPECT_EQ(met("torch~=2.3", "2.9.0"), true);  // ~=2.3 is >=2.3, ==2.*
  EXPECT_EQ(met("torch~=2.3", "3.0.0"), false);
  EXPECT_EQ(met("torch~=2.3.1", "2.4.0"), false);                     // ~=2.3.1 is >=2.3.1, ==2.3.*
  EXPECT_EQ(met("torch==2.0", "2.0.0"), true);                        // missing parts are zeros
  EXPECT_EQ(met("torch>2.0; python_version>'3.8'", "2.0.0"), false);  // the marker is dropped
  EXPECT_EQ(met("torch>=2.6.0a0", "2.6.0"), true);                    // the pre-release is not compared
  EXPECT_EQ(met("torch>=2.0", "not-a-version"), std::nullopt);
}

TEST(Requirement, WhatIsNoVersionOrNoRequirement) {
  auto plain = core::parse_requirement("torch");
  ASSERT_TRUE(plain);
  EXPECT_TRUE(plain->clauses.empty());
  auto url = core::parse_requirement("torch @ https://download.pytorch.org/whl/torch-2.4.0.whl");
  ASSERT_TRUE(url);
  EXPECT_TRUE(url->clauses.empty());
  EXPECT_FALSE(core::parse_requirement(">=2.0"));
  EXPECT_FALSE(core::parse_requirement("torch>=two"));
  EXPECT_FALSE(core::parse_requirement("torch=>2.0"));
}

TEST(TorchRequirement, QuotedStringsInPyprojectAndSetupPyAndRequirementLines) {
  const std::string pyproject =
      "[build-system]\nrequires = [\"setuptools\", \"torch>=2.1\"]  # torch>=9 in a comment\n"
      "[project]\ndependencies = [\n  'torchvision>=0.20',\n  \"torch >=2.1,<2.7\",\n  \"pytorch-lightning>=2\"]\n";
  auto p = read::torch_requirements_in(pyproject, "pyproject.toml", false);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].where, "pyproject.toml:2");
  EXPECT_EQ(p[0].requirement.specifier, ">=2.1");
  EXPECT_EQ(p[1].where, "pyproject.toml:6");
  EXPECT_EQ(p[1].requirement.specifier, ">=2.1,<2.7");

  const std::string setup_py =
      "\"\"\"A docstring that says torch is needed.\"\"\"\nfrom setuptools import setup\n"
      "setup(name='x', install_requires=['torch>=2.0', 'numpy'], setup_requires=[f'torch>={MIN}'])\n";
  auto s = read::torch_requirements_in(setup_py, "setup.py", false);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].where, "setup.py:3");

  auto r = read::torch_requirements_in("numpy\n# torch<1\ntorch==2.4.*  # pinned\n", "requirements.txt", true);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].where, "requirements.txt:3");
  EXPECT_EQ(r[0].requirement.specifier, "==2.4.*");
}

// issue 33: sam2 declares torch>=2.5.1 in pyproject.toml and setup.py; the plan noted it twice.
TEST(TorchRequirement, OneRangeDeclaredInTwoFilesIsOneEntryNamingBoth) {
  io::RealFilesystem fs;
  auto all = read::read_torch_requirements(fs, kiln::testing::source_dir() + "/tests/fixtures/projects/sam2");
  ASSERT_EQ(all.size(), 2u);
  auto ranges = read::distinct_torch_ranges(all);
  ASSERT_EQ(ranges.size(), 1u);
  EXPECT_EQ(ranges[0].where, "pyproject.toml:5, setup.py:27");
  EXPECT_EQ(ranges[0].requirement.specifier, ">=2.5.1");

  // Clause order does not make another range; another bound does.
  auto mixed = read::distinct_torch_ranges({{*core::parse_requirement("torch>=2.1,<2.7"), "pyproject.toml:3"},
                                            {*core::parse_requirement("torch<2.7, >=2.1"), "setup.py:9"},
                                            {*core::parse_requirement("torch>=2.1"), "requirements.txt:1"}});
  ASSERT_EQ(mixed.size(), 2u);
  EXPECT_EQ(mixed[0].where, "pyproject.toml:3, setup.py:9");
  EXPECT_EQ(mixed[0].requirement.specifier, ">=2.1,<2.7");
  EXPECT_EQ(mixed[1].where, "requirements.txt:1");
}
