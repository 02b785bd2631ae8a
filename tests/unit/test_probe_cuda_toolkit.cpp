// The CUDA toolkit detector against fake installs: versions read three ways, and the
// "FindCUDA says version X but headers say version Y" case as an error.
#include <gtest/gtest.h>

#include "fakes/process.hpp"
#include "doctor_test_util.hpp"
#include "probe/cuda_toolkit.hpp"

using namespace kiln;
using namespace kiln::probe;

namespace {

const char* nvcc_out(const char* rel) {
  static std::string s;
  s = std::string("nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release ") + rel + ", V" + rel +
      ".88\nBuild cuda_" + rel + "\n";
  return s.c_str();
}

bool has(const Findings& f, const std::string& code, Severity sev) {
  for (const auto& x : f)
    if (x.code == code && x.severity == sev) return true;
  return false;
}

}  // namespace

TEST(CudaToolkit, AgreeingVersionsFromNvccVersionJsonAndCudaH) {
  doctest::FakeSeams t;
  t.fs.add_file("/opt/cuda/bin/nvcc", "", true);
  t.fs.add_file("/opt/cuda/version.json", R"({"cuda": {"name": "CUDA SDK", "version": "12.4.1"}})");
  t.fs.add_file("/opt/cuda/targets/x86_64-linux/include/cuda.h", "#define CUDA_VERSION 12040\n");
  t.env.set("CUDA_HOME", "/opt/cuda");
  t.proc.on("/opt/cuda/bin/nvcc --version", io::ran(nvcc_out("12.4")));
  auto tk = detect_cuda_toolkit(t.seams, "/sys-root");
  ASSERT_TRUE(tk.found);
  EXPECT_EQ(tk.root, "/opt/cuda");
  EXPECT_EQ(tk.how, "CUDA_HOME");
  EXPECT_EQ(tk.include_dir, "/opt/cuda/targets/x86_64-linux/include");
  ASSERT_EQ(tk.versions.size(), 3u);
  EXPECT_EQ(tk.versions[0].raw, "12.4.88");
  EXPECT_EQ(tk.versions[1].raw, "12.4.1");
  EXPECT_EQ(tk.versions[2].raw, "12040");
  EXPECT_EQ(tk.versions[2].version->str(), "12.4");
  EXPECT_EQ(tk.version->str(), "12.4.88");
  EXPECT_FALSE(has(tk.findings, "cuda.version-mismatch", Severity::error));
}

TEST(CudaToolkit, HeadersOfAnotherReleaseAreAnError) {
  doctest::FakeSeams t;
  t.fs.add_file("/opt/cuda/bin/nvcc", "", true);
  t.fs.add_file("/opt/cuda/include/cuda.h", "#define CUDA_VERSION 12010\n");
  t.env.set("CUDA_HOME", "/opt/cuda");
  t.proc.on("/opt/cuda/bin/nvcc --version", io::ran(nvcc_out("12.4")));
  auto tk = detect_cuda_toolkit(t.seams, "/sys-root");
  ASSERT_TRUE(has(tk.findings, "cuda.version-mismatch", Severity::error));
  for (const auto& f : tk.findings)
    if (f.code == "cuda.version-mismatch") {
      EXPECT_NE(f.cause.find("12.4"), std::string::npos) << f.cause;
      EXPECT_NE(f.cause.find("12.1"), std::string::npos) << f.cause;
      EXPECT_FALSE(f.fix.empty());
    }
}

TEST(CudaToolkit, VersionJsonDisagreeingWithNvccIsAnError) {
  doctest::FakeSeams t;
  t.fs.add_file("/usr/local/cuda/bin/nvcc", "", true);
  t.fs.add_file("/usr/local/cuda/version.json", R"({"cuda": {"version": "11.8.0"}})");
  t.fs.add_file("/usr/local/cuda/include/cuda.h", "#define CUDA_VERSION 12040\n");
  t.proc.on("/usr/local/cuda/bin/nvcc --version", io::ran(nvcc_out("12.4")));
  auto tk = detect_cuda_toolkit(t.seams);
  EXPECT_EQ(tk.how, "/usr/local/cuda");
  EXPECT_TRUE(has(tk.findings, "cuda.version-mismatch", Severity::error));
  EXPECT_TRUE(has(tk.findings, "cuda.home-unset", Severity::note));
}

TEST(CudaToolkit, NothingInstalledIsAnErrorWithTheFix) {
  doctest::FakeSeams t;
  auto tk = detect_cuda_toolkit(t.seams, "/empty");
  EXPECT_FALSE(tk.found);
  ASSERT_TRUE(has(tk.findings, "cuda.not-found", Severity::error));
  EXPECT_NE(tk.findings.back().fix.find("CUDA_HOME"), std::string::npos);
}

TEST(CudaToolkit, CudaHomeAndPathNameDifferentReleases) {
  doctest::FakeSeams t;
  t.fs.add_file("/opt/cuda-12.1/bin/nvcc", "", true);
  t.fs.add_file("/opt/cuda-12.1/include/cuda.h", "#define CUDA_VERSION 12010\n");
  t.fs.add_file("/opt/cuda-11.8/bin/nvcc", "", true);
  t.fs.add_file("/opt/cuda-11.8/include/cuda.h", "#define CUDA_VERSION 11080\n");
  t.env.set("CUDA_HOME", "/opt/cuda-12.1");
  t.env.set("PATH", "/opt/cuda-11.8/bin");
  t.proc.on("/opt/cuda-12.1/bin/nvcc --version", io::ran(nvcc_out("12.1")));
  auto tk = detect_cuda_toolkit(t.seams, "/none");
  EXPECT_EQ(tk.root, "/opt/cuda-12.1");
  ASSERT_EQ(tk.candidates.size(), 2u);
  EXPECT_EQ(tk.candidates[1].how, "nvcc on PATH");
  EXPECT_TRUE(has(tk.findings, "cuda.roots-disagree", Severity::warning));
}

TEST(CudaToolkit, HeadersWithoutNvccAndMissingCudaHome) {
  doctest::FakeSeams t;
  t.env.set("CUDA_HOME", "/does/not/exist");
  t.fs.add_file("/r/usr/local/cuda-12.2/include/cuda.h", "#define CUDA_VERSION 12020\n");
  auto tk = detect_cuda_toolkit(t.seams, "/r");
  ASSERT_TRUE(tk.found);
  EXPECT_EQ(tk.root, "/r/usr/local/cuda-12.2");
  EXPECT_TRUE(tk.nvcc.empty());
  EXPECT_TRUE(has(tk.findings, "cuda.no-nvcc", Severity::error));
  EXPECT_TRUE(has(tk.findings, "cuda.env-root-missing", Severity::warning));
}

TEST(CudaToolkit, Readers) {
  EXPECT_EQ(version_json_cuda(R"({"cuda":{"version":"13.0.1"}})"), "13.0.1");
  EXPECT_FALSE(version_json_cuda("not json"));
  EXPECT_FALSE(version_json_cuda(R"({"cuda": 3})"));
  EXPECT_EQ(cuda_h_version("#define CUDA_VERSION 13000\n")->str(), "13.0");
  EXPECT_EQ(cuda_h_version("#define CUDA_VERSION 11080\n")->str(), "11.8");
  EXPECT_FALSE(cuda_h_version("#define CUDA_VERSION junk\n"));
}
