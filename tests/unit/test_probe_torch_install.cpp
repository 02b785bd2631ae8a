// torch read from its files, never imported: version.py, TorchConfig.cmake, libc10.so's symbols and
// libtorch_cuda.so's fat binary, in a fake torch tree (real files in a temporary folder).
#include <gtest/gtest.h>

#include <algorithm>

#include "fakes/process.hpp"
#include "io/isolated_python.hpp"
#include "binary_fixtures.hpp"
#include "doctor_test_util.hpp"
#include "probe/python_torch.hpp"
#include "probe/torch_install.hpp"

using namespace kiln;
using namespace kiln::probe;

namespace {

// torch/version.py as the 2.11 wheels write it.
const char* kVersionPy = R"(from typing import Optional

__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip', 'xpu']
__version__ = '2.11.0+cu130'
debug = False
cuda: Optional[str] = '13.0'
git_version = '70d99e998b7cc2a5e8cd2f1d3b7e5a0c9c0c1e6d'
hip: Optional[str] = None
xpu: Optional[str] = None
)";

bool compile(const std::vector<std::string>& argv) {
  io::RealProcessRunner proc;
  io::ProcessSpec spec;
  spec.argv = argv;
  return proc.run(spec).ok();
}

// A shared library whose .nv_fatbin holds `fatbin`, as nvcc-built libraries do.
bool make_cuda_library(const doctest::TempDir& d, const std::string& out, const std::string& fatbin) {
  std::string c = "__attribute__((section(\".nv_fatbin\"), used, aligned(8))) static const unsigned char fb[] = {";
  for (unsigned char ch : fatbin) c += std::to_string(ch) + ",";
  c += "};\nint kiln_test_symbol(void) { return 1; }\n";
  return compile({"cc", "-shared", "-fPIC", "-o", out, d.write("fb.c", c)});
}

// A libc10.so exporting one function that takes a std::string, built with the given ABI.
bool make_c10(const doctest::TempDir& d, const std::string& out, int abi) {
  return compile({"c++", "-shared", "-fPIC", "-D_GLIBCXX_USE_CXX11_ABI=" + std::to_string(abi), "-o", out,
                  d.write("c10.cpp", "#include <string>\nstd::string c10_name(const std::string& s) { return s; }\n")});
}

}  // namespace

TEST(TorchInstall, VersionPyGivesVersionCudaGitAndDebug) {
  TorchInfo t;
  ASSERT_TRUE(parse_torch_version_py(kVersionPy, t));
  EXPECT_EQ(t.version, "2.11.0+cu130");
  EXPECT_EQ(t.cuda, "13.0");
  EXPECT_EQ(t.git_version, "70d99e998b7cc2a5e8cd2f1d3b7e5a0c9c0c1e6d");
  EXPECT_EQ(t.debug, false);
  TorchInfo cpu;
  ASSERT_TRUE(parse_torch_version_py("__version__ = \"2.5.1+cpu\"\ndebug = True\ncuda = None\n", cpu));
  EXPECT_EQ(cpu.version, "2.5.1+cpu");
  EXPECT_EQ(cpu.cuda, "");
  EXPECT_EQ(cpu.debug, true);
  TorchInfo none;
  EXPECT_FALSE(parse_torch_version_py("import os\nx = os.getcwd()\n", none));
}

TEST(TorchInstall, AbiFromTorchConfig) {
  EXPECT_EQ(abi_from_torch_config("if(CMAKE_SYSTEM_NAME STREQUAL \"Linux\")\n  set(TORCH_CXX_FLAGS "
                                  "\"-D_GLIBCXX_USE_CXX11_ABI=1\")\nendif()\n"),
            true);
  EXPECT_EQ(abi_from_torch_config("set(TORCH_CXX_FLAGS \"-D_GLIBCXX_USE_CXX11_ABI=0\")"), false);
  EXPECT_EQ(abi_from_torch_config("set(TORCH_CXX_FLAGS \"\")"), std::nullopt);
}

TEST(TorchInstall, FakeTreeGivesEveryFactWithoutPython) {
  doctest::TempDir d;
  const std::string torch = d.mkdir("site-packages/torch");
  d.write("site-packages/torch/version.py", kVersionPy);
  d.mkdir("site-packages/torch/lib");
  using kiln::testing::FakeEntry;
  // sm_90, sm_90a, sm_100a SASS and compute_120 PTX: the `a` entries are what get_arch_list omits.
  const std::string fb =
      kiln::testing::make_fatbin({FakeEntry{.sm = 90}, FakeEntry{.sm = 90, .flags = 0x11 | 0x100000},
                                  FakeEntry{.sm = 100, .flags = 0x11 | 0x100000}, FakeEntry{.kind = 1, .sm = 120}});
  if (!make_cuda_library(d, torch + "/lib/libtorch_cuda.so", fb) || !make_c10(d, torch + "/lib/libc10.so", 1))
    GTEST_SKIP() << "no C/C++ compiler";
  io::RealFilesystem fs;
  auto t = read_torch_install(fs, torch);
  EXPECT_EQ(t.version, "2.11.0+cu130");
  EXPECT_EQ(t.cuda, "13.0");
  EXPECT_EQ(t.cxx11_abi, true);
  EXPECT_EQ(t.cxx11_abi_source, "libc10.so symbols");
  EXPECT_EQ(t.arch_list, (std::vector<std::string>{"sm_90", "sm_90a", "sm_100a", "compute_120"}));
  EXPECT_EQ(t.arch_source, "libtorch_cuda.so");
  EXPECT_TRUE(t.notes.empty()) << t.notes.front();

  // TorchConfig.cmake, when present, is what CMake users of libtorch get: it is read first.
  d.write("site-packages/torch/share/cmake/Torch/TorchConfig.cmake",
          "set(TORCH_CXX_FLAGS \"-D_GLIBCXX_USE_CXX11_ABI=1\")\n");
  EXPECT_EQ(read_torch_install(fs, torch).cxx11_abi_source, "TorchConfig.cmake");
}

TEST(TorchInstall, OldAbiFromSymbolsAndABrokenLibraryIsANote) {
  doctest::TempDir d;
  const std::string torch = d.mkdir("torch");
  d.write("torch/version.py", "__version__ = '1.13.1+cu117'\ncuda = '11.7'\n");
  d.mkdir("torch/lib");
  if (!make_c10(d, torch + "/lib/libc10.so", 0)) GTEST_SKIP() << "no C++ compiler";
  d.write("torch/lib/libtorch_cuda_cu.so",
          "\x7f"
          "ELF truncated");
  io::RealFilesystem fs;
  auto t = read_torch_install(fs, torch);
  EXPECT_EQ(t.version, "1.13.1+cu117");
  EXPECT_EQ(t.cxx11_abi, false);
  EXPECT_TRUE(t.arch_list.empty());
  ASSERT_EQ(t.notes.size(), 1u);
  EXPECT_NE(t.notes[0].find("libtorch_cuda_cu.so"), std::string::npos) << t.notes[0];
}

// The probe only locates torch; detect_python reads the tree. No `import torch` unless asked.
TEST(TorchInstall, DetectPythonReadsTheTreeAndImportsOnlyWhenAsked) {
  doctest::FakeSeams t;
  t.fs.add_file("/fakebin/python3", "", true);
  t.fs.add_file("/sp/torch/version.py", kVersionPy);
  t.proc.on(io::isolated_python_line("/fakebin/python3", python_probe_script(), io::PythonSite::needed),
            io::ran(R"({"python": "3.12.3", "site_packages": ["/sp"], "torch": {"path": "/sp/torch"}})"));
  t.proc.on(io::isolated_python_line("/fakebin/python3", torch_import_script(), io::PythonSite::needed),
            io::ran(R"({"version": "2.11.0+cu130", "cxx11_abi": true, "arch_list": ["sm_90"]})"));
  auto p = detect_python(t.seams, CudaToolkit{}, {});
  ASSERT_TRUE(p.torch);
  EXPECT_EQ(p.torch->version, "2.11.0+cu130");
  EXPECT_EQ(p.torch->git_version, "70d99e998b7cc2a5e8cd2f1d3b7e5a0c9c0c1e6d");
  // Counted by script: the doctor also asks the interpreter other things (PEP 668's marker).
  auto imports = [&t] {
    return std::count_if(t.proc.calls().begin(), t.proc.calls().end(), [](const io::ProcessSpec& c) {
      return c.argv.back().find(torch_import_script()) != std::string::npos;
    });
  };
  EXPECT_EQ(imports(), 0);
  EXPECT_EQ(std::string(python_probe_script()).find("import torch"), std::string::npos);

  auto deep = detect_python(t.seams, CudaToolkit{}, {.import_torch = true});
  EXPECT_EQ(imports(), 1);
  // The fake tree has no libraries, so the import fills what the files could not tell.
  EXPECT_EQ(deep.torch->cxx11_abi, true);
  EXPECT_EQ(deep.torch->cxx11_abi_source, "import torch");
  EXPECT_EQ(deep.torch->arch_list, std::vector<std::string>{"sm_90"});
}
