// BuildInterrupts makes kiln a child subreaper only while it is alive. Left set, every orphan of a
// later tree became a child of the process (in the one-process unit run, a zombie that the TreeGuard
// test then found as "a child of ours left behind").
#include <gtest/gtest.h>
#include <sys/prctl.h>

#include <chrono>

#include "io/interrupt.hpp"

using kiln::io::BuildInterrupts;

namespace {

int subreaper() {
  int on = -1;
  ::prctl(PR_GET_CHILD_SUBREAPER, &on);
  return on;
}

}  // namespace

TEST(BuildInterrupts, IsASubreaperOnlyWhileAlive) {
  const int before = subreaper();
  ASSERT_NE(before, -1) << "PR_GET_CHILD_SUBREAPER failed";
  for (int was : {0, 1}) {  // whatever it was before, it is again after
    ::prctl(PR_SET_CHILD_SUBREAPER, was);
    {
      BuildInterrupts interrupts(std::chrono::seconds(1));
      EXPECT_EQ(subreaper(), 1);
    }
    EXPECT_EQ(subreaper(), was);
  }
  ::prctl(PR_SET_CHILD_SUBREAPER, before);
}
