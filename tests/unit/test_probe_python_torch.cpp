// Python and torch: the probe's JSON, and cpp_extension's verdict on torch's CUDA versus nvcc.
#include <gtest/gtest.h>

#include "doctor_test_util.hpp"
#include "probe/python_torch.hpp"

using namespace kiln;
using namespace kiln::probe;

namespace {

const Finding* find(const Findings& f, const std::string& code) {
  for (const auto& x : f)
    if (x.code == code) return &x;
  return nullptr;
}

CudaToolkit toolkit(const char* v) {
  CudaToolkit tk;
  tk.found = true;
  tk.nvcc = "/cuda/bin/nvcc";
  tk.version = parse_version(v);
  return tk;
}

const char* kTorchJson =
    R"({"python": "3.12.3", "executable": "/venv/bin/python", "site_packages": ["/venv/lib/python3.12/site-packages"],
        "torch": {"path": "/venv/lib/python3.12/site-packages/torch"}})";
const char* kTorchDir = "/venv/lib/python3.12/site-packages/torch";

}  // namespace

TEST(PythonTorch, ParsesTheProbeOutputAfterStrayLines) {
  auto p = parse_python_probe(std::string("some site hook said hi\n") + kTorchJson + "\n");
  ASSERT_TRUE(p.error.empty()) << p.error;
  EXPECT_EQ(p.version, "3.12.3");
  ASSERT_TRUE(p.torch);
  EXPECT_EQ(p.torch->path, kTorchDir);
  EXPECT_EQ(p.site_packages[0], "/venv/lib/python3.12/site-packages");
  EXPECT_FALSE(parse_python_probe("Traceback (most recent call last):").error.empty());
}

TEST(PythonTorch, MajorMismatchIsRefusedMinorIsWarned) {
  Findings f;
  check_torch_cuda("12.8", *parse_version("13.0.88"), "/cuda/bin/nvcc", f);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::error);
  EXPECT_EQ(f[0].code, "python.torch-cuda-major-mismatch");
  EXPECT_NE(f[0].cause.find("refuses"), std::string::npos);
  f.clear();
  check_torch_cuda("12.4", *parse_version("12.8.61"), "/cuda/bin/nvcc", f);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::warning);
  f.clear();
  check_torch_cuda("13.0", *parse_version("13.0.88"), "/cuda/bin/nvcc", f);
  EXPECT_TRUE(f.empty());
}

TEST(PythonTorch, PythonFlagWinsAndTheProbeRunsOnce) {
  doctest::FakeSeams t;
  t.fs.add_file("/venv/bin/python", "", true);
  t.fs.add_file("/fakebin/python3", "", true);
  t.fs.add_file(std::string(kTorchDir) + "/version.py", "__version__ = '2.11.0+cu130'\ncuda = '13.0'\n");
  t.env.set("VIRTUAL_ENV", "/other");
  t.proc.on(std::string("/venv/bin/python -c ") + python_probe_script(), io::ran(kTorchJson));
  auto p = detect_python(t.seams, toolkit("12.8"), {.python = "/venv/bin/python"});
  EXPECT_EQ(p.how, "--python");
  ASSERT_TRUE(p.torch);
  EXPECT_EQ(t.proc.calls().size(), 1u);
  auto* f = find(p.findings, "python.torch-cuda-major-mismatch");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::error);
}

TEST(PythonTorch, VirtualEnvBeforePathAndNoTorchIsANote) {
  doctest::FakeSeams t;
  t.fs.add_file("/venv/bin/python", "", true);
  t.fs.add_file("/fakebin/python3", "", true);
  t.env.set("VIRTUAL_ENV", "/venv");
  t.proc.on(std::string("/venv/bin/python -c ") + python_probe_script(),
            io::ran(R"({"python": "3.11.2", "executable": "/venv/bin/python", "site_packages": []})"));
  auto p = detect_python(t.seams, toolkit("13.0"), {});
  EXPECT_EQ(p.how, "VIRTUAL_ENV");
  EXPECT_FALSE(p.torch);
  EXPECT_EQ(find(p.findings, "python.no-torch")->severity, Severity::note);
}

TEST(PythonTorch, TorchThatFailsToImportAndCpuOnlyBuild) {
  doctest::FakeSeams t;
  t.fs.add_file("/fakebin/python3", "", true);
  t.fs.add_file("/t/version.py", "__version__ = '2.5.0+cpu'\ncuda = None\n");
  t.proc.on(std::string("/fakebin/python3 -c ") + python_probe_script(),
            io::ran(R"({"python": "3.11.2", "torch": {"path": "/t"}})"));
  t.proc.on(std::string("/fakebin/python3 -c ") + torch_import_script(),
            io::ran(R"({"import_error": "ImportError: libtorch_cpu.so: cannot open shared object file"})"));
  auto p = detect_python(t.seams, toolkit("13.0"), {.import_torch = true});
  EXPECT_EQ(p.how, "python3 on PATH");
  EXPECT_EQ(find(p.findings, "python.torch-import-failed")->severity, Severity::error);
  EXPECT_EQ(find(p.findings, "python.torch-cpu-only")->severity, Severity::warning);
}

TEST(PythonTorch, MissingPythonFlagTargetIsAnError) {
  doctest::FakeSeams t;
  auto p = detect_python(t.seams, CudaToolkit{}, {.python = "/nope/python"});
  EXPECT_EQ(find(p.findings, "python.not-found")->severity, Severity::error);
  EXPECT_NE(find(p.findings, "python.none"), nullptr);
}
