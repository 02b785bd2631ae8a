// io::ProcessSpec::nice: the child runs at the raised nice value (launch/unit_priority gives it).
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cerrno>
#include <string>

#include "io/process.hpp"

using namespace kiln;

TEST(ProcessNice, TheChildRunsAtTheRaisedNiceValue) {
  // Read by the child itself after the parent has had time to set it (it is set right after the
  // start, before a compiler driver would fork its stages).
  errno = 0;
  const int own = ::getpriority(PRIO_PROCESS, 0);
  ASSERT_EQ(errno, 0);
  if (own + 3 > 19) GTEST_SKIP() << "already at nice " << own;
  io::RealProcessRunner runner;
  io::ProcessSpec spec{.argv = {"/bin/sh", "-c", "sleep 0.3; cut -d' ' -f19 /proc/$$/stat"}};
  spec.nice = 3;
  auto r = runner.run(spec);
  ASSERT_TRUE(r.ok()) << r.err;
  EXPECT_EQ(std::stoi(r.out), own + 3);
  spec.nice = 0;
  r = runner.run(spec);
  ASSERT_TRUE(r.ok()) << r.err;
  EXPECT_EQ(std::stoi(r.out), own);
}
