// run_doctor end to end over fakes: a machine with a CUDA 12.4 toolkit whose cuda.h is 12.1, CUPTI
// headers without the library, torch built for CUDA 13.0, an H100 on a 12.4 driver, a 16 GiB
// cgroup. Every area reports, errors make the report fail, and the JSON carries every field.
#include <gtest/gtest.h>

#include <set>

#include "fakes/process.hpp"
#include "fakes/disk.hpp"
#include "io/isolated_python.hpp"
#include "doctor_test_util.hpp"
#include "probe/doctor.hpp"
#include "report/doctor_report.hpp"
#include "test_support.hpp"

using namespace kiln;
using namespace kiln::probe;

namespace {

class FixedGpus final : public GpuQuery {
public:
  explicit FixedGpus(LocalGpus g) : g_(std::move(g)) {}
  LocalGpus query() override { return g_; }

private:
  LocalGpus g_;
};

struct Fixture {
  doctest::FakeSeams t;
  FakeDiskQuery disk;
  FixedGpus gpus{[] {
    LocalGpus g;
    g.source = "nvml";
    g.driver_cuda = 12040;
    g.gpus.push_back({0, "NVIDIA H100 80GB HBM3", 90, "550.54.15", 81559});
    return g;
  }()};
  DoctorOptions o;
  Fixture() {
    t.env.set("CUDA_HOME", "/cuda");
    t.env.set("HOME", "/home/u");
    t.fs.add_file("/cuda/bin/nvcc", "", true);
    t.fs.add_file("/cuda/include/cuda.h", "#define CUDA_VERSION 12010\n");
    t.fs.add_file("/cuda/include/cupti_version.h", "#define CUPTI_API_VERSION 18\n");
    t.fs.add_dir("/cuda/lib64");
    t.proc.on("/cuda/bin/nvcc --version", io::ran("Cuda compilation tools, release 12.4, V12.4.131\n"));
    t.fs.add_file("/fakebin/g++", "", true);
    t.proc.on("/fakebin/g++ --version", io::ran("g++ (GCC) 12.3.0\n"));
    t.fs.add_file("/venv/bin/python", "", true);
    t.env.set("VIRTUAL_ENV", "/venv");
    t.proc.on(io::isolated_python_line("/venv/bin/python", python_probe_script(), io::PythonSite::needed),
              io::ran(R"({"python": "3.12.3", "site_packages": [], "torch": {"path": "/t"}})"));
    t.fs.add_file("/t/version.py", "__version__ = '2.11.0+cu130'\ncuda = '13.0'\n");
    t.fs.add_file("/t/share/cmake/Torch/TorchConfig.cmake", "set(TORCH_CXX_FLAGS \"-D_GLIBCXX_USE_CXX11_ABI=1\")\n");
    t.fs.add_file("/root/proc/meminfo", "MemTotal: 67108864 kB\nMemAvailable: 62914560 kB\n");
    t.fs.add_file("/root/proc/self/cgroup", "0::/ci\n");
    t.fs.add_file("/root/sys/fs/cgroup/ci/memory.max", "17179869184\n");
    t.fs.add_dir("/work");
    disk.set("/work", DiskSpace{5ull << 30, 100ull << 30});
    o.sysroot = "/root";
    o.self_exe = "/kiln";
    o.build_dir = "/work/build";  // does not exist yet: its parent is measured
    o.online_cpus = 16;
    o.gpu_query = &gpus;
    o.disk_query = &disk;
  }
};

std::set<std::string> codes(const DoctorReport& r) {
  std::set<std::string> s;
  for (const auto& f : r.findings) s.insert(f.code);
  return s;
}

}  // namespace

TEST(Doctor, EveryAreaReportsAndErrorsFailTheReport) {
  Fixture fx;
  auto r = run_doctor(fx.t.seams, fx.o);
  auto c = codes(r);
  EXPECT_TRUE(c.count("cuda.version-mismatch"));
  EXPECT_TRUE(c.count("libraries.header-without-library"));
  EXPECT_TRUE(c.count("python.torch-cuda-major-mismatch"));
  EXPECT_TRUE(c.count("gpus.driver-too-old") == 0);  // 12.4 toolkit on a 12.4 driver is fine
  EXPECT_TRUE(c.count("machine.cgroup-limit"));
  EXPECT_TRUE(c.count("machine.memory-bound"));
  EXPECT_TRUE(c.count("machine.low-disk"));
  EXPECT_TRUE(r.has_error());
  EXPECT_FALSE(r.library_usable("cupti"));
  EXPECT_EQ(r.machine.jobs_cxx.jobs, 7);  // floor((16 - 1.6) / 2), fewer than 16 cores
  ASSERT_FALSE(r.machine.disks.empty());
  EXPECT_EQ(r.machine.disks[0].checked, "/work");
  EXPECT_FALSE(r.cmake_cache);
}

TEST(Doctor, JsonCarriesEveryArea) {
  Fixture fx;
  auto j = report::doctor_json(run_doctor(fx.t.seams, fx.o));
  EXPECT_FALSE(j.contains("schema"));  // cli::print_json puts it first (kiln.doctor/2)
  EXPECT_TRUE(j.contains("elapsed_s"));
  EXPECT_EQ(j["ok"], false);
  for (const char* k :
       {"counts", "findings", "cuda", "libraries", "compilers", "tools", "python", "gpus", "machine", "cmake_cache"})
    EXPECT_TRUE(j.contains(k)) << k;
  EXPECT_GE(j["counts"]["error"].get<int>(), 3);
  EXPECT_EQ(j["cuda"]["versions"].size(), 2u);
  EXPECT_EQ(j["cuda"]["versions"][1]["raw"], "12010");
  EXPECT_EQ(j["python"]["torch"]["cuda"], "13.0");
  EXPECT_EQ(j["python"]["torch"]["cxx11_abi"], true);
  EXPECT_EQ(j["gpus"]["driver_cuda"], "12.4");
  EXPECT_EQ(j["gpus"]["gpus"][0]["cc"], "9.0");
  EXPECT_EQ(j["machine"]["cgroup_limit_bytes"], 17179869184ull);
  EXPECT_EQ(j["machine"]["jobs"]["cxx"]["jobs"], 7);
  EXPECT_EQ(j["compilers"]["host_limits"]["max_gcc"], 13);
  bool cupti = false;
  for (const auto& l : j["libraries"])
    if (l["key"] == "cupti") {
      cupti = true;
      EXPECT_EQ(l["header"], "/cuda/include/cupti_version.h");
      EXPECT_TRUE(l["library"].is_null());
      EXPECT_EQ(l["usable"], false);
    }
  EXPECT_TRUE(cupti);
  for (const auto& f : j["findings"]) {
    EXPECT_TRUE(f["severity"] == "error" || f["severity"] == "warning" || f["severity"] == "note");
    EXPECT_FALSE(f["cause"].get<std::string>().empty());
  }
}

TEST(Doctor, TextGroupsByAreaWithFixes) {
  Fixture fx;
  auto text = report::doctor_text(run_doctor(fx.t.seams, fx.o));
  for (const char* h :
       {"CUDA toolkit\n", "Libraries\n", "Compilers\n", "Build tools\n", "Python\n", "GPUs\n", "Machine\n"})
    EXPECT_NE(text.find(h), std::string::npos) << h;
  EXPECT_NE(text.find("error:"), std::string::npos);
  EXPECT_NE(text.find("fix: "), std::string::npos);
  EXPECT_NE(text.find("FAIL: "), std::string::npos);
  EXPECT_NE(text.find("floor((16.0 GiB - 1.6 GiB margin)"), std::string::npos) << text;
}

TEST(Doctor, CmakeCacheAuditJoinsTheReport) {
  Fixture fx;
  fx.t.fs.add_file("/b/CMakeCache.txt",
                   "CMAKE_COMMAND:INTERNAL=/usr/bin/cmake\nUSE_CUPTI:BOOL=ON\nCUPTI_LIBRARY:FILEPATH=NOTFOUND\n");
  fx.o.cmake_cache = "/b/CMakeCache.txt";
  auto r = run_doctor(fx.t.seams, fx.o);
  ASSERT_TRUE(r.cmake_cache);
  EXPECT_TRUE(codes(r).count("cmake-cache.feature-library-notfound"));
  fx.o.cmake_cache = "/b/missing.txt";
  auto r2 = run_doctor(fx.t.seams, fx.o);
  EXPECT_FALSE(r2.cmake_cache);
  EXPECT_NE(r2.cmake_cache_error.find("/b/missing.txt"), std::string::npos);
}

namespace {

// Real seams over a temporary tree: a shell-script "python" that prints its site-packages, waits,
// then prints the torch JSON, as the real probe does around `import torch`.
struct RealTree : kiln::testing::RealSeams {
  doctest::TempDir dir;
  FakeDiskQuery disk;
  FixedGpus gpus{LocalGpus{}};
  DoctorOptions o;
  explicit RealTree(const std::string& python_body) {
    const std::string sp = dir.path() + "/venv/site-packages";
    dir.write("venv/site-packages/nvidia/nccl/lib/libnccl.so.2", "");
    // The child inherits the real environment, not `env`: the script gets SP spelled out.
    dir.write("venv/bin/python", "#!/bin/sh\nSP='" + sp + "'\n" + python_body, true);
    env.set("PATH", dir.path() + "/bin");
    env.set("HOME", dir.path());
    o.sysroot = dir.path();
    o.python = dir.path() + "/venv/bin/python";
    o.build_dir = dir.path();
    o.online_cpus = 4;
    o.gpu_query = &gpus;
    o.disk_query = &disk;
    o.parallel = true;
  }
};

}  // namespace

// The final JSON lists no site-packages: the pip wheel can only be found through the early line.
TEST(Doctor, ParallelModeUsesTheEarlySitePackagesLine) {
  RealTree t(
      "echo \"KILN-SITE [\\\"$SP\\\"]\"\nsleep 0.2\n"
      "echo '{\"python\": \"3.12.0\", \"site_packages\": [], \"torch\": {\"path\": \"'$SP/torch'\"}}'\n");
  t.dir.write("venv/site-packages/torch/version.py", "__version__ = '2.11.0'\n");
  auto r = run_doctor(t.seams, t.o);
  EXPECT_EQ(r.python.version, "3.12.0");
  ASSERT_TRUE(r.python.torch);
  EXPECT_EQ(r.python.torch->version, "2.11.0");
  bool nccl = false;
  for (const auto& l : r.libraries)
    if (l.key == "nccl") {
      nccl = true;
      EXPECT_EQ(l.library_how, "pip wheel") << l.library;
    }
  EXPECT_TRUE(nccl);
}

TEST(Doctor, ParallelModeSurvivesAPythonThatDiesBeforePrinting) {
  RealTree t("echo 'Fatal Python error: init_fs_encoding' >&2\nexit 1\n");
  auto r = run_doctor(t.seams, t.o);  // must not wait forever for the site-packages line
  EXPECT_FALSE(r.python.error.empty());
  EXPECT_NE(r.python.error.find("init_fs_encoding"), std::string::npos) << r.python.error;
}

TEST(Doctor, EachDiskRoleHasOneSpelling) {
  std::set<std::string_view> names;
  for (auto r : kiln::probe::kDiskRoles) names.insert(kiln::probe::to_string(r));
  EXPECT_EQ(names, (std::set<std::string_view>{"build", "ccache", "kiln cache", "tmp"}));
}
