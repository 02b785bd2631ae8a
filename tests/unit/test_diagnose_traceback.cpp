// Python tracebacks in build logs: the frames are read after the header wherever the log's blocks
// are cut, the project's own innermost frame is named, a cut traceback is not reported, and a
// compiler's error still outranks the traceback its build script raised afterwards.
#include <gtest/gtest.h>

#include "diagnose/diagnoser.hpp"
#include "diagnose/traceback.hpp"

using namespace kiln::diagnose;

namespace {

const char* kArchTraceback =
    "Traceback (most recent call last):\n"
    "  File \"/src/DS/setup.py\", line 199, in <module>\n"
    "    ext_modules.append(builder.builder())\n"
    "  File \"/src/DS/op_builder/builder.py\", line 742, in compute_capability_args\n"
    "    minor = int(minor_part.split('+')[0])\n"
    "ValueError: invalid literal for int() with base 10: '0a'\n";

TEST(TracebackReader, ReadsFramesCodeAndException) {
  TracebackReader r("      Traceback (most recent call last):", 10);
  EXPECT_TRUE(r.feed("        File \"<string>\", line 2, in <module>", 11));
  EXPECT_TRUE(r.feed("        File \"/tmp/p/setup.py\", line 64, in get_extensions", 12));
  EXPECT_TRUE(r.feed("          x = int(os.environ[\"N\"])", 13));
  EXPECT_TRUE(r.feed("              ^^^^^^^^^^^^^^^^^^^^^^", 14));
  EXPECT_FALSE(r.feed("      ValueError: invalid literal for int() with base 10: ''", 15));
  ASSERT_TRUE(r.complete());
  const Traceback& tb = r.traceback();
  ASSERT_EQ(tb.frames.size(), 2u);
  EXPECT_EQ(tb.frames[1].file, "/tmp/p/setup.py");
  EXPECT_EQ(tb.frames[1].line, 64);
  EXPECT_EQ(tb.frames[1].function, "get_extensions");
  EXPECT_EQ(tb.frames[1].code, "x = int(os.environ[\"N\"])");  // not the ^^^ markers
  EXPECT_EQ(tb.exception, "ValueError: invalid literal for int() with base 10: ''");
  EXPECT_EQ(tb.exception_line, 15u);
}

TEST(TracebackReader, GivesUpOnALineLessIndentedThanTheHeader) {
  TracebackReader r("    Traceback (most recent call last):", 1);
  EXPECT_TRUE(r.feed("      File \"/p/setup.py\", line 3, in <module>", 2));
  EXPECT_FALSE(r.feed("[end of output]", 3));
  EXPECT_FALSE(r.complete());
}

TEST(TracebackFrames, LibraryFramesAreNotTheProjects) {
  EXPECT_TRUE(is_library_frame("<string>"));
  EXPECT_TRUE(is_library_frame("/opt/torch/.venv/lib/python3.12/site-packages/torch/utils/cpp_extension.py"));
  EXPECT_TRUE(is_library_frame("/usr/lib/python3.11/subprocess.py"));
  EXPECT_TRUE(is_library_frame("/usr/lib/python3/dist-packages/setuptools/build_meta.py"));
  EXPECT_FALSE(is_library_frame("/tmp/pip-req-build-x/op_builder/builder.py"));
  // kiln's own helpers in the build folder call the project's build but are not the project's code
  EXPECT_TRUE(is_library_frame("/src/proj/build-kiln/.kiln/kiln_parallel_extensions.py"));
  EXPECT_FALSE(is_library_frame("/home/u/lib/pythonic/setup.py"));  // not python<digit>
  Traceback tb;
  tb.frames = {{"/p/setup.py", 9, "<module>", "", 1},
               {"/p/helpers.py", 20, "f", "", 3},
               {"/usr/lib/python3.11/os.py", 700, "__getitem__", "", 5}};
  EXPECT_EQ(project_frame(tb)->file, "/p/helpers.py");
  tb.frames.erase(tb.frames.begin(), tb.frames.begin() + 2);
  EXPECT_EQ(project_frame(tb)->file, "/usr/lib/python3.11/os.py");  // none of the project's: the innermost
}

TEST(TracebackDiagnosis, ArchSuffixNamesTheProjectLineAndTheVariable) {
  Diagnosis d = diagnose_text(std::string("running build_ext\n") + kArchTraceback);
  ASSERT_TRUE(d.failed());
  const Finding& f = *d.root_cause();
  EXPECT_EQ(f.signature->id, "python.arch-list-int-suffix");
  EXPECT_EQ(*f.capture("frame"), "/src/DS/op_builder/builder.py:742");
  EXPECT_NE(f.fix.find("TORCH_CUDA_ARCH_LIST=9.0"), std::string::npos) << f.fix;
  EXPECT_NE(f.cause.find("minor = int(minor_part.split('+')[0])"), std::string::npos) << f.cause;
}

TEST(TracebackDiagnosis, FramesAcrossBlocksReadTheSame) {
  Diagnoser dx;
  std::string text = kArchTraceback;
  size_t pos = 0;
  while (pos < text.size()) {  // one line per block: every frame arrives in a later block
    size_t nl = text.find('\n', pos);
    dx.feed(std::string_view(text).substr(pos, nl - pos));
    pos = nl + 1;
  }
  Diagnosis d = dx.finish();
  ASSERT_TRUE(d.failed());
  EXPECT_EQ(d.root_cause()->signature->id, "python.arch-list-int-suffix");
  EXPECT_EQ(*d.root_cause()->capture("frame"), "/src/DS/op_builder/builder.py:742");
}

TEST(TracebackDiagnosis, AnIntFailureOutsideArchCodeIsTheGenericTraceback) {
  Diagnosis d = diagnose_text(
      "Traceback (most recent call last):\n"
      "  File \"/p/setup.py\", line 12, in <module>\n"
      "    threads = int(os.getenv('BUILD_THREADS', '4x'))\n"
      "ValueError: invalid literal for int() with base 10: '4a'\n");
  ASSERT_TRUE(d.failed());
  EXPECT_EQ(d.root_cause()->signature->id, "python.traceback");
  EXPECT_EQ(*d.root_cause()->capture("frame"), "/p/setup.py:12");
  EXPECT_EQ(*d.root_cause()->capture("type"), "ValueError");
}

TEST(TracebackDiagnosis, ACutTracebackIsNotReported) {
  Diagnosis d = diagnose_text(
      "  Traceback (most recent call last):\n"
      "    File \"/p/setup.py\", line 12, in <module>\n"
      "      main()\n"
      "done\n");
  EXPECT_EQ(d.find("python.traceback"), nullptr);
}

TEST(TracebackDiagnosis, TheCompilerErrorOutranksTheTracebackItCaused) {
  Diagnosis d = diagnose_text(
      "/p/csrc/k.cu(12): error: identifier \"foo\" is undefined\n"
      "ninja: build stopped: subcommand failed.\n"
      "Traceback (most recent call last):\n"
      "  File \"/p/setup.py\", line 40, in <module>\n"
      "    setup(ext_modules=exts)\n"
      "  File \"/usr/lib/python3/dist-packages/torch/utils/cpp_extension.py\", line 2100, in _run_ninja_build\n"
      "    raise RuntimeError(message) from e\n"
      "RuntimeError: Error compiling objects for extension\n");
  ASSERT_TRUE(d.failed());
  EXPECT_NE(d.root_cause()->signature->id, "python.traceback");
  const Finding* tb = d.find("python.traceback");
  ASSERT_NE(tb, nullptr);  // still listed, below the cause
  EXPECT_EQ(*tb->capture("frame"), "/p/setup.py:40");
}

TEST(TracebackDiagnosis, ChainedTracebacksKeepTheFirstCause) {
  Diagnosis d = diagnose_text(
      "Traceback (most recent call last):\n"
      "  File \"/p/setup.py\", line 5, in <module>\n"
      "    import torch\n"
      "ImportError: libcudart.so.13: cannot open shared object file\n"
      "\n"
      "During handling of the above exception, another exception occurred:\n"
      "\n"
      "Traceback (most recent call last):\n"
      "  File \"/p/setup.py\", line 7, in <module>\n"
      "    raise SystemExit('torch is required')\n"
      "SystemExit: torch is required\n");
  const Finding* tb = d.find("python.traceback");
  ASSERT_NE(tb, nullptr);
  EXPECT_EQ(tb->count, 2u);
  EXPECT_EQ(*tb->capture("type"), "ImportError");
  EXPECT_EQ(*tb->capture("frame"), "/p/setup.py:5");
}

}  // namespace
