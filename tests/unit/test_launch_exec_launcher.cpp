#include <gtest/gtest.h>

#include "fakes/fs.hpp"
#include "launch/exec_launcher.hpp"

using namespace kiln;

TEST(ExecLauncher, OutputSourceAndTargets) {
  std::vector<std::string> nvcc = {"/usr/bin/ccache",
                                   "/usr/local/cuda/bin/nvcc",
                                   "-c",
                                   "/src/a.cu",
                                   "-o",
                                   "obj/a.o",
                                   "-gencode",
                                   "arch=compute_80,code=sm_80",
                                   "-gencode=arch=compute_90,code=[sm_90,compute_90]"};
  EXPECT_EQ(launch::output_of(nvcc), "obj/a.o");
  EXPECT_EQ(launch::source_of(nvcc), "/src/a.cu");
  EXPECT_EQ(launch::device_targets_of(nvcc), 3);
  EXPECT_EQ(launch::device_targets_of({"c++", "-c", "x.cpp", "-ox.o"}), 0);
  EXPECT_EQ(launch::output_of({"c++", "-c", "x.cpp", "-ox.o"}), "x.o");
}

TEST(ExecLauncher, CppExtensionDependencyFlagsBecomeCacheable) {
  // As torch.utils.cpp_extension's build.ninja writes them.
  std::vector<std::string> in = {"ccache",
                                 "/usr/local/cuda/bin/nvcc",
                                 "--generate-dependencies-with-compile",
                                 "--dependency-output",
                                 "a.o.d",
                                 "-c",
                                 "a.cu",
                                 "-o",
                                 "a.o"};
  EXPECT_EQ(launch::ccache_friendly_nvcc_args(in),
            (std::vector<std::string>{"ccache", "/usr/local/cuda/bin/nvcc", "-MD", "-MF", "a.o.d", "-c", "a.cu", "-o",
                                      "a.o"}));
  EXPECT_EQ(launch::ccache_friendly_nvcc_args({"nvcc", "--dependency-output=x.d"}),
            (std::vector<std::string>{"nvcc", "-MF", "x.d"}));
  std::vector<std::string> gcc = {"c++", "--dependency-output", "x"};  // not nvcc: untouched
  EXPECT_EQ(launch::ccache_friendly_nvcc_args(gcc), gcc);
}

TEST(ExecLauncher, ExpectedPeakLearnsFromHistory) {
  io::FakeFilesystem fs;
  std::vector<std::string> args = {"nvcc", "-c", "a.cu", "-o", "a.o", "-arch=sm_90"};
  // Unseen: the data table's nvcc default for 2 targets (sm_90 SASS + PTX): 2 + 2 * 0.5 GiB.
  EXPECT_EQ(launch::expected_peak_kib(fs, "/h", args), 3ULL * 1024 * 1024);
  fs.add_file("/h/" + launch::history_key("a.o"), "1000000");
  EXPECT_EQ(launch::expected_peak_kib(fs, "/h", args), 1100000ULL);  // 10% over the last peak
}

TEST(ExecLauncher, HistoryKeepsPeakAndDurationAndReadsOldFiles) {
  io::FakeFilesystem fs;
  fs.add_file("/h/" + launch::history_key("old.o"), "1000000");  // an older kiln: the peak alone
  auto old = launch::read_history(fs, "/h", "old.o");
  ASSERT_TRUE(old);
  EXPECT_EQ(old->peak_kib, 1000000u);
  EXPECT_EQ(old->cpu_ms, -1);
  launch::UnitHistory h{2000000, 300000, 190000, 14};
  fs.add_file("/h/" + launch::history_key("bwd.o"), launch::format_history(h));
  auto back = launch::read_history(fs, "/h", "bwd.o");
  ASSERT_TRUE(back);
  EXPECT_EQ(back->cpu_ms, 300000);
  EXPECT_EQ(back->wall_ms, 190000);
  EXPECT_EQ(back->cores, 14);
  fs.add_file("/h/" + launch::history_key("bad.o"), "garbage");
  EXPECT_FALSE(launch::read_history(fs, "/h", "bad.o"));
  EXPECT_FALSE(launch::read_history(fs, "/h", "missing.o"));
}

TEST(ExecLauncher, AUnitKeepsItsPortableNameInAFreshCloneAtAnotherPath) {
  io::FakeFilesystem fs;
  const std::string code = "__global__ void scan() {}\n";
  fs.add_file("/home/a/mamba/csrc/scan_fwd.cu", code);
  fs.add_file("/tmp/ci/clone/csrc/scan_fwd.cu", code);
  const auto a = launch::portable_unit_id(fs, "/home/a/mamba", "/home/a/mamba/build/temp.linux/csrc/scan_fwd.o",
                                          "/home/a/mamba/csrc/scan_fwd.cu");
  const auto b = launch::portable_unit_id(fs, "/tmp/ci/clone", "/tmp/ci/clone/build/temp.linux/csrc/scan_fwd.o",
                                          "csrc/scan_fwd.cu");  // a relative source resolves in the project
  EXPECT_FALSE(a.empty());
  EXPECT_EQ(a, b);
  // What one checkout learned, the other reads.
  fs.add_file("/cache/units/" + launch::history_key(a), launch::format_history({4000000, 55000, 60000, 1}));
  auto h = launch::read_history(fs, "/cache/units", b);
  ASSERT_TRUE(h);
  EXPECT_EQ(h->cpu_ms, 55000);
  // An edited source is another unit; an unreadable one has no portable name.
  fs.add_file("/tmp/ci/clone/csrc/scan_fwd.cu", code + "// edited\n");
  EXPECT_NE(launch::portable_unit_id(fs, "/tmp/ci/clone", "/tmp/ci/clone/build/temp.linux/csrc/scan_fwd.o",
                                     "csrc/scan_fwd.cu"),
            a);
  EXPECT_EQ(launch::portable_unit_id(fs, "/tmp/ci/clone", "/tmp/ci/clone/x.o", "/nowhere/x.cu"), "");
}
