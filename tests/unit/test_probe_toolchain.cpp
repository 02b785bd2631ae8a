// Host compilers and build tools against a fake PATH: nvcc's accepted gcc range from the toolkit's
// host_config.h and from data/host_compilers.toml, the --deep test compile, ccache statistics.
#include <gtest/gtest.h>

#include "fakes/process.hpp"
#include "doctor_test_util.hpp"
#include "probe/toolchain.hpp"

using namespace kiln;
using namespace kiln::probe;

namespace {

const Finding* find(const Findings& f, const std::string& code) {
  for (const auto& x : f)
    if (x.code == code) return &x;
  return nullptr;
}

CudaToolkit toolkit(const char* version) {
  CudaToolkit tk;
  tk.found = true;
  tk.root = "/cuda";
  tk.nvcc = "/cuda/bin/nvcc";
  tk.include_dir = "/cuda/include";
  tk.version = parse_version(version);
  return tk;
}

void add_tool(doctest::FakeSeams& t, const std::string& name, const std::string& args, const std::string& out) {
  t.fs.add_file("/fakebin/" + name, "", true);
  t.proc.on("/fakebin/" + name + (args.empty() ? "" : " " + args), io::ran(out));
}

void add_gxx(doctest::FakeSeams& t, const std::string& v) {
  add_tool(t, "g++", "--version", "g++ (GCC) " + v + "\nCopyright\n");
  add_tool(t, "gcc", "--version", "gcc (GCC) " + v + "\n");
}

}  // namespace

TEST(Toolchain, HostConfigHeaderGivesNvccsLimits) {
  const std::string h =
      "#if (__GRCO_CLANG_COMPILER__ == 1) && ((__clang_major__ < 16) || (__clang_major__ > 20))\n"
      "#if __GNUC__ > 15\n#error -- unsupported GNU version!\n#endif\n"
      "#if (__clang_major__ >= 21) || (__clang_major__ < 3)\n";
  auto l = parse_host_config(h);
  EXPECT_EQ(l.max_gcc, 15);
  EXPECT_EQ(l.max_clang, 20);
}

TEST(Toolchain, TableRowIsTheNewestNotAfterTheToolkit) {
  EXPECT_EQ(table_limits(*parse_version("12.4.1")).max_gcc, 13);
  EXPECT_EQ(table_limits(*parse_version("12.5")).max_gcc, 13);  // no 12.5 row: 12.4's
  EXPECT_EQ(table_limits(*parse_version("13.0.88")).max_gcc, 15);
  EXPECT_EQ(table_limits(*parse_version("11.8")).max_gcc, 11);
  EXPECT_FALSE(table_limits(*parse_version("9.2")).max_gcc);
}

TEST(Toolchain, Gcc14WithCuda124IsRejectedWithTheFix) {
  doctest::FakeSeams t;
  add_gxx(t, "14.1.0");
  auto tc = detect_toolchain(t.seams, toolkit("12.4.131"), {});
  EXPECT_EQ(tc.gxx.version->str(), "14.1.0");
  EXPECT_EQ(tc.limits.max_gcc, 13);
  EXPECT_NE(tc.limits.source.find("host_compilers.toml"), std::string::npos);
  ASSERT_TRUE(tc.nvcc_accepts_host);
  EXPECT_FALSE(*tc.nvcc_accepts_host);
  auto* f = find(tc.findings, "compilers.nvcc-rejects-host");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::error);
  EXPECT_NE(f->fix.find("g++-13"), std::string::npos) << f->fix;
}

TEST(Toolchain, TheToolkitsHeaderWinsOverTheTable) {
  doctest::FakeSeams t;
  add_gxx(t, "14.1.0");
  t.fs.add_file("/cuda/include/crt/host_config.h", "#if __GNUC__ > 14\n#if (__clang_major__ >= 19)\n");
  auto tc = detect_toolchain(t.seams, toolkit("12.4.131"), {});
  EXPECT_EQ(tc.limits.max_gcc, 14);
  EXPECT_EQ(tc.limits.source, "/cuda/include/crt/host_config.h");
  EXPECT_TRUE(*tc.nvcc_accepts_host);
  EXPECT_NE(find(tc.findings, "compilers.table-stale"), nullptr);
}

TEST(Toolchain, CudaHostCxxIsTheCompilerChecked) {
  doctest::FakeSeams t;
  add_gxx(t, "14.1.0");
  add_tool(t, "g++-12", "--version", "g++-12 (Debian 12.2.0-14) 12.2.0\n");
  t.env.set("CUDAHOSTCXX", "/fakebin/g++-12");
  auto tc = detect_toolchain(t.seams, toolkit("12.4"), {});
  EXPECT_EQ(tc.nvcc_host_how, "CUDAHOSTCXX");
  EXPECT_EQ(tc.nvcc_host.version->str(), "12.2.0");
  EXPECT_TRUE(*tc.nvcc_accepts_host);
}

TEST(Toolchain, OldCmakeMissingNinjaAndNoCompiler) {
  doctest::FakeSeams t;
  add_tool(t, "cmake", "--version", "cmake version 3.16.3\n");
  auto tc = detect_toolchain(t.seams, CudaToolkit{}, {});
  EXPECT_EQ(find(tc.findings, "compilers.no-cxx")->severity, Severity::error);
  EXPECT_EQ(find(tc.findings, "tools.cmake-too-old")->severity, Severity::error);
  // Issue 21: doctor said warning while kiln build refuses a CMake project without ninja.
  EXPECT_EQ(find(tc.findings, "tools.ninja-missing")->severity, Severity::error);
  EXPECT_EQ(find(tc.findings, "tools.ccache-missing")->severity, Severity::note);
}

TEST(Toolchain, CcacheStatsDirAndHitRate) {
  doctest::FakeSeams t;
  add_gxx(t, "12.2.0");
  add_tool(t, "ccache", "--version", "ccache version 4.7.5\n");
  t.proc.on(
      "/fakebin/ccache --print-stats",
      io::ran("cache_miss\t25\ncache_size_kibibyte\t4700000\ndirect_cache_hit\t60\npreprocessed_cache_hit\t15\n"));
  t.proc.on("/fakebin/ccache -p",
            io::ran("(default) cache_dir = /home/u/.cache/ccache\n(/etc/ccache.conf) max_size = 5.0G\n"));
  auto tc = detect_toolchain(t.seams, CudaToolkit{}, {});
  const auto& c = tc.ccache_info;
  EXPECT_EQ(c.cache_dir, "/home/u/.cache/ccache");
  EXPECT_EQ(c.max_size, "5.0G");
  EXPECT_EQ(c.hits, 75);
  EXPECT_EQ(c.misses, 25);
  EXPECT_DOUBLE_EQ(*c.hit_rate, 0.75);
  EXPECT_EQ(*c.size_bytes, 4700000ull * 1024);
  EXPECT_NE(find(tc.findings, "tools.ccache-full"), nullptr);  // 4.81 GB of 5.0 GB (ccache's G is 10^9)
}

// Issue 23: a ccache folder that is a file failed every compile while the doctor said 0 errors.
TEST(Toolchain, AnUnusableCcacheFolderIsAnError) {
  for (const bool file : {true, false}) {
    doctest::FakeSeams t;
    add_gxx(t, "12.2.0");
    add_tool(t, "ccache", "--version", "ccache version 4.7.5\n");
    t.proc.on("/fakebin/ccache -p", io::ran("(environment) cache_dir = /c/ccache\n"));
    if (file)
      t.fs.add_file("/c/ccache", "");
    else
      t.fs.set_read_only("/c/ccache");
    auto tc = detect_toolchain(t.seams, CudaToolkit{}, {});
    const auto* f = find(tc.findings, "tools.ccache-folder-unusable");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->severity, Severity::error);
    EXPECT_NE(f->cause.find(file ? "/c/ccache is a file" : "/c/ccache cannot be written"), std::string::npos)
        << f->cause;
    EXPECT_NE(f->fix.find("CCACHE_DIR"), std::string::npos);
  }
  doctest::FakeSeams ok;
  add_gxx(ok, "12.2.0");
  add_tool(ok, "ccache", "--version", "ccache version 4.7.5\n");
  ok.proc.on("/fakebin/ccache -p", io::ran("(environment) cache_dir = /c/ccache\n"));
  ok.fs.add_dir("/c/ccache");
  EXPECT_EQ(find(detect_toolchain(ok.seams, CudaToolkit{}, {}).findings, "tools.ccache-folder-unusable"), nullptr);
}

TEST(Toolchain, Ccache3StatsFallback) {
  CcacheInfo c;
  parse_ccache_s(
      "cache directory /c\ncache hit (direct)  10\ncache hit (preprocessed)  5\ncache miss  15\n"
      "cache size  1.5 GB\n",
      c);
  EXPECT_EQ(c.hits, 15);
  EXPECT_EQ(c.misses, 15);
  EXPECT_DOUBLE_EQ(*c.hit_rate, 0.5);
  EXPECT_EQ(c.stats_source, "ccache -s");
  EXPECT_EQ(c.size_bytes, 1610612736u);  // ccache 3's GB was 1024^3 bytes
}

TEST(Toolchain, DeepRunsATestCompileThroughTheSeam) {
  doctest::FakeSeams t;
  add_gxx(t, "12.2.0");
  t.fs.add_file("/cuda/include/crt/host_config.h", "#if __GNUC__ > 13\n");
  t.proc.on("/fakebin/g++ -std=c++17 -fsyntax-only /w/probe.cpp", io::ran(""));
  t.proc.on("/cuda/bin/nvcc -std=c++17 -c /w/probe.cu -o /w/probe.o",
            io::ran("/usr/include/stdlib.h(12): error: something broke\n", 1));
  auto tc = detect_toolchain(t.seams, toolkit("12.4"), {.deep = true, .work_dir = "/w"});
  EXPECT_TRUE(tc.deep_cxx.ran && tc.deep_cxx.ok);
  EXPECT_TRUE(tc.deep_nvcc.ran);
  EXPECT_FALSE(tc.deep_nvcc.ok);
  EXPECT_TRUE(t.fs.exists("/w/probe.cu"));
  auto* f = find(tc.findings, "compilers.nvcc-test-compile-failed");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->cause.find("something broke"), std::string::npos) << f->cause;
}
