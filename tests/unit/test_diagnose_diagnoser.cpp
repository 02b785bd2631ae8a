// The matcher: root-cause ordering on long mixed logs, streaming equivalence across block
// boundaries, context lines, plan-aware fixes.
#include <gtest/gtest.h>

#include <random>
#include <sstream>

#include "diagnose/diagnoser.hpp"

using namespace kiln::diagnose;

namespace {

// Realistic filler: ninja progress lines and compile commands full of -Werror and "error"-like
// words that must not be reported.
std::string noise_line(std::mt19937& rng, size_t i) {
  switch (rng() % 5) {
    case 0:
      return "[" + std::to_string(i) +
             "/99999] Building CXX object caffe2/CMakeFiles/torch_cpu.dir/aten/src/ATen/native/op" + std::to_string(i) +
             ".cpp.o";
    case 1:
      return "/usr/bin/c++ -DUSE_CUDA -Werror=return-type -Wno-error=deprecated -O3 -c "
             "/src/aten/src/ATen/native/Error" +
             std::to_string(i) + ".cpp";
    case 2:
      return "-- Looking for strerror_r - found";
    case 3:
      return "[" + std::to_string(i) + "/99999] Building CUDA object caffe2/CMakeFiles/torch_cuda.dir/kernels/k" +
             std::to_string(i) + ".cu.o";
    default:
      return "copying torch/include/ATen/ops/error_" + std::to_string(i) + ".h -> build/lib";
  }
}

struct LogBuilder {
  std::string text;
  size_t lines = 0;
  std::mt19937 rng{42};
  void noise(size_t n) {
    for (size_t i = 0; i < n; ++i) add(noise_line(rng, lines));
  }
  size_t add(const std::string& l) {
    text += l + "\n";
    return ++lines;
  }
};

TEST(Diagnoser, CleanLongLogHasNoFailure) {
  LogBuilder b;
  b.noise(50000);
  Diagnosis d = diagnose_text(b.text);
  EXPECT_FALSE(d.failed());
  EXPECT_TRUE(d.findings.empty());
  EXPECT_EQ(d.lines, 50000u);
}

TEST(Diagnoser, KilledCompilerBeatsEarlierCompileErrorAndNinjaSummary) {
  LogBuilder b;
  b.noise(20000);
  b.add("FAILED: CMakeFiles/k.dir/a.cpp.o");
  b.add("/usr/bin/c++ -c a.cpp");
  size_t cxx = b.add("a.cpp:10:5: error: 'foo' was not declared in this scope");
  b.noise(60000);
  b.add("FAILED: CMakeFiles/k.dir/big.cpp.o");
  size_t killed = b.add("g++: fatal error: Killed signal terminated program cc1plus");
  b.add("compilation terminated.");
  b.add("ninja: build stopped: subcommand failed.");
  Diagnosis d = diagnose_text(b.text);
  ASSERT_TRUE(d.failed());
  EXPECT_EQ(d.root_cause()->signature->id, "resources.compiler-killed");
  EXPECT_EQ(d.root_cause()->first_line, killed);
  ASSERT_NE(d.find("host-compiler.compile-error"), nullptr);
  EXPECT_EQ(d.find("host-compiler.compile-error")->first_line, cxx);
  // The summaries rank last.
  EXPECT_EQ(d.findings.back().signature->priority, 5);
}

TEST(Diagnoser, FirstOfEqualRankErrorsIsTheRoot) {
  LogBuilder b;
  b.noise(30000);
  size_t first = b.add("kernels/a.cu(12): error: expected a \";\"");
  b.noise(100);
  b.add("kernels/a.cu(40): error: identifier \"half2\" is undefined");
  b.add("2 errors detected in the compilation of \"kernels/a.cu\".");
  b.noise(10);
  b.add("ninja: build stopped: subcommand failed.");
  Diagnosis d = diagnose_text(b.text);
  ASSERT_TRUE(d.failed());
  EXPECT_EQ(d.root_cause()->signature->id, "nvcc.compile-error");
  EXPECT_EQ(d.root_cause()->first_line, first);
  EXPECT_EQ(*d.root_cause()->capture("line"), "12");
}

TEST(Diagnoser, NinjaSummaryAloneIsStillAFailureWithTheCommand) {
  LogBuilder b;
  b.noise(1000);
  size_t failed = b.add("FAILED: out/gen.cpp");
  b.add("/usr/bin/python3 tools/gen.py --out out/gen.cpp");
  b.add("gen.py: template has no entry 'add_out'");
  b.add("ninja: build stopped: subcommand failed.");
  Diagnosis d = diagnose_text(b.text);
  ASSERT_TRUE(d.failed());
  const Finding* root = d.root_cause();
  EXPECT_EQ(root->signature->id, "build-tool.ninja-failed-command");
  EXPECT_EQ(root->first_line, failed);
  ASSERT_GE(root->evidence.size(), 3u);
  EXPECT_EQ(root->evidence[1].text, "/usr/bin/python3 tools/gen.py --out out/gen.cpp");
  EXPECT_EQ(root->evidence[2].number, failed + 2);
}

TEST(Diagnoser, ConfigurationErrorInsideCMakeCheckBeatsTheCheckSummary) {
  std::string log =
      "-- Check for working CUDA compiler: /usr/local/cuda/bin/nvcc - broken\n"
      "CMake Error at /usr/share/cmake-3.25/Modules/CMakeTestCUDACompiler.cmake:103 (message):\n"
      "  is not able to compile a simple test program.\n"
      "    nvcc fatal   : Unsupported gpu architecture 'compute_70'\n"
      "    gmake[1]: *** [CMakeFiles/cmTC.dir/build.make:79: CMakeFiles/cmTC.dir/main.cu.o] Error 1\n"
      "-- Configuring incomplete, errors occurred!\n";
  Diagnosis d = diagnose_text(log);
  ASSERT_TRUE(d.failed());
  EXPECT_EQ(d.root_cause()->signature->id, "nvcc.unsupported-gpu-arch");
  EXPECT_EQ(d.root_cause()->first_line, 4u);
  EXPECT_EQ(d.findings.size(), 5u);
}

// The same log fed whole, line by line, and through istreams cut into odd block sizes must give
// the same findings with the same line numbers and evidence.
TEST(Diagnoser, StreamingIsIndependentOfBlockBoundaries) {
  LogBuilder b;
  b.noise(3000);
  b.add("FAILED: a.o");
  b.add("/usr/bin/c++ -c a.cpp");
  b.add("a.cpp:1:10: fatal error: cuda_runtime.h: No such file or directory");
  b.noise(5000);
  b.add("/usr/bin/ld: cannot find -lfoo: No such file or directory");
  b.add("collect2: error: ld returned 1 exit status");
  b.noise(2);
  b.add("ninja: build stopped: subcommand failed.");
  Options opts;
  opts.context = 3;
  Diagnosis whole = diagnose_text(b.text, opts);
  Diagnoser by_line(opts);
  std::istringstream ls(b.text);
  for (std::string l; std::getline(ls, l);) by_line.feed(l);
  Diagnosis lines = by_line.finish();
  for (size_t chunk : {7u, 64u, 4093u}) {
    Diagnoser dx(opts);
    size_t pos = 0;
    std::string carry;
    while (pos < b.text.size()) {  // blocks of whole lines of about `chunk` bytes
      size_t end = b.text.find('\n', std::min(b.text.size() - 1, pos + chunk));
      dx.feed_block(std::string_view(b.text).substr(pos, end + 1 - pos));
      pos = end + 1;
    }
    Diagnosis blocks = dx.finish();
    for (const Diagnosis* other : {&lines, &blocks}) {
      ASSERT_EQ(other->findings.size(), whole.findings.size()) << chunk;
      EXPECT_EQ(other->lines, whole.lines);
      for (size_t i = 0; i < whole.findings.size(); ++i) {
        const Finding &a = whole.findings[i], &c = other->findings[i];
        EXPECT_EQ(a.signature->id, c.signature->id);
        EXPECT_EQ(a.first_line, c.first_line);
        ASSERT_EQ(a.evidence.size(), c.evidence.size()) << a.signature->id << " chunk " << chunk;
        for (size_t k = 0; k < a.evidence.size(); ++k) EXPECT_EQ(a.evidence[k].text, c.evidence[k].text);
        ASSERT_EQ(a.context.size(), c.context.size()) << a.signature->id << " chunk " << chunk;
        for (size_t k = 0; k < a.context.size(); ++k) {
          EXPECT_EQ(a.context[k].number, c.context[k].number);
          EXPECT_EQ(a.context[k].text, c.context[k].text);
        }
      }
    }
  }
  const Finding* root = whole.root_cause();
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->signature->id, "host-compiler.cuda-header-missing");
  ASSERT_EQ(root->context.size(), 7u);  // 3 before, the line, 3 after
  EXPECT_EQ(root->context[1].text, "FAILED: a.o");
  EXPECT_EQ(root->context[3].number, root->first_line);
}

TEST(Diagnoser, StreamHandlesMissingFinalNewlineAndCRLF) {
  std::istringstream in("line one\r\nnvcc fatal   : Unsupported gpu architecture 'compute_50'\r\nlast");
  Diagnosis d = diagnose_stream(in);
  ASSERT_TRUE(d.failed());
  EXPECT_EQ(*d.root_cause()->capture("arch"), "compute_50");
  EXPECT_EQ(d.root_cause()->evidence[0].text, "nvcc fatal   : Unsupported gpu architecture 'compute_50'");
  EXPECT_EQ(d.lines, 3u);
}

TEST(Diagnoser, BareKilledLineIsFoundWithUnixAndWindowsLineEnds) {
  for (const char* log : {"FAILED: a.o\nKilled\nninja: build stopped: subcommand failed.\n",
                          "FAILED: a.o\r\nKilled\r\nninja: build stopped: subcommand failed.\r\n", "Killed"}) {
    std::istringstream in(log);
    Diagnosis d = diagnose_stream(in);
    ASSERT_TRUE(d.failed()) << log;
    EXPECT_EQ(d.root_cause()->signature->id, "resources.killed") << log;
  }
  // "Killed" inside a longer line is not the shell's report of a killed process.
  EXPECT_FALSE(diagnose_text("-- Killed processes: none\n").failed());
}

TEST(Diagnoser, ColoredCompilerOutputIsMatchedWithoutEscapes) {
  // g++ -fdiagnostics-color=always, as ninja-driven CMake builds often print it.
  std::string log =
      "\x1b[01m\x1b[Kops.cpp:12:10:\x1b[m\x1b[K \x1b[01;31m\x1b[Kerror: "
      "\x1b[m\x1b[K\xe2\x80\x98\x1b[01m\x1b[Klaunch\x1b[m\x1b[K\xe2\x80\x99 "
      "was not declared in this scope\n";
  Diagnosis d = diagnose_text(log);
  ASSERT_TRUE(d.failed());
  EXPECT_EQ(d.root_cause()->signature->id, "host-compiler.compile-error");
  EXPECT_EQ(*d.root_cause()->capture("file"), "ops.cpp");
  EXPECT_EQ(d.root_cause()->evidence[0].text.find('\x1b'), std::string::npos);
}

// Arbitrary bytes (NULs, lone escapes, invalid UTF-8, no newlines) are read without crashing.
TEST(Diagnoser, SurvivesRandomBytes) {
  std::mt19937 rng(3);
  for (int round = 0; round < 50; ++round) {
    std::string junk;
    size_t n = rng() % 20000;
    for (size_t i = 0; i < n; ++i) {
      unsigned r = rng() % 100;
      if (r < 3)
        junk += "error: ";
      else if (r < 5)
        junk += "\x1b[";
      else if (r < 8)
        junk += '\n';
      else
        junk += static_cast<char>(rng() % 256);
    }
    std::istringstream in(junk);
    Diagnosis d = diagnose_stream(in);
    bool partial = !junk.empty() && junk.back() != '\n';
    EXPECT_EQ(d.bytes, junk.size() + (partial ? 1 : 0));
    EXPECT_EQ(d.lines, static_cast<uint64_t>(std::count(junk.begin(), junk.end(), '\n')) + (partial ? 1 : 0));
  }
}

TEST(Diagnoser, HugeLineDoesNotBreakMatching) {
  std::string log(3 << 20, 'x');  // a 3 MiB line without keywords
  log += "\n" + std::string(100000, 'y') + " error: something broke\n";
  log += "/usr/bin/ld: cannot find -lcudart: No such file or directory\n";
  std::istringstream in(log);
  Diagnosis d = diagnose_stream(in);
  ASSERT_TRUE(d.failed());
  EXPECT_EQ(d.root_cause()->signature->id, "linker.cannot-find-cuda-library");
  EXPECT_EQ(d.root_cause()->first_line, 3u);
  // A message at the end of a 20 kB line (a long link command echoed with its error) is found.
  std::string long_line = std::string(20000, 'o') + " undefined reference to `deep_symbol()'\n";
  d = diagnose_text(long_line);
  ASSERT_TRUE(d.failed());
  EXPECT_EQ(*d.root_cause()->capture("symbol"), "deep_symbol()");
}

TEST(Diagnoser, PlanContextTurnsTheFixIntoThePlansTerms) {
  Options opts;
  opts.plan = PlanContext{16, 64.0, 6, "8.0;9.0", "13.0"};
  Diagnosis d = diagnose_text("g++: fatal error: Killed signal terminated program cc1plus\n", opts);
  ASSERT_TRUE(d.failed());
  EXPECT_EQ(d.root_cause()->fix,
            "kiln used -j16 with 64 GiB of memory; next time use --jobs 6 (or give the build more memory).");
  // Without a next-jobs figure the plan's job count is halved.
  opts.plan->next_jobs.reset();
  d = diagnose_text("nvcc error   : 'cicc' died due to signal 9 (Kill signal)\n", opts);
  EXPECT_EQ(d.root_cause()->fix, "kiln used -j16 with 64 GiB of memory; next time use --jobs 8.");
  // Without a plan: the generic advice.
  d = diagnose_text("g++: fatal error: Killed signal terminated program cc1plus\n");
  EXPECT_NE(d.root_cause()->fix.find("MAX_JOBS=4"), std::string::npos);
  // A plan that lacks a value the plan wording needs falls back to the generic fix.
  Options partial;
  partial.plan = PlanContext{};
  partial.plan->arch_list = "9.0";
  d = diagnose_text("g++: fatal error: Killed signal terminated program cc1plus\n", partial);
  EXPECT_NE(d.root_cause()->fix.find("MAX_JOBS=4"), std::string::npos);
  d = diagnose_text("nvcc fatal   : Unsupported gpu architecture 'compute_70'\n", opts);
  EXPECT_EQ(d.root_cause()->fix,
            "The plan targets 8.0;9.0 but nvcc 13.0 cannot build compute_70; rerun `kiln plan` so it drops or replaces "
            "it, or point kiln at a CUDA toolkit that supports compute_70.");
}

TEST(Fill, CapturesPlanAndShellText) {
  std::vector<std::pair<std::string, std::string>> caps = {{"arch", "sm_70"}, {"empty", ""}};
  EXPECT_EQ(fill("drop {arch} from ${CUDA_HOME:-x} {'cxx': 1} {missing} {empty}", caps, std::nullopt),
            "drop sm_70 from ${CUDA_HOME:-x} {'cxx': 1} <missing> <empty>");
  PlanContext p;
  p.jobs = 4;
  EXPECT_EQ(fill("-j{plan.jobs} -> {plan.next_jobs}, {plan.memory_gib}", caps, p), "-j4 -> 2, <plan.memory_gib>");
  EXPECT_TRUE(plan_can_fill("-j{plan.jobs} {arch}", p));
  EXPECT_FALSE(plan_can_fill("{plan.memory_gib}", p));
}

TEST(Diagnoser, WarningsAloneAreNotAFailure) {
  Diagnosis d = diagnose_text(
      "UserWarning: Attempted to use ninja as the BuildExtension backend but we could not find ninja.. Falling back\n"
      "running build_ext\n");
  EXPECT_FALSE(d.failed());
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].signature->severity, Severity::warning);
}

TEST(Diagnoser, RepeatedFindingIsCountedOnceWithBoundedEvidence) {
  std::string log;
  for (int i = 0; i < 100; ++i) log += "u.cpp:(.text+0x5): undefined reference to `f" + std::to_string(i) + "()'\n";
  Diagnosis d = diagnose_text(log);
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].count, 100u);
  EXPECT_EQ(d.findings[0].evidence.size(), 5u);
  EXPECT_EQ(*d.findings[0].capture("symbol"), "f0()");
}

}  // namespace
