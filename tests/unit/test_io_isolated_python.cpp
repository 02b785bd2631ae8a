// io/isolated_python: every probe kiln runs to read a project runs none of the project's code
// (issue 34, case 2: a project's contextlib.py or json.py ran under `kiln plan` and `kiln doctor`).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "io/isolated_python.hpp"
#include "probe/cuda_toolkit.hpp"
#include "probe/python_modules.hpp"
#include "probe/python_torch.hpp"
#include "read/setup_py_ast.hpp"
#include "read/torch_package.hpp"
#include "test_support.hpp"

using namespace kiln;

namespace {

struct Folder {
  std::filesystem::path path;
  Folder() {
    char tmpl[] = "/tmp/kiln-isolated-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~Folder() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  void write(const std::string& rel, const std::string& text) const { std::ofstream(path / rel) << text; }
};

// Runs in `dir` for its lifetime, as kiln does when started inside a project.
struct InFolder {
  std::filesystem::path old = std::filesystem::current_path();
  explicit InFolder(const std::filesystem::path& dir) { std::filesystem::current_path(dir); }
  ~InFolder() { std::filesystem::current_path(old); }
};

TEST(IsolatedPython, ProbesRunNoneOfTheProjectsModules) {
  if (::access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/python3";
  Folder project;
  const std::string marker = (project.path / "RAN").string();
  // Modules the probes' own imports reach (importlib.util imports contextlib; json; the doctor's probe).
  for (const char* m : {"contextlib.py", "json.py", "signal.py", "importlib_metadata.py", "sysconfig.py"})
    project.write(m, "open(" + ("'" + marker + "'") + ", 'a').write('" + m + "\\n')\n");
  project.write("setup.py", "from setuptools import setup\nsetup(name='x')\n");
  InFolder in(project.path);
  kiln::testing::RealSeams real;
  probe::find_python_modules(real.seams, "/usr/bin/python3", {"json", "triton"});
  read::find_torch_package(real.seams, "/usr/bin/python3");
  probe::detect_python(real.seams, probe::CudaToolkit{}, {.python = "/usr/bin/python3"});
  (void)read::read_setup_py_ast(real.proc, "/usr/bin/python3", ".");
  std::ifstream ran(marker);
  std::string what((std::istreambuf_iterator<char>(ran)), {});
  EXPECT_EQ(what, "") << "the project's modules ran: " << what;
}

TEST(IsolatedPython, TheUsersPythonpathIsStillSeenAndTheRunStartsOutsideTheProject) {
  if (::access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/python3";
  Folder site;
  site.write("kiln_pythonpath_probe_mod.py", "");
  const char* old = std::getenv("PYTHONPATH");
  const std::string saved = old ? old : "";
  ::setenv("PYTHONPATH", ("relative/ignored:" + site.path.string()).c_str(), 1);
  kiln::testing::RealSeams real;
  auto found = probe::find_python_modules(real.seams, "/usr/bin/python3", {"kiln_pythonpath_probe_mod"});
  old ? ::setenv("PYTHONPATH", saved.c_str(), 1) : ::unsetenv("PYTHONPATH");
  EXPECT_EQ(found["kiln_pythonpath_probe_mod"], true);

  const auto spec = io::isolated_python("py", "print(1)", io::PythonSite::skipped, {"a"});
  EXPECT_EQ(spec.argv, (std::vector<std::string>{"py", "-I", "-S", "-c", "print(1)", "a"}));
  EXPECT_EQ(spec.cwd, "/");
}

}  // namespace
