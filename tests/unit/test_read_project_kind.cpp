// The project kind's one spelling: what plan JSON "kind" and the plan's text show.
#include <gtest/gtest.h>

#include "read/project_kind.hpp"

using namespace kiln;

TEST(ProjectKind, EveryKindRoundTripsThroughItsName) {
  for (auto k : read::kProjectKinds) EXPECT_EQ(read::project_kind_from(read::to_string(k)), k) << read::to_string(k);
  EXPECT_EQ(read::to_string(read::ProjectKind::extension), "extension");
  EXPECT_EQ(read::project_kind_from("setuptools"), std::nullopt);
}
