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

// Issue 35, flash-attention 2 (Dao-AILab/flash-attention 0251105, setup.py:74 FLASH_ATTN_CUDA_ARCHS): on an
// H100 image with TORCH_CUDA_ARCH_LIST=9.0a the plan is 90a-real and kiln sets the list to 90. With pruning
// (the default) the launcher compiles 90a-real alone, and the note says the project's sm_90 and PTX go.
TEST(ProjectArchList, PrunedPlanSaysWhatOfTheProjectsListIsNotCompiled) {
  auto p = extension_plan("90a-real");
  p.prune_archs = true;
  p.knobs.knobs[0].name = "FLASH_ATTN_CUDA_ARCHS";
  p.knobs.knobs[0].where = "setup.py:74";
  plan::route_suffixed_targets_of_project_lists(p, {});
  EXPECT_EQ(p.env.count("KILN_EXTRA_ARCHS"), 0u);  // KILN_PRUNE_ARCHS carries them
  ASSERT_EQ(p.notes.size(), 1u);
  EXPECT_NE(p.notes[0].find("FLASH_ATTN_CUDA_ARCHS (setup.py:74), set to 90 in its default's spelling, which has no "
                            "place for 90a-real; kiln's nvcc launcher compiles exactly 90a-real in each unit"),
            std::string::npos)
      << p.notes[0];
  EXPECT_NE(p.notes[0].find("its SASS for 90 and any PTX it adds for its newest entry is not compiled"),
            std::string::npos)
      << p.notes[0];
  // A plain plan: the list says the same target, and only the project's PTX is left out.
  auto plain = extension_plan("90-real");
  plain.prune_archs = true;
  plan::route_suffixed_targets_of_project_lists(plain, {});
  ASSERT_EQ(plain.notes.size(), 1u);
  EXPECT_NE(plain.notes[0].find("compiles exactly 90-real in each unit in place of the flags the project makes of "
                                "it (any PTX"),
            std::string::npos)
      << plain.notes[0];
}

}  // namespace
