// Optional libraries against fake trees: the seeds' CUPTI case (header, no library), a library
// that does not load, header and library of different releases, and a real tree in a temporary
// folder checked by the real child process.
#include <gtest/gtest.h>

#include "fakes/process.hpp"
#include "test_support.hpp"

#include "doctor_test_util.hpp"
#include "probe/libraries.hpp"

using namespace kiln;
using namespace kiln::probe;

namespace {

CudaToolkit fake_toolkit(const std::string& root) {
  CudaToolkit tk;
  tk.found = true;
  tk.root = root;
  tk.include_dir = root + "/include";
  tk.lib_dirs = {root + "/lib64"};
  return tk;
}

const LibraryReport& lib(const std::vector<LibraryReport>& v, const std::string& key) {
  for (const auto& l : v)
    if (l.key == key) return l;
  static LibraryReport none;
  ADD_FAILURE() << "no report for " << key;
  return none;
}

const Finding* finding(const Findings& f, const std::string& code, const std::string& mentions) {
  for (const auto& x : f)
    if (x.code == code && x.cause.find(mentions) != std::string::npos) return &x;
  return nullptr;
}

io::ProcessResult loaded(const std::string& path, bool ok, const std::string& soname, const std::string& err = "") {
  return io::ran("KILN-LOAD {\"path\":\"" + path + "\",\"loaded\":" + (ok ? "true" : "false") + ",\"error\":\"" + err +
                 "\",\"soname\":\"" + soname + "\",\"elf_error\":\"\"}\n");
}

}  // namespace

TEST(Libraries, TheSpecsComeFromData) {
  ASSERT_NE(find_library_spec("cupti"), nullptr);
  EXPECT_EQ(find_library_spec("cupti")->use_flag, "USE_CUPTI");
  EXPECT_EQ(find_library_spec("cudnn")->library, "libcudnn.so");
  for (const char* k : {"cudnn", "nccl", "cupti", "cusparselt", "tensorrt", "mkl", "openblas"})
    EXPECT_NE(find_library_spec(k), nullptr) << k;
}

TEST(Libraries, CuptiHeaderWithoutLibraryIsTheSeedsError) {
  doctest::FakeSeams t;
  t.fs.add_file("/cuda/include/cupti_version.h", "#define CUPTI_API_VERSION 18\n");
  t.fs.add_dir("/cuda/lib64");
  Findings f;
  auto libs = detect_libraries(t.seams, fake_toolkit("/cuda"), {.sysroot = "/none", .self_exe = "/kiln"}, f);
  const auto& c = lib(libs, "cupti");
  EXPECT_EQ(c.header, "/cuda/include/cupti_version.h");
  EXPECT_EQ(c.header_how, "CUDA toolkit");
  EXPECT_TRUE(c.library.empty());
  EXPECT_FALSE(c.usable());
  auto* x = finding(f, "libraries.header-without-library", "CUPTI");
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->severity, Severity::error);
  EXPECT_NE(x->fix.find("LIBKINETO_NOCUPTI=1"), std::string::npos) << x->fix;
  EXPECT_TRUE(t.proc.calls().empty());  // nothing to load
}

TEST(Libraries, ALibraryThatDoesNotLoadIsAnErrorWithTheLoaderMessage) {
  doctest::FakeSeams t;
  t.fs.add_file("/cuda/include/cudnn_version.h",
                "#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 1\n#define CUDNN_PATCHLEVEL 0\n");
  t.fs.add_file("/cuda/lib64/libcudnn.so", "");
  t.fs.add_file("/cuda/lib64/libcudnn.so.9", "");
  t.fs.add_file("/cuda/lib64/libcudnn.so.9.1.0", "");
  t.proc.on("/kiln doctor --internal-load /cuda/lib64/libcudnn.so",
            loaded("/cuda/lib64/libcudnn.so", false, "libcudnn.so.9",
                   "libcudnn_graph.so.9: cannot open shared object file: No such file or directory"));
  Findings f;
  auto libs = detect_libraries(t.seams, fake_toolkit("/cuda"), {.sysroot = "/none", .self_exe = "/kiln"}, f);
  const auto& c = lib(libs, "cudnn");
  EXPECT_EQ(c.header_version->str(), "9.1.0");
  EXPECT_EQ(c.file_version->str(), "9.1.0");
  EXPECT_EQ(c.library, "/cuda/lib64/libcudnn.so");
  EXPECT_EQ(c.soname, "libcudnn.so.9");
  EXPECT_TRUE(c.load_checked);
  EXPECT_FALSE(c.loads);
  auto* x = finding(f, "libraries.load-fails", "libcudnn_graph.so.9");
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->severity, Severity::error);
  EXPECT_NE(x->fix.find("USE_CUDNN=0"), std::string::npos);
}

TEST(Libraries, HeaderAndLibraryOfDifferentMajorReleases) {
  doctest::FakeSeams t;
  t.fs.add_file("/usr/include/nccl.h", "#define NCCL_MAJOR 2\n#define NCCL_MINOR 18\n#define NCCL_PATCH 1\n");
  t.fs.add_file("/r/usr/include/cudnn_version.h",
                "#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 0\n#define CUDNN_PATCHLEVEL 0\n");
  t.fs.add_file("/r/usr/lib/x86_64-linux-gnu/libcudnn.so.8", "");
  t.fs.add_file("/r/usr/lib/x86_64-linux-gnu/libcudnn.so.8.9.7", "");
  t.proc.on("/kiln doctor --internal-load /r/usr/lib/x86_64-linux-gnu/libcudnn.so.8",
            loaded("/r/usr/lib/x86_64-linux-gnu/libcudnn.so.8", true, "libcudnn.so.8"));
  Findings f;
  auto libs = detect_libraries(t.seams, CudaToolkit{}, {.sysroot = "/r", .self_exe = "/kiln"}, f);
  const auto& c = lib(libs, "cudnn");
  EXPECT_EQ(c.header_how, "system");
  EXPECT_EQ(c.library, "/r/usr/lib/x86_64-linux-gnu/libcudnn.so.8");  // no dev link: the SONAME file
  EXPECT_TRUE(c.usable());
  EXPECT_NE(finding(f, "libraries.version-mismatch", "8.9.7"), nullptr);
  EXPECT_NE(finding(f, "libraries.no-dev-link", "cuDNN"), nullptr);
  // /usr/include outside the sysroot is not looked at.
  EXPECT_TRUE(lib(libs, "nccl").header.empty());
}

TEST(Libraries, CuptiApiNumberIsNotComparedWithTheFileVersion) {
  doctest::FakeSeams t;
  t.fs.add_file("/cuda/include/cupti_version.h", "#define CUPTI_API_VERSION 130001\n");
  t.fs.add_file("/cuda/lib64/libcupti.so.13", "");
  t.proc.on("/kiln doctor --internal-load /cuda/lib64/libcupti.so.13",
            loaded("/cuda/lib64/libcupti.so.13", true, "libcupti.so.13"));
  Findings f;
  auto libs = detect_libraries(t.seams, fake_toolkit("/cuda"), {.sysroot = "/none", .self_exe = "/kiln"}, f);
  EXPECT_TRUE(lib(libs, "cupti").usable());
  for (const auto& x : f) EXPECT_NE(x.code, "libraries.version-mismatch") << x.cause;
}

TEST(Libraries, PipWheelsAndEnvironmentRootsAreSearched) {
  doctest::FakeSeams t;
  t.env.set("CUDNN_HOME", "/opt/cudnn");
  t.fs.add_file("/opt/cudnn/include/cudnn_version.h",
                "#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 5\n#define CUDNN_PATCHLEVEL 1\n");
  t.fs.add_file("/venv/site-packages/nvidia/nccl/lib/libnccl.so.2", "");
  Findings f;
  LibraryOptions o{.sysroot = "/none", .self_exe = "", .site_packages = {"/venv/site-packages"}, .check_loads = false};
  auto libs = detect_libraries(t.seams, CudaToolkit{}, o, f);
  EXPECT_EQ(lib(libs, "cudnn").header_how, "CUDNN_HOME");
  EXPECT_EQ(lib(libs, "nccl").library_how, "pip wheel");
  EXPECT_FALSE(lib(libs, "nccl").load_checked);
  EXPECT_TRUE(t.proc.calls().empty());
}

TEST(Libraries, RealTreeWithANonElfLibraryFailsToLoad) {
  doctest::TempDir dir;
  dir.write("cuda/include/nccl.h", "#define NCCL_MAJOR 2\n#define NCCL_MINOR 21\n#define NCCL_PATCH 5\n");
  dir.write("cuda/lib64/libnccl.so.2", "definitely not ELF\n");
  kiln::testing::RealSeams t;
  t.env.set("PATH", "/nonexistent");
  Findings f;
  auto libs = detect_libraries(t.seams, fake_toolkit(dir.path() + "/cuda"),
                               {.sysroot = dir.path(), .self_exe = kiln::testing::kiln_binary()}, f);
  const auto& n = lib(libs, "nccl");
  EXPECT_EQ(n.header_version->str(), "2.21.5");
  EXPECT_TRUE(n.load_checked);
  EXPECT_FALSE(n.loads);
  EXPECT_FALSE(n.load_error.empty());
  auto* x = finding(f, "libraries.load-fails", "NCCL");
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->severity, Severity::error);
}

TEST(Libraries, TwoReleasesInstalledIsANote) {
  doctest::FakeSeams t;
  // The GPU host's case: torch's pip wheel has cuDNN 9.19, the system has 9.14.
  t.fs.add_file("/venv/sp/nvidia/cudnn/include/cudnn_version.h",
                "#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 19\n#define CUDNN_PATCHLEVEL 0\n");
  t.fs.add_file("/venv/sp/nvidia/cudnn/lib/libcudnn.so.9", "");
  t.fs.add_file("/r/usr/lib/x86_64-linux-gnu/libcudnn.so.9", "");
  t.fs.add_file("/r/usr/lib/x86_64-linux-gnu/libcudnn.so.9.14.0", "");
  Findings f;
  LibraryOptions o{.sysroot = "/r", .self_exe = "", .site_packages = {"/venv/sp"}, .check_loads = false};
  auto libs = detect_libraries(t.seams, CudaToolkit{}, o, f);
  const auto& c = lib(libs, "cudnn");
  EXPECT_EQ(c.library_how, "pip wheel");
  ASSERT_EQ(c.other_copies.size(), 1u);
  EXPECT_EQ(c.other_copies[0].file_version->str(), "9.14.0");
  auto* x = finding(f, "libraries.multiple-copies", "9.19.0");
  ASSERT_NE(x, nullptr);
  EXPECT_NE(x->cause.find("9.14.0"), std::string::npos);
}

TEST(Libraries, VersionFromFileName) {
  EXPECT_EQ(version_from_file_name("libcudnn.so.9.1.0", "libcudnn.so")->str(), "9.1.0");
  EXPECT_FALSE(version_from_file_name("libcudnn.so", "libcudnn.so"));
  EXPECT_FALSE(version_from_file_name("libcudnn_adv.so.9", "libcudnn.so"));
  EXPECT_FALSE(version_from_file_name("libcudnn.so.9.bak", "libcudnn.so"));
}

// Issue 21: CUDA 13's CUPTI_API_VERSION 130001 is 13.0.1 (cupti_version.h's xxyyzz); an older plain
// API number stays as it is.
TEST(Libraries, CuptiVersionIsReadAsItsHeaderDefinesIt) {
  for (const auto& [define, shown] : {std::pair<std::string, std::string>{"130001", "13.0.1"}, {"28", "28"}}) {
    doctest::FakeSeams t;
    t.fs.add_file("/cuda/include/cupti_version.h", "#define CUPTI_API_VERSION " + define + "\n");
    Findings f;
    auto libs = detect_libraries(t.seams, fake_toolkit("/cuda"), {.sysroot = "/none", .self_exe = "/kiln"}, f);
    const auto& c = lib(libs, "cupti");
    ASSERT_TRUE(c.header_version);
    EXPECT_EQ(c.header_version->str(), shown);
  }
}
