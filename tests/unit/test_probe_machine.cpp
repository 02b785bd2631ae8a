#include <gtest/gtest.h>

#include "fakes/fs.hpp"
#include "probe/machine.hpp"

using namespace kiln;

namespace {
io::FakeFilesystem base() {
  io::FakeFilesystem fs;
  fs.add_file("/proc/meminfo", "MemTotal:       131072000 kB\nMemFree:  1000 kB\nMemAvailable:   120000000 kB\n");
  return fs;
}
}  // namespace

TEST(Machine, MeminfoWithoutCgroupLimit) {
  auto fs = base();
  fs.add_file("/proc/self/cgroup", "0::/\n");
  fs.add_file("/sys/fs/cgroup/memory.max", "max\n");
  auto m = probe::probe_machine(fs, 16);
  EXPECT_EQ(m.mem_total, 131072000ULL * 1024);
  EXPECT_FALSE(m.cgroup_limit);
  EXPECT_EQ(m.build_memory(), 120000000ULL * 1024);
}

TEST(Machine, CgroupV2LimitAndUsage) {
  auto fs = base();
  fs.add_file("/proc/self/cgroup", "0::/kubepods/pod1/ctr\n");
  fs.add_file("/sys/fs/cgroup/kubepods/pod1/ctr/memory.max", "8589934592\n");
  fs.add_file("/sys/fs/cgroup/kubepods/pod1/ctr/memory.current", "1073741824\n");
  fs.add_file("/sys/fs/cgroup/kubepods/pod1/ctr/cpu.max", "400000 100000\n");
  fs.add_file("/sys/fs/cgroup/kubepods/memory.max", "max\n");
  auto m = probe::probe_machine(fs, 64);
  ASSERT_TRUE(m.cgroup_limit);
  EXPECT_EQ(*m.cgroup_limit, 8589934592ULL);
  EXPECT_EQ(m.build_memory(), 7ULL << 30);
  EXPECT_EQ(m.usable_cores(), 4);
}

TEST(Machine, TightestAncestorWins) {
  auto fs = base();
  fs.add_file("/proc/self/cgroup", "0::/a/b\n");
  fs.add_file("/sys/fs/cgroup/a/b/memory.max", "max\n");
  fs.add_file("/sys/fs/cgroup/a/memory.max", "4294967296\n");
  auto m = probe::probe_machine(fs, 8);
  ASSERT_TRUE(m.cgroup_limit);
  EXPECT_EQ(*m.cgroup_limit, 4294967296ULL);
}

TEST(Machine, CgroupV1Limit) {
  auto fs = base();
  fs.add_file("/sys/fs/cgroup/memory/memory.limit_in_bytes", "2147483648\n");
  fs.add_file("/sys/fs/cgroup/memory/memory.usage_in_bytes", "0\n");
  auto m = probe::probe_machine(fs, 8);
  ASSERT_TRUE(m.cgroup_limit);
  EXPECT_EQ(*m.cgroup_limit, 2147483648ULL);
  // v1 reports "no limit" as a huge number, which must not count as a limit.
  auto fs2 = base();
  fs2.add_file("/sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");
  EXPECT_FALSE(probe::probe_machine(fs2, 8).cgroup_limit);
}

TEST(Machine, CgroupV1FollowsTheProcessMemoryPath) {
  auto fs = base();
  fs.add_file("/proc/self/cgroup", "5:devices:/\n4:memory:/process_api/abc/build\n0::/\n");
  fs.add_file("/sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");
  fs.add_file("/sys/fs/cgroup/memory/process_api/abc/memory.limit_in_bytes", "9223372036854771712\n");
  fs.add_file("/sys/fs/cgroup/memory/process_api/abc/build/memory.limit_in_bytes", "1073741824\n");
  fs.add_file("/sys/fs/cgroup/memory/process_api/abc/build/memory.usage_in_bytes", "104857600\n");
  auto m = probe::probe_machine(fs, 8);
  ASSERT_TRUE(m.cgroup_limit);
  EXPECT_EQ(*m.cgroup_limit, 1073741824ULL);
  EXPECT_EQ(m.build_memory(), 1073741824ULL - 104857600ULL);
}
