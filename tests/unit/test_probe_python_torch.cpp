// Python and torch: the probe's JSON, and cpp_extension's verdict on torch's CUDA versus nvcc.
#include <gtest/gtest.h>

#include "fakes/process.hpp"
#include "io/isolated_python.hpp"
#include "doctor_test_util.hpp"
#include "probe/externally_managed.hpp"
#include "probe/python_torch.hpp"
#include "test_support.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

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
  t.proc.on(io::isolated_python_line("/venv/bin/python", python_probe_script(), io::PythonSite::needed),
            io::ran(kTorchJson));
  auto p = detect_python(t.seams, toolkit("12.8"), {.python = "/venv/bin/python"});
  EXPECT_EQ(p.how, "--python");
  ASSERT_TRUE(p.torch);
  EXPECT_EQ(std::count_if(t.proc.calls().begin(), t.proc.calls().end(),
                          [](const io::ProcessSpec& c) {
                            return c.argv.back().find(python_probe_script()) != std::string::npos;
                          }),
            1);
  auto* f = find(p.findings, "python.torch-cuda-major-mismatch");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::error);
}

TEST(PythonTorch, VirtualEnvBeforePathAndNoTorchIsANote) {
  doctest::FakeSeams t;
  t.fs.add_file("/venv/bin/python", "", true);
  t.fs.add_file("/fakebin/python3", "", true);
  t.env.set("VIRTUAL_ENV", "/venv");
  t.proc.on(io::isolated_python_line("/venv/bin/python", python_probe_script(), io::PythonSite::needed),
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
  t.proc.on(io::isolated_python_line("/fakebin/python3", python_probe_script(), io::PythonSite::needed),
            io::ran(R"({"python": "3.11.2", "torch": {"path": "/t"}})"));
  t.proc.on(io::isolated_python_line("/fakebin/python3", torch_import_script(), io::PythonSite::needed),
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

// Issue 21: Debian's python3 (PEP 668) is found before anything compiles, with the venv that fixes it.
TEST(PythonTorch, ExternallyManagedInterpreterIsAWarningWithTheVenvFix) {
  doctest::FakeSeams t;
  t.fs.add_file("/usr/bin/python3", "", true);
  t.proc.on(io::isolated_python_line("/usr/bin/python3", python_probe_script(), io::PythonSite::needed),
            io::ran(kTorchJson));
  t.proc.on(io::isolated_python_line("/usr/bin/python3", externally_managed_script(), io::PythonSite::needed),
            io::ran("/usr/lib/python3.12/EXTERNALLY-MANAGED\n"));
  auto p = detect_python(t.seams, toolkit("12.8"), {.python = "/usr/bin/python3"});
  auto* f = find(p.findings, "python.externally-managed");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::warning);
  EXPECT_NE(f->cause.find("/usr/lib/python3.12/EXTERNALLY-MANAGED"), std::string::npos) << f->cause;
  EXPECT_NE(f->fix.find("-m venv --system-site-packages"), std::string::npos) << f->fix;
  // pip told to ignore the marker installs anyway: nothing to say.
  t.env.set("PIP_BREAK_SYSTEM_PACKAGES", "1");
  EXPECT_FALSE(externally_managed(t.seams, "/usr/bin/python3"));
}

// The real interpreter and the real pip agree with kiln: marked outside a venv, not inside one.
TEST(PythonTorch, ExternallyManagedAsTheRealPipSeesIt) {
  kiln::testing::RealSeams rig;
  io::Seams& s = rig.seams;
  auto& proc = rig.proc;
  const auto marker = externally_managed(s, "/usr/bin/python3");
  if (!marker) GTEST_SKIP() << "/usr/bin/python3 is not externally managed here";
  auto pip = proc.run({.argv = {"/usr/bin/python3", "-m", "pip", "install", "--no-index", "--no-deps", "/none.whl"}});
  if (pip.started && pip.err.find("No module named pip") == std::string::npos)
    EXPECT_NE(pip.err.find("externally-managed-environment"), std::string::npos) << pip.err;
  const auto venv = std::filesystem::temp_directory_path() / ("kiln-pep668-" + std::to_string(::getpid()));
  auto made =
      proc.run({.argv = {"/usr/bin/python3", "-m", "venv", "--without-pip", "--system-site-packages", venv.string()}});
  ASSERT_TRUE(made.ok()) << made.err;
  EXPECT_FALSE(externally_managed(s, (venv / "bin/python").string()));
  std::filesystem::remove_all(venv);
}
