#include <gtest/gtest.h>

#include "plan/jobs.hpp"

using namespace kiln;

namespace {
probe::MachineInfo machine(int cores, double gib, std::optional<double> cgroup_gib = std::nullopt) {
  probe::MachineInfo m;
  m.cores = cores;
  m.mem_total = m.mem_available = static_cast<std::uint64_t>(gib * (1ULL << 30));
  if (cgroup_gib) m.cgroup_limit = static_cast<std::uint64_t>(*cgroup_gib * (1ULL << 30));
  return m;
}
}  // namespace

TEST(Jobs, CoresBoundWhenMemoryIsPlenty) {
  auto d = plan::decide_jobs(machine(16, 128), 1);
  EXPECT_EQ(d.jobs, 16);
  EXPECT_EQ(d.by_cores, 16);
  EXPECT_GT(d.by_memory, 16);
}

TEST(Jobs, MemoryBoundForManyArchitectures) {
  // 32 GiB: margin max(1, 3.2) = 3.2 GiB; nvcc with 4 archs = 2 + 4 * 0.5 = 4 GiB per job -> 7.
  auto d = plan::decide_jobs(machine(64, 32), 4);
  EXPECT_DOUBLE_EQ(d.gib_per_job, 4.0);
  EXPECT_EQ(d.jobs, 7);
  EXPECT_NE(d.arithmetic.find("4.0 GiB per nvcc job with 4 archs"), std::string::npos) << d.arithmetic;
}

TEST(Jobs, CgroupLimitWinsOverHostMemory) {
  auto d = plan::decide_jobs(machine(32, 256, 8.0), 0);
  // 8 GiB cgroup: margin 1 GiB; 2 GiB per C++ job -> 3.
  EXPECT_EQ(d.jobs, 3);
}

TEST(Jobs, NeverBelowOne) {
  auto d = plan::decide_jobs(machine(4, 1), 8);
  EXPECT_EQ(d.jobs, 1);
}
