// Dependency resolution on shared libraries that g++ builds at test time (skipped without g++).
#include <gtest/gtest.h>

#include <set>

#include "binary/deps.hpp"
#include "binary/extension_torch.hpp"
#include "binary/verify.hpp"
#include "binary_fixtures.hpp"
#include "io/seams.hpp"

#include <sstream>
#include "test_support.hpp"

using namespace kiln;
using namespace kiln::binary;

namespace {

using Real = kiln::testing::RealSeams;  // no LD_LIBRARY_PATH from the developer's shell

bool compile(io::ProcessRunner& proc, const std::vector<std::string>& args, std::string& log) {
  io::ProcessSpec spec;
  spec.argv = {"g++"};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  auto r = proc.run(spec);
  log = r.out + r.err + r.spawn_error;
  return r.ok();
}

class Deps : public ::testing::Test {
protected:
  void SetUp() override {
    if (!io::which(s.seams, "g++")) {
      s.env.set("PATH", "/usr/bin:/bin:/usr/local/bin");
      if (!io::which(s.seams, "g++")) GTEST_SKIP() << "g++ not found";
    }
    if (!s.env.get("PATH")) s.env.set("PATH", "/usr/bin:/bin:/usr/local/bin");
    const std::string d = dir.path();
    dir.write("b.cpp", "#include <string>\nstd::string b_func(const std::string& s) { return s + \"!\"; }\n");
    dir.write("a.cpp",
              "#include <string>\nstd::string b_func(const std::string&);\nextern void ghost_func();\n"
              "std::string a_func() { ghost_func(); return b_func(\"a\"); }\n");
    std::string log;
    std::filesystem::create_directories(dir / "sub");
    ASSERT_TRUE(compile(s.proc, {"-shared", "-fPIC", "-o", d + "/sub/libb.so", d + "/b.cpp"}, log)) << log;
    ASSERT_TRUE(compile(s.proc,
                        {"-shared", "-fPIC", "-o", d + "/liba.so", d + "/a.cpp", "-L" + d + "/sub", "-lb",
                         "-Wl,--enable-new-dtags,-rpath,$ORIGIN/sub", "-Wl,--no-as-needed", "-lm"},
                        log))
        << log;
    ASSERT_TRUE(
        compile(s.proc, {"-shared", "-fPIC", "-D_GLIBCXX_USE_CXX11_ABI=0", "-o", d + "/libold.so", d + "/b.cpp"}, log))
        << log;
  }
  Real s;
  kiln::testing::TempDir dir;
};

}  // namespace

TEST_F(Deps, RunpathWithOriginResolvesAndUndefinedSymbolsAreFound) {
  auto r = resolve_deps(dir.path() + "/liba.so", DepsOptions{"", true}, s.seams);
  ASSERT_FALSE(r.error) << *r.error;
  ASSERT_TRUE(r.runpath);
  EXPECT_EQ(*r.runpath, "$ORIGIN/sub");
  const ResolvedLibrary* b = nullptr;
  for (const auto& l : r.libraries)
    if (l.name == "libb.so") b = &l;
  ASSERT_NE(b, nullptr);
  ASSERT_TRUE(b->path);
  EXPECT_EQ(*b->path, dir.path() + "/sub/libb.so");
  EXPECT_EQ(b->via, binary::Via::runpath);
  EXPECT_EQ(r.missing(), 0u);
  EXPECT_EQ(r.abi.cxx_abi, "cxx11");
  EXPECT_EQ(r.abi.max_glibc.rfind("GLIBC_2.", 0) == 0 || r.abi.max_glibc.empty(), true);
  // ghost_func is defined nowhere; b_func comes from libb.so.
  ASSERT_EQ(r.undefined.size(), 1u) << ::testing::PrintToString(r.undefined);
  EXPECT_EQ(r.undefined[0], "_Z10ghost_funcv");
}

TEST_F(Deps, MissingLibraryIsReportedWithWhereItLooked) {
  std::filesystem::remove(dir / "sub/libb.so");
  auto r = resolve_deps(dir.path() + "/liba.so", DepsOptions{}, s.seams);
  EXPECT_EQ(r.missing(), 1u);
  const auto& lib = r.libraries.front();
  EXPECT_EQ(lib.name, "libb.so");
  EXPECT_FALSE(lib.path);
  ASSERT_FALSE(lib.searched.empty());
  EXPECT_EQ(lib.searched.front(), dir.path() + "/sub");  // $ORIGIN expanded
  auto v = verify_files({dir.path() + "/liba.so"}, {}, VerifyOptions{}, s.seams);
  bool found = false;
  for (const auto& p : v.problems)
    found |= p.kind == ProblemKind::missing_library && p.why.find("libb.so") != std::string::npos;
  EXPECT_TRUE(found);
  EXPECT_FALSE(v.ok());
}

TEST_F(Deps, PreCxx11AbiIsRecognised) {
  auto r = resolve_deps(dir.path() + "/libold.so", DepsOptions{}, s.seams);
  EXPECT_EQ(r.abi.cxx_abi, "pre-cxx11");
  EXPECT_EQ(cxx_abi_of_path(dir.path() + "/sub/libb.so", s.seams), "cxx11");
}

TEST_F(Deps, RootResolvesInsideAnImage) {
  // An "image": the extension under /opt/app, its library in the image's /usr/lib64.
  kiln::testing::TempDir root;
  std::filesystem::create_directories(root / "opt/app");
  std::filesystem::create_directories(root / "usr/lib64");
  std::filesystem::copy_file(dir / "liba.so", root / "opt/app/liba.so");
  auto r = resolve_deps("/opt/app/liba.so", DepsOptions{root.path(), false}, s.seams);
  ASSERT_FALSE(r.error) << *r.error;
  ASSERT_FALSE(r.libraries.empty());
  EXPECT_FALSE(r.libraries.front().path);  // libb.so is not in the image yet
  std::filesystem::copy_file(dir / "sub/libb.so", root / "usr/lib64/libb.so");
  auto r2 = resolve_deps(root.path() + "/opt/app/liba.so", DepsOptions{root.path(), false}, s.seams);
  ASSERT_TRUE(r2.libraries.front().path);
  EXPECT_EQ(*r2.libraries.front().path, "/usr/lib64/libb.so");
  EXPECT_EQ(r2.libraries.front().via, binary::Via::default_dirs);
}

TEST_F(Deps, RootFollowsAbsoluteSymlinksInsideTheImage) {
  // As in CUDA images: /usr/local/cuda -> /usr/local/cuda-99 (absolute), and the image's
  // ld.so.cache names /usr/local/cuda/lib64/libb.so. This machine's /usr/local/cuda must not be used.
  kiln::testing::TempDir root;
  std::filesystem::create_directories(root / "opt/app");
  std::filesystem::create_directories(root / "usr/local/cuda-99/lib64");
  std::filesystem::create_directories(root / "etc");
  std::filesystem::create_symlink("/usr/local/cuda-99", root / "usr/local/cuda");
  std::filesystem::copy_file(dir / "sub/libb.so", root / "usr/local/cuda-99/lib64/libb.so");
  std::filesystem::copy_file(dir / "liba.so", root / "opt/app/liba.so");
  root.write("etc/ld.so.cache", kiln::testing::make_ld_cache({{"libb.so", "/usr/local/cuda/lib64/libb.so"}}));
  auto r = resolve_deps("/opt/app/liba.so", DepsOptions{root.path(), true}, s.seams);
  ASSERT_FALSE(r.error) << *r.error;
  ASSERT_TRUE(r.libraries.front().path);
  EXPECT_EQ(*r.libraries.front().path, "/usr/local/cuda/lib64/libb.so");
  EXPECT_EQ(r.libraries.front().via, binary::Via::ld_so_cache);
  // A relative link that climbs above the image's root stays inside the image, as in a chroot.
  std::filesystem::create_symlink("../../../../../../usr/local/cuda-99/lib64/libb.so", root / "usr/libb-link.so");
  root.write("etc/ld.so.cache", kiln::testing::make_ld_cache({{"libb.so", "/usr/libb-link.so"}}));
  auto r2 = resolve_deps("/opt/app/liba.so", DepsOptions{root.path(), false}, s.seams);
  ASSERT_TRUE(r2.libraries.front().path);
  EXPECT_EQ(*r2.libraries.front().path, "/usr/libb-link.so");
}

TEST_F(Deps, VerifyFindsAbiMismatchWithLibtorchAndTheUndefinedSymbolItCauses) {
  // A "libc10.so" built with the old string ABI and an extension built with the new one against it.
  const std::string d = dir.path();
  std::string log;
  std::filesystem::create_directories(dir / "torch/lib");
  ASSERT_TRUE(compile(
      s.proc, {"-shared", "-fPIC", "-D_GLIBCXX_USE_CXX11_ABI=0", "-o", d + "/torch/lib/libc10.so", d + "/b.cpp"}, log))
      << log;
  dir.write("ext.cpp",
            "#include <string>\nstd::string b_func(const std::string&);\n"
            "extern \"C\" void* PyInit_ext() { static std::string s = b_func(\"x\"); return &s; }\n");
  const std::string ext = d + "/ext.cpython-312-x86_64-linux-gnu.so";
  ASSERT_TRUE(compile(s.proc,
                      {"-shared", "-fPIC", "-o", ext, d + "/ext.cpp", "-L" + d + "/torch/lib", "-Wl,--no-as-needed",
                       "-lc10", "-Wl,--enable-new-dtags,-rpath,$ORIGIN/torch/lib"},
                      log))
      << log;
  auto v = verify_files({ext}, {}, VerifyOptions{}, s.seams);
  std::vector<std::string> kinds;
  for (const auto& p : v.problems) kinds.emplace_back(to_string(p.kind));
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), "abi-mismatch"), kinds.end()) << ::testing::PrintToString(kinds);
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), "undefined-symbol"), kinds.end()) << ::testing::PrintToString(kinds);
  for (const auto& p : v.problems)
    if (p.kind == ProblemKind::abi_mismatch)
      EXPECT_NE(p.fix.find("-D_GLIBCXX_USE_CXX11_ABI=0"), std::string::npos) << p.fix;
}

// A torch extension has no RUNPATH to torch/lib: `import torch` has loaded libc10 and friends
// before Python dlopens the module, and the loader reuses them by name.
TEST_F(Deps, ExtensionModulesResolveAgainstTheTorchTheyImport) {
  const std::string d = dir.path();
  const std::string sp = d + "/venv/lib/python3.12/site-packages";
  std::filesystem::create_directories(sp + "/torch/lib");
  std::filesystem::create_directories(sp + "/myext");
  std::string log;
  ASSERT_TRUE(
      compile(s.proc, {"-shared", "-fPIC", "-Wl,-soname,libb.so", "-o", sp + "/torch/lib/libb.so", d + "/b.cpp"}, log))
      << log;
  const std::string module = sp + "/myext/_C.cpython-312-x86_64-linux-gnu.so";
  ASSERT_TRUE(compile(s.proc, {"-shared", "-fPIC", "-o", module, d + "/a.cpp", "-L" + sp + "/torch/lib", "-lb"}, log))
      << log;
  ExtensionTorchFinder finder(s.seams, "");
  ASSERT_TRUE(finder.find(module));
  EXPECT_EQ(finder.find(module)->lib_folder, sp + "/torch/lib");  // no torch/_C here: the folder
  EXPECT_FALSE(finder.find(d + "/liba.so"));                      // not a Python module

  // On its own the loader would not find libb.so ...
  auto alone = resolve_deps(module, {}, s.seams);
  ASSERT_GT(alone.missing(), 0u);
  // ... after `import torch` it is already loaded.
  DepsOptions d2;
  d2.preloaded = {sp + "/torch/lib"};
  auto after = resolve_deps(module, d2, s.seams);
  EXPECT_EQ(after.missing(), 0u);
  bool via_preloaded = false;
  for (const auto& l : after.libraries) via_preloaded |= l.name == "libb.so" && l.via == binary::Via::preloaded;
  EXPECT_TRUE(via_preloaded);
  // verify finds torch/lib on its own for a module inside site-packages.
  auto v = verify_files({module}, {}, {}, s.seams);
  for (const auto& p : v.problems) EXPECT_NE(p.kind, binary::ProblemKind::missing_library) << p.line();
}

// What `import torch` loads is torch/_C and everything it needs through torch's own RUNPATH (the
// nvidia-* wheels' libraries beside torch): an extension that names one of those with no RUNPATH
// imports. A library nobody loads is still missing.
TEST_F(Deps, ExtensionModulesReuseWhatTorchsImportLoaded) {
  const std::string d = dir.path();
  const std::string sp = d + "/lib/python3.12/site-packages";
  std::filesystem::create_directories(sp + "/torch/lib");
  std::filesystem::create_directories(sp + "/nvidia/rt/lib");
  dir.write("rt.cpp", "int rt_func() { return 1; }\n");
  dir.write("c10.cpp", "int rt_func();\nint c10_func() { return rt_func(); }\n");
  dir.write("tc.cpp", "int c10_func();\nint tc_func() { return c10_func(); }\n");
  dir.write("ext.cpp", "int c10_func();\nint rt_func();\nint ext_func() { return c10_func() + rt_func(); }\n");
  dir.write("ghost.cpp", "int ghost_func() { return 2; }\n");
  dir.write("ext2.cpp", "int ghost_func();\nint ext2_func() { return ghost_func(); }\n");
  std::string log;
  ASSERT_TRUE(compile(
      s.proc,
      {"-shared", "-fPIC", "-o", sp + "/nvidia/rt/lib/librt_x.so.13", "-Wl,-soname,librt_x.so.13", d + "/rt.cpp"}, log))
      << log;
  ASSERT_TRUE(
      compile(s.proc,
              {"-shared", "-fPIC", "-o", sp + "/torch/lib/libc10_x.so", d + "/c10.cpp",
               sp + "/nvidia/rt/lib/librt_x.so.13", "-Wl,--enable-new-dtags,-rpath,$ORIGIN/../../nvidia/rt/lib"},
              log))
      << log;
  ASSERT_TRUE(compile(s.proc,
                      {"-shared", "-fPIC", "-o", sp + "/torch/_C.cpython-312-x86_64-linux-gnu.so", d + "/tc.cpp",
                       "-L" + sp + "/torch/lib", "-lc10_x", "-Wl,--enable-new-dtags,-rpath,$ORIGIN/lib"},
                      log))
      << log;
  dir.write("ghost/x", "");
  ASSERT_TRUE(compile(s.proc, {"-shared", "-fPIC", "-o", d + "/ghost/libghost_x.so", d + "/ghost.cpp"}, log)) << log;
  const std::string ext = sp + "/ext.cpython-312-x86_64-linux-gnu.so";
  const std::string ext2 = sp + "/ext2.cpython-312-x86_64-linux-gnu.so";
  ASSERT_TRUE(compile(s.proc,
                      {"-shared", "-fPIC", "-o", ext, d + "/ext.cpp", "-L" + sp + "/torch/lib", "-lc10_x",
                       sp + "/nvidia/rt/lib/librt_x.so.13"},
                      log))
      << log;
  ASSERT_TRUE(compile(s.proc, {"-shared", "-fPIC", "-o", ext2, d + "/ext2.cpp", "-L" + d + "/ghost", "-lghost_x"}, log))
      << log;

  ExtensionTorchFinder finder(s.seams, "");
  DepsOptions opt;
  finder.add_preloaded(ext, opt);
  auto r = resolve_deps(ext, opt, s.seams);
  EXPECT_EQ(r.missing(), 0u);
  for (const auto& l : r.libraries)
    if (l.name == "librt_x.so.13") {
      EXPECT_EQ(l.via, binary::Via::preloaded);
      EXPECT_EQ(l.path.value_or(""), sp + "/nvidia/rt/lib/librt_x.so.13");
    }
  auto v = verify_files({sp}, {}, {}, s.seams);
  std::vector<std::string> missing;
  for (const auto& p : v.problems)
    if (p.kind == binary::ProblemKind::missing_library) missing.push_back(p.file + ": " + p.why);
  ASSERT_EQ(missing.size(), 1u) << ::testing::PrintToString(missing);
  EXPECT_NE(missing[0].find("ext2.cpython-312-x86_64-linux-gnu.so: needs libghost_x.so"), std::string::npos)
      << missing[0];
  ASSERT_EQ(v.torches.size(), 1u);
  EXPECT_EQ(v.torches[0].torch_dir, sp + "/torch");
}

// A module named plain NAME.so (importlib's last suffix; sam2 2b90b9f5 installs sam2/_C.so) is
// imported after torch like a tagged one: on the GPU host `kiln build` of sam2 failed its own verify
// with "needs libc10.so ... not found" for a module that imported and ran. So is a library that
// needs torch's libraries and has no way to find them itself: only a process that imported torch
// can load it (pytorch_scatter 648dda3's _scatter_cpu.so, loaded with torch.ops.load_library, no
// PyInit_; its `kiln build` on the GPU host failed its own verify the same way). A library missing
// for real still fails, and a program is never loaded after torch. (A made-up torch library name:
// Debian's python3-torch puts a libc10.so where the loader looks.)
TEST_F(Deps, WhatOnlyAProcessWithTorchCanLoadIsCheckedAfterImportTorch) {
  const std::string sp = dir.path() + "/lib/python3.12/site-packages";
  std::filesystem::create_directories(sp + "/torch/lib");
  std::filesystem::create_directories(sp + "/pkg");
  std::filesystem::create_directories(dir / "gone");
  std::string log;
  ASSERT_TRUE(
      compile(s.proc, {"-shared", "-fPIC", "-o", sp + "/torch/lib/libtorch_kilntest.so", dir.path() + "/b.cpp"}, log))
      << log;
  ASSERT_TRUE(compile(s.proc, {"-shared", "-fPIC", "-o", dir.path() + "/gone/libghost.so", dir.path() + "/b.cpp"}, log))
      << log;
  dir.write("init.cpp",
            "#include <string>\nstd::string b_func(const std::string&);\n"
            "extern \"C\" void* PyInit__C() { static std::string s = b_func(\"x\"); return &s; }\n");
  dir.write("ops.cpp",
            "#include <string>\nstd::string b_func(const std::string&);\nstd::string op() { return b_func(\"o\"); }\n");
  dir.write(
      "main.cpp",
      "#include <string>\nstd::string b_func(const std::string&);\nint main() { return b_func(\"m\").size(); }\n");
  const std::vector<std::string> link{"-L" + sp + "/torch/lib", "-Wl,--no-as-needed", "-ltorch_kilntest"};
  auto build = [&](const std::string& out, const std::string& src, std::vector<std::string> extra) {
    std::vector<std::string> args{"-fPIC", "-o", out, dir.path() + "/" + src};
    args.insert(args.end(), link.begin(), link.end());
    args.insert(args.end(), extra.begin(), extra.end());
    return compile(s.proc, args, log);
  };
  // torch's own module finds its libraries through its RUNPATH; the project's files have none.
  ASSERT_TRUE(build(sp + "/torch/_C.cpython-312-x86_64-linux-gnu.so", "init.cpp",
                    {"-shared", "-Wl,--enable-new-dtags,-rpath,$ORIGIN/lib"}))
      << log;
  ASSERT_TRUE(build(sp + "/pkg/_C.so", "init.cpp", {"-shared"})) << log;
  ASSERT_TRUE(build(sp + "/pkg/_ops_cpu.so", "ops.cpp", {"-shared"})) << log;
  ASSERT_TRUE(build(sp + "/pkg/libhelper.so", "ops.cpp", {"-shared", "-L" + dir.path() + "/gone", "-lghost"})) << log;
  ASSERT_TRUE(build(sp + "/pkg/tool", "main.cpp", {})) << log;
  std::filesystem::remove(dir.path() + "/gone/libghost.so");
  EXPECT_TRUE(python_extension_module(sp + "/pkg/_C.so", s.seams));
  EXPECT_FALSE(python_extension_module(sp + "/pkg/_ops_cpu.so", s.seams));
  EXPECT_FALSE(python_extension_module(sp + "/torch/lib/libtorch_kilntest.so", s.seams));
  auto v = verify_files({sp + "/pkg"}, {}, VerifyOptions{}, s.seams);
  std::set<std::string> missing;
  for (const auto& p : v.problems)
    if (p.kind == ProblemKind::missing_library) missing.insert(p.file + " " + p.why.substr(0, p.why.find(' ', 6)));
  std::string all;
  for (const auto& p : v.problems) all += p.line() + "\n";
  EXPECT_EQ(missing, (std::set<std::string>{sp + "/pkg/libhelper.so needs libghost.so",
                                            sp + "/pkg/tool needs libtorch_kilntest.so"}))
      << all;
  // kiln inspect --deps asks the same question and gets the same answer.
  ExtensionTorchFinder torch(s.seams, "");
  bool after = false;
  EXPECT_EQ(torch.resolve(sp + "/pkg/_ops_cpu.so", DepsOptions{}, &after).missing(), 0u);
  EXPECT_TRUE(after);
  EXPECT_EQ(torch.resolve(sp + "/pkg/tool", DepsOptions{}, &after).missing(), 1u);
  EXPECT_FALSE(after);
}
