// Fat binaries that nvcc builds at test time, for many architecture sets, compressed (zstd, LZ) and
// not: kiln must list exactly the targets it asked for, and the register and shared-memory figures
// that ptxas printed while building them. Skipped when nvcc is absent.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include "binary/inspect.hpp"
#include "binary_fixtures.hpp"
#include "core/arch_spec.hpp"
#include "io/seams.hpp"
#include "probe/nvcc.hpp"
#include "test_support.hpp"

using namespace kiln;
using namespace kiln::binary;

namespace {

const char* kSource = R"(
__global__ void add_kernel(float* a, const float* b, int n) {
  __shared__ float s[128];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x % 128] = b[i];
  __syncthreads();
  if (i < n) a[i] += s[(threadIdx.x + 1) % 128];
}
template <typename T> __global__ void scale(T* a, T f, int n) { int i = threadIdx.x; if (i < n) a[i] *= f; }
template __global__ void scale<double>(double*, double, int);
)";

struct Case {
  const char* name;
  std::vector<std::string> gencode;  // -gencode values
  std::vector<std::string> extra;    // fatbinary options
  Compression sass_compression;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

using Env = kiln::testing::SeamsOf<io::RealFilesystem, io::RealProcessRunner, io::RealClock, io::RealEnvironment>;

// ptxas -v: "Compiling entry function 'NAME' for 'sm_XX'" then "Used N registers, ... M bytes smem".
std::map<std::pair<std::string, std::string>, std::pair<int, int>> ptxas_usage(const std::string& log) {
  std::map<std::pair<std::string, std::string>, std::pair<int, int>> out;
  std::regex entry(R"(Compiling entry function '([^']+)' for '(sm_\w+)')"), used(R"(Used (\d+) registers(.*))"),
      smem(R"((\d+) bytes smem)");
  std::istringstream in(log);
  std::string line, fn, arch;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, entry))
      fn = m[1], arch = m[2];
    else if (!fn.empty() && std::regex_search(line, m, used)) {
      const std::string rest = m[2];
      std::smatch s;
      const int shared = std::regex_search(rest, s, smem) ? std::stoi(s[1]) : 0;
      out[{arch, fn}] = {std::stoi(m[1]), shared};
      fn.clear();
    }
  }
  return out;
}

class Nvcc : public ::testing::TestWithParam<Case> {
protected:
  void SetUp() override {
    nvcc_ = probe::find_nvcc(e.seams);
    if (!nvcc_) GTEST_SKIP() << "nvcc not found (set CUDA_HOME or PATH)";
    dir.write("k.cu", kSource);
  }
  Env e;
  std::optional<std::string> nvcc_;
  kiln::testing::TempDir dir;
};

}  // namespace

TEST_P(Nvcc, ListsExactlyTheRequestedTargetsAndPtxasFigures) {
  const Case& c = GetParam();
  const std::string obj = dir / "k.o";
  io::ProcessSpec spec;
  spec.argv = {*nvcc_, "-c", "-o", obj, dir / "k.cu", "-Xptxas", "-v"};
  for (const auto& g : c.gencode) spec.argv.insert(spec.argv.end(), {"-gencode", g});
  for (const auto& x : c.extra) spec.argv.push_back(x);
  auto run = e.proc.run(spec);
  if (run.ok() == false && (run.err + run.out).find("Unsupported gpu architecture") != std::string::npos)
    GTEST_SKIP() << "this nvcc cannot build " << c.name;
  ASSERT_TRUE(run.ok()) << run.out << run.err << run.spawn_error;

  std::string flags;
  for (const auto& g : c.gencode) flags += " -gencode " + g;
  auto want = core::parse_nvcc(flags, core::SpecContext{});
  ASSERT_TRUE(want) << want.error().message;

  auto r = inspect_file(obj, InspectOptions{true});
  ASSERT_FALSE(r.error) << *r.error;
  EXPECT_EQ(r.targets(), *want) << c.name;
  EXPECT_EQ(r.entries.size(), want->size());
  auto usage = ptxas_usage(run.out + run.err);
  std::size_t checked = 0;
  for (const auto& en : r.entries) {
    EXPECT_FALSE(en.error) << *en.error;
    if (en.target.kind == core::CodeKind::ptx) {
      EXPECT_EQ(en.ptx_target, en.target.arch.sm()) << c.name;
      EXPECT_EQ(en.kernels.size(), 2u);
      continue;
    }
    EXPECT_EQ(en.compression, c.sass_compression) << c.name << " " << en.target.arch.sm();
    ASSERT_EQ(en.kernels.size(), 2u) << en.target.arch.sm();
    for (const auto& k : en.kernels) {
      auto it = usage.find({en.target.arch.sm(), k.name});
      ASSERT_NE(it, usage.end()) << "ptxas said nothing about " << k.name << " for " << en.target.arch.sm();
      ASSERT_TRUE(k.registers);
      EXPECT_EQ(static_cast<int>(*k.registers), it->second.first) << k.name << " " << en.target.arch.sm();
      // kiln reports the .nv.shared.<kernel> size, as cuobjdump's SHARED does: from sm_90 on it
      // includes the 1 KiB that ptxas reserves for the system next to what the kernel declares.
      const int reserved = en.target.arch.number >= 90 && it->second.second > 0 ? 1024 : 0;
      EXPECT_EQ(static_cast<int>(k.shared_bytes), it->second.second + reserved) << k.name << " " << en.target.arch.sm();
      ++checked;
    }
  }
  EXPECT_GT(checked, 0u);
}

INSTANTIATE_TEST_SUITE_P(
    ArchSets, Nvcc,
    ::testing::Values(Case{"plain_and_a_with_ptx",
                           {"arch=compute_80,code=sm_80", "arch=compute_90a,code=[sm_90a,compute_90a]",
                            "arch=compute_120,code=compute_120"},
                           {},
                           Compression::none},
                      Case{"family_zstd_all",
                           {"arch=compute_100f,code=[sm_100f,compute_100f]", "arch=compute_120f,code=sm_120f"},
                           {"-Xfatbin", "-compress-all"},
                           Compression::zstd},
                      Case{"lz_speed_mode",
                           {"arch=compute_75,code=sm_75", "arch=compute_86,code=sm_86"},
                           {"-Xfatbin", "-compress-all", "-Xfatbin", "-compress-mode=speed"},
                           Compression::lz},
                      Case{"uncompressed",
                           {"arch=compute_89,code=[sm_89,compute_89]", "arch=compute_100a,code=sm_100a"},
                           {"-Xfatbin=--compress=false"},
                           Compression::none},
                      Case{"size_mode_many",
                           {"arch=compute_90,code=sm_90", "arch=compute_103a,code=sm_103a",
                            "arch=compute_121,code=[sm_121,compute_121]"},
                           {"-Xfatbin", "-compress-all", "-Xfatbin", "-compress-mode=size"},
                           Compression::zstd}),
    [](const auto& info) { return std::string(info.param.name); });
