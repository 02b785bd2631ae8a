// Python tracebacks in build logs: the frames are read after the header wherever the log's blocks
// are cut, the project's own innermost frame is named, a cut traceback is not reported, and a
// compiler's error still outranks the traceback its build script raised afterwards. setup.py's
// frames that setuptools' build_meta printed as "<string>" are named setup.py, with the line from
// the project's setup.py where kiln knows it.
#include <gtest/gtest.h>

#include "diagnose/diagnoser.hpp"
#include "diagnose/traceback.hpp"
#include "read/setup_py_source.hpp"
#include "temp_dir.hpp"
#include "test_support.hpp"

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

// setuptools 63.2+ (build_meta's run_setup: exec(code, locals()) of setup.py's text) under kiln
// build's wheel_build.py, Python 3.12: setup.py's frame is "<string>", without its line. Written for
// kiln after the log of state-spaces/mamba e9594ce on the GPU host, whose setup.py:28 opens
// README.md.
const char* kSetupPyText =
    "Traceback (most recent call last):\n"
    "  File \"/src/mamba/build-kiln/.kiln/wheel_build.py\", line 160, in <module>\n"
    "    name = backend.build_wheel(out)\n"
    "  File \"/opt/torch/.venv/lib/python3.12/site-packages/setuptools/build_meta.py\", line 435, in build_wheel\n"
    "    return _build(['bdist_wheel', '--dist-info-dir', str(metadata_directory)])\n"
    "  File \"/opt/torch/.venv/lib/python3.12/site-packages/setuptools/build_meta.py\", line 520, in run_setup\n"
    "    super().run_setup(setup_script=setup_script)\n"
    "  File \"/opt/torch/.venv/lib/python3.12/site-packages/setuptools/build_meta.py\", line 317, in run_setup\n"
    "    exec(code, locals())\n"
    "  File \"<string>\", line 28, in <module>\n"
    "FileNotFoundError: [Errno 2] No such file or directory: 'README.md'\n";

std::string setup_py_with_line_28() {
  std::string text;
  for (int i = 1; i < 28; ++i) text += "# line " + std::to_string(i) + "\n";
  return text + "with open(\"README.md\", \"r\", encoding=\"utf-8\") as fh:\n    long_description = fh.read()\n";
}

TEST(SetupPyText, TheStringFrameThatBuildMetaRunsIsSetupPy) {
  Diagnosis d = diagnose_text(kSetupPyText);
  ASSERT_TRUE(d.failed());
  const Finding& f = *d.root_cause();
  EXPECT_EQ(f.signature->id, "python.traceback");
  EXPECT_EQ(*f.capture("frame"), "setup.py:28");
  EXPECT_EQ(*f.capture("raised_at"), "setup.py:28");
  // The project is not known: the line is not, and the diagnosis says why instead of a placeholder.
  EXPECT_EQ(f.cause,
            "FileNotFoundError: [Errno 2] No such file or directory: 'README.md', raised at setup.py:28 (in <module>; "
            "setuptools ran setup.py's text with exec, so Python printed it as <string>, without the line).");
  EXPECT_EQ(f.fix.rfind("Open setup.py:28: the line there raised FileNotFoundError (the innermost frame is "
                        "setup.py:28); ",
                        0),
            0u)
      << f.fix;
  EXPECT_EQ((f.cause + f.fix).find("<code>"), std::string::npos);
  EXPECT_EQ((f.cause + f.fix).find("<string>:"), std::string::npos);
  // The evidence is the log's own line.
  bool printed = false;
  for (const auto& l : f.evidence) printed |= l.text == "File \"<string>\", line 28, in <module>";
  EXPECT_TRUE(printed);
}

TEST(SetupPyText, ThePlansSetupPyGivesTheLine) {
  kiln::io::FakeFilesystem fs;
  fs.add_file("/src/mamba/setup.py", setup_py_with_line_28());
  Options opts;
  opts.plan = PlanContext{.setup_py = kiln::read::setup_py_source(fs, "/src/mamba")};
  Diagnosis d = diagnose_text(kSetupPyText, opts);
  ASSERT_TRUE(d.failed());
  const Finding& f = *d.root_cause();
  EXPECT_EQ(*f.capture("code"), "with open(\"README.md\", \"r\", encoding=\"utf-8\") as fh:");
  EXPECT_EQ(f.cause,
            "FileNotFoundError: [Errno 2] No such file or directory: 'README.md', raised at setup.py:28 (in <module>: "
            "`with open(\"README.md\", \"r\", encoding=\"utf-8\") as fh:`; the log names it <string>, as setuptools "
            "ran setup.py's text with exec).");
  EXPECT_EQ(f.fix.rfind("Open setup.py:28: its line `with open(\"README.md\", \"r\", encoding=\"utf-8\") as fh:` "
                        "raised FileNotFoundError",
                        0),
            0u)
      << f.fix;
  // A setup.py shorter than the frame's line: no line, said as without the project.
  opts.plan->setup_py = "import os\n";
  EXPECT_NE(diagnose_text(kSetupPyText, opts).root_cause()->cause.find("without the line"), std::string::npos);
}

TEST(SetupPyText, SetupPySourceIsReadWithinItsBound) {
  kiln::io::FakeFilesystem fs;
  EXPECT_EQ(kiln::read::setup_py_source(fs, "/p"), "");  // none
  fs.add_file("/p/setup.py", "from setuptools import setup\n");
  EXPECT_EQ(kiln::read::setup_py_source(fs, "/p"), "from setuptools import setup\n");
  fs.add_file("/big/setup.py", std::string(kiln::io::kProjectFileMaxBytes + 1, '#'));
  EXPECT_EQ(kiln::read::setup_py_source(fs, "/big"), "");
}

// pip's build in an isolated environment (six-space indent), a helper function of setup.py's, and a
// command class of setup.py's that setuptools calls back: each "<string>" frame is setup.py's.
TEST(SetupPyText, SetupPysFunctionsAndCommandsUnderPip) {
  TracebackReader r("      Traceback (most recent call last):", 1);
  const char* lines[] = {
      "        File \"/usr/lib/python3/dist-packages/pip/_vendor/pyproject_hooks/_in_process/_in_process.py\", line "
      "251, in build_wheel",
      "          return _build_backend().build_wheel(wheel_directory, config_settings,",
      "        File \"/tmp/pip-build-env-x1/overlay/lib/python3.11/site-packages/setuptools/build_meta.py\", line 335, "
      "in run_setup",
      "          exec(code, locals())",
      "        File \"<string>\", line 90, in <module>",
      "        File \"<string>\", line 41, in get_extensions",
      "        File \"/tmp/pip-build-env-x1/overlay/lib/python3.11/site-packages/setuptools/__init__.py\", line 107, "
      "in setup",
      "          return distutils.core.setup(**attrs)",
      "        File \"<string>\", line 120, in run",
      "        File \"/usr/lib/python3.11/subprocess.py\", line 571, in run",
      "          raise CalledProcessError(retcode, process.args,",
  };
  uint64_t n = 2;
  for (const char* l : lines) ASSERT_TRUE(r.feed(l, n++));
  EXPECT_FALSE(
      r.feed("      subprocess.CalledProcessError: Command '['nvcc', '-V']' returned non-zero exit status 1.", n));
  ASSERT_TRUE(r.complete());
  const auto& fr = r.traceback().frames;
  ASSERT_EQ(fr.size(), 7u);
  EXPECT_EQ(fr[2].file, "setup.py");
  EXPECT_EQ(fr[3].file, "setup.py");
  EXPECT_EQ(fr[5].file, "setup.py");
  EXPECT_TRUE(fr[5].setup_py_text);
  EXPECT_EQ(project_frame(r.traceback())->line, 120);
  EXPECT_EQ(project_frame(r.traceback())->function, "run");
}

// What is not setup.py stays "<string>": pip's own `python -c` frame (no build_meta), another
// file's text that setup.py ran (a version.py), and code Python generates (a dataclass's __init__).
TEST(SetupPyText, OtherStringFramesStayLibraryFrames) {
  // The files of `frames` once named.
  auto named = [](std::vector<TracebackFrame> frames) {
    Traceback tb;
    tb.frames = std::move(frames);
    name_setup_py_frames(tb);
    std::vector<std::string> files;
    for (const auto& f : tb.frames) files.push_back(f.file);
    return files;
  };
  using Files = std::vector<std::string>;
  EXPECT_EQ(named({{"<string>", 2, "<module>", "", 1}, {"/tmp/pip-req-build-x/setup.py", 9, "<module>", "setup()", 2}}),
            (Files{"<string>", "/tmp/pip-req-build-x/setup.py"}));
  const std::string meta = "/usr/lib/python3/dist-packages/setuptools/build_meta.py";
  const TracebackFrame run_setup{meta, 335, "run_setup", "exec(code, locals())", 1};
  EXPECT_EQ(named({run_setup,
                   {"<string>", 12, "<module>", "", 3},
                   {"<string>", 3, "<module>", "", 4},
                   {"<string>", 5, "get_version", "", 5}}),
            (Files{meta, "setup.py", "<string>", "<string>"}));
  EXPECT_EQ(named({run_setup,
                   {"<string>", 40, "<module>", "", 3},
                   {"/usr/lib/python3.11/dataclasses.py", 20, "make", "return Options(**kw)", 4},
                   {"<string>", 3, "__init__", "", 6}}),
            (Files{meta, "setup.py", "/usr/lib/python3.11/dataclasses.py", "<string>"}));
  // setuptools before 63.2 compiled the text as "setup.py": printed with its line, read as is.
  Diagnosis d = diagnose_text(
      "Traceback (most recent call last):\n"
      "  File \"/usr/lib/python3/dist-packages/setuptools/build_meta.py\", line 174, in run_setup\n"
      "    exec(compile(code, __file__, 'exec'), locals())\n"
      "  File \"setup.py\", line 28, in <module>\n"
      "    with open(\"README.md\") as fh:\n"
      "FileNotFoundError: [Errno 2] No such file or directory: 'README.md'\n");
  ASSERT_TRUE(d.failed());
  EXPECT_EQ(*d.root_cause()->capture("frame"), "setup.py:28");
  EXPECT_NE(d.root_cause()->fix.find("its line `with open(\"README.md\") as fh:`"), std::string::npos);
}

// kiln diagnose fills the line from the project it is given, or that kiln build's record beside the
// log names; a bare kiln diagnose LOG does not read the setup.py of the folder it runs in.
TEST(SetupPyText, KilnDiagnoseReadsTheLineFromTheKnownProject) {
  kiln::testing::TempDir dir;
  const std::string proj = dir / "mamba";
  dir.write("mamba/setup.py", setup_py_with_line_28());
  const std::string log = dir.write("mamba/build-kiln/kiln-build.log", kSetupPyText);
  const std::string line =
      "its line `with open(\"README.md\", \"r\", encoding=\"utf-8\") as fh:` raised FileNotFoundError";
  kiln::testing::CliRig c;
  EXPECT_EQ(c.run({"diagnose", log, "--project", proj}), 1);
  EXPECT_NE(c.out.str().find(line), std::string::npos) << c.out.str();
  EXPECT_EQ(c.run({"diagnose", log}), 1);  // no record: the project is not known
  EXPECT_NE(c.out.str().find("Open setup.py:28: the line there raised FileNotFoundError"), std::string::npos)
      << c.out.str();
  dir.write("mamba/build-kiln/kiln-build.json", "{\"schema\": 1, \"project_dir\": \"" + proj + "\"}");
  EXPECT_EQ(c.run({"diagnose", log}), 1);
  EXPECT_NE(c.out.str().find(line), std::string::npos) << c.out.str();
}

}  // namespace
