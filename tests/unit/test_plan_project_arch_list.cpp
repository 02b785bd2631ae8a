// plan/project_arch_list: a project's own architecture list carries plain numbers; the suffixed
// targets go through kiln's nvcc launcher, and the note names the project's int() where known.
#include <gtest/gtest.h>

#include "core/arch_spec.hpp"
#include "plan/project_arch_list.hpp"

using namespace kiln;

namespace {

plan::Plan extension_plan(const std::string& targets) {
  plan::Plan p;
  p.kind = read::ProjectKind::extension;
  p.kiln_exe = "/opt/kiln";
  p.governor = true;
  p.targets = core::parse_cmake(targets, {}).value();
  read::Knob k;
  k.name = "NVTE_CUDA_ARCHS";
  k.role = "arch-list";
  k.value = "90";
  k.origin = read::KnobOrigin::kiln;
  k.where = "build_tools/utils.py:19";
  p.knobs.knobs.push_back(k);
  return p;
}

TEST(ProjectArchList, SuffixedTargetsGoThroughTheLauncherAndTheParserIsNamed) {
  auto p = extension_plan("90a-real");
  p.env["KILN_EXTRA_ARCHS"] = "100f-real";  // what TORCH_CUDA_ARCH_LIST could not spell stays
  read::ArchParser a;
  a.var = "NVTE_CUDA_ARCHS";
  a.read = "build_tools/utils.py:19";
  a.sites = {"setup.py:244"};
  a.text = "if int(bare) >= 90:";
  plan::route_suffixed_targets_of_project_lists(p, {a});
  EXPECT_EQ(p.env["KILN_EXTRA_ARCHS"], "90a-real;100f-real");
  ASSERT_EQ(p.notes.size(), 1u);
  EXPECT_NE(p.notes[0].find("NVTE_CUDA_ARCHS (build_tools/utils.py:19), converts parts of each entry with int() "
                            "(setup.py:244: if int(bare) >= 90:)"),
            std::string::npos)
      << p.notes[0];
  EXPECT_NE(p.notes[0].find("nvcc launcher adds 90a-real to each device compile"), std::string::npos) << p.notes[0];

  // setup.py runs CMake itself: that build picks its own nvcc, so nothing is routed, and the note says so.
  auto c = extension_plan("90a-real");
  plan::route_suffixed_targets_of_project_lists(c, {a}, "setup.py:14 cmake");
  EXPECT_EQ(c.env.count("KILN_EXTRA_ARCHS"), 0u);
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_NE(c.notes[0].find("the build runs CMake itself, setup.py:14 cmake"), std::string::npos) << c.notes[0];

  // A parser that reads suffixes is not named; without kiln's launcher the note says what to do.
  auto q = extension_plan("90a-real");
  q.governor = false;
  a.suffix_ok = true;
  plan::route_suffixed_targets_of_project_lists(q, {a});
  EXPECT_EQ(q.env.count("KILN_EXTRA_ARCHS"), 0u);
  ASSERT_EQ(q.notes.size(), 1u);
  EXPECT_EQ(q.notes[0].find("int()"), std::string::npos) << q.notes[0];
  EXPECT_NE(q.notes[0].find("--knob"), std::string::npos) << q.notes[0];

  // Plain targets, or a list the user gave: nothing to route.
  auto plain = extension_plan("90-real");
  plan::route_suffixed_targets_of_project_lists(plain, {});
  EXPECT_TRUE(plain.notes.empty());
  auto given = extension_plan("90a-real");
  given.knobs.knobs[0].origin = read::KnobOrigin::knob_option;
  plan::route_suffixed_targets_of_project_lists(given, {});
  EXPECT_TRUE(given.notes.empty());
}

}  // namespace
