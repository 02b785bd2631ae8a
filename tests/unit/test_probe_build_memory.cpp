// The doctor's machine view: memory as a build sees it (cgroup v2 memory.max, v1 limit_in_bytes in
// a nested group, a real tree in a temporary folder) and the safe job count with its arithmetic
// (the planner's plan::decide_jobs is this same function).
#include <gtest/gtest.h>

#include "fakes/fs.hpp"
#include "doctor_test_util.hpp"
#include "probe/build_memory.hpp"
#include "probe/machine.hpp"

using namespace kiln;
using namespace kiln::probe;

namespace {
constexpr std::uint64_t GiB = 1024ull * 1024 * 1024;
const char* kMeminfo = "MemTotal:       131072000 kB\nMemFree:        1000 kB\nMemAvailable:   125829120 kB\n";
}  // namespace

TEST(DoctorMachine, CgroupV2LimitCapsBuildMemory) {
  io::FakeFilesystem fs;
  fs.add_file("/r/proc/meminfo", kMeminfo);
  fs.add_file("/r/proc/self/cgroup", "0::/user.slice/build\n");
  fs.add_file("/r/sys/fs/cgroup/user.slice/build/memory.max", "17179869184\n");  // 16 GiB
  fs.add_file("/r/sys/fs/cgroup/user.slice/build/memory.current", "1073741824\n");
  fs.add_file("/r/sys/fs/cgroup/user.slice/memory.max", "max\n");
  fs.add_file("/r/sys/fs/cgroup/user.slice/build/cpu.max", "400000 100000\n");
  auto m = probe_machine(fs, 64, "/r");
  ASSERT_TRUE(m.cgroup_limit);
  EXPECT_EQ(*m.cgroup_limit, 16 * GiB);
  EXPECT_EQ(m.cgroup_source, "/r/sys/fs/cgroup/user.slice/build/memory.max");
  EXPECT_EQ(m.build_memory(), 15 * GiB);
  EXPECT_EQ(m.usable_cores(), 4);
  // nvcc with 8 architectures: 2 + 8 * 0.5 = 6 GiB a job; floor((15 - 1.5) / 6) = 2 < 4 cores.
  auto j = safe_jobs(m, JobKind::cuda, 8);
  EXPECT_EQ(j.jobs, 2);
  EXPECT_EQ(j.limited_by, "memory");
  EXPECT_EQ(j.arithmetic,
            "min(4 cores, max(1, floor((15.0 GiB - 1.5 GiB margin) / 6.0 GiB per nvcc job with 8 archs)) = 2) = 2");
  EXPECT_EQ(safe_jobs(m, JobKind::cxx).jobs, 4);  // floor(13.5 / 2) = 6, capped by 4 cores
}

TEST(DoctorMachine, CgroupV1NestedGroupLimit) {
  io::FakeFilesystem fs;
  fs.add_file("/r/proc/meminfo", kMeminfo);
  fs.add_file("/r/proc/self/cgroup", "5:cpu,cpuacct:/\n4:memory:/docker/abc\n0::/\n");
  fs.add_file("/r/sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");  // unlimited at the root
  fs.add_file("/r/sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes", "8589934592\n");
  fs.add_file("/r/sys/fs/cgroup/memory/docker/abc/memory.usage_in_bytes", "0\n");
  auto m = probe_machine(fs, 8, "/r");
  ASSERT_TRUE(m.cgroup_limit);
  EXPECT_EQ(*m.cgroup_limit, 8 * GiB);
  EXPECT_EQ(m.cgroup_source, "/r/sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes");
}

TEST(DoctorMachine, UnlimitedV1IsNoLimit) {
  io::FakeFilesystem fs;
  fs.add_file("/r/proc/meminfo", kMeminfo);
  fs.add_file("/r/proc/self/cgroup", "4:memory:/\n");
  fs.add_file("/r/sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");
  auto m = probe_machine(fs, 8, "/r");
  EXPECT_FALSE(m.cgroup_limit);
  EXPECT_EQ(m.build_memory(), 120 * GiB);
  auto j = safe_jobs(m, JobKind::cxx);
  EXPECT_EQ(j.jobs, 8);
  EXPECT_EQ(j.limited_by, "cores");
  EXPECT_EQ(j.memory_jobs, 54);  // floor((120 - 12) / 2)
}

TEST(DoctorMachine, RealCgroupTreeInATemporaryFolder) {
  doctest::TempDir dir;
  dir.write("proc/meminfo", kMeminfo);
  dir.write("proc/self/cgroup", "0::/job\n");
  dir.write("sys/fs/cgroup/job/memory.max", "4294967296\n");
  io::RealFilesystem fs;
  auto m = probe_machine(fs, 2, dir.path());
  ASSERT_TRUE(m.cgroup_limit);
  EXPECT_EQ(*m.cgroup_limit, 4 * GiB);
  EXPECT_EQ(safe_jobs(m, JobKind::cuda, 4).jobs, 1);  // floor((4 - 1) / 4) = 0: never below 1
}

TEST(BuildMemory, NvccJobsCostMoreWithMoreArchitectures) {
  EXPECT_DOUBLE_EQ(gib_per_job(JobKind::cxx, 5), 2.0);
  EXPECT_DOUBLE_EQ(gib_per_job(JobKind::cuda, 1), 2.5);
  EXPECT_DOUBLE_EQ(gib_per_job(JobKind::cuda, 4), 4.0);
  MachineInfo m;
  m.cores = 32;
  m.mem_total = m.mem_available = 64 * GiB;
  EXPECT_EQ(safe_jobs(m, JobKind::cxx).jobs, 28);      // floor((64 - 6.4) / 2)
  EXPECT_EQ(safe_jobs(m, JobKind::cuda, 4).jobs, 14);  // floor(57.6 / 4)
  EXPECT_NE(safe_jobs(m, JobKind::cuda, 4).arithmetic.find("nvcc job with 4 archs"), std::string::npos);
}
