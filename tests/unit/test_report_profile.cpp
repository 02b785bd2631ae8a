#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

#include "test_support.hpp"

#include "report/ninja_graph.hpp"
#include "report/compute_profile.hpp"
#include "report/profile.hpp"
#include "report/profile_remedy.hpp"
#include "report/render.hpp"

using namespace kiln::report;

namespace {

// A recorded-style build, written by hand so every figure is known:
//   gen (0-400) writes gen.h; c.o (400-1200) needs gen.h; b.o (0-500); m.o (500-600);
//   lib.so (1200-1500) links b.o and c.o; app (1500-1600) links lib.so and m.o.
// Critical path: gen -> c.o -> lib.so -> app = 400 + 800 + 300 + 100 = 1600 ms.
// Total CPU 2200 ms; 2 cores -> 1100 ms; bound = 1600 ms; makespan 1600 ms -> efficiency 1.00.
const char* kLog =
    "# ninja log v5\n"
    "0\t400\t1\tgen.h\t01\n"
    "0\t500\t1\tCMakeFiles/lib.dir/b.cu.o\t02\n"
    "500\t600\t1\tCMakeFiles/app.dir/m.cpp.o\t03\n"
    "400\t1200\t1\tCMakeFiles/lib.dir/c.cpp.o\t04\n"
    "1200\t1500\t1\tliblib.so\t05\n"
    "1500\t1600\t1\tapp\t06\n";

// As `ninja -t graph` prints it: edge nodes as ellipses, single in/out edges as labelled arrows.
const char* kDot = R"(digraph ninja {
rankdir="LR"
node [fontsize=10, shape=box, height=0.25]
edge [fontsize=10]
"0x1" [label="all"]
"0x2" [label="phony", shape=ellipse]
"0x2" -> "0x1"
"0x3" -> "0x2" [arrowhead=none]
"0x3" [label="app"]
"0x4" [label="CXX_EXECUTABLE_LINKER__app_", shape=ellipse]
"0x4" -> "0x3"
"0x5" -> "0x4" [arrowhead=none]
"0x6" -> "0x4" [arrowhead=none]
"0x5" [label="CMakeFiles/app.dir/m.cpp.o"]
"0x7" [label="/src/m.cpp"]
"0x7" -> "0x5" [label=" CXX_COMPILER__app_"]
"0x6" [label="liblib.so"]
"0x8" [label="CUDA_SHARED_LIBRARY_LINKER__lib_", shape=ellipse]
"0x8" -> "0x6"
"0x9" -> "0x8" [arrowhead=none]
"0x10" -> "0x8" [arrowhead=none]
"0x9" [label="CMakeFiles/lib.dir/b.cu.o"]
"0x11" [label="/src/b.cu"]
"0x11" -> "0x9" [label=" CUDA_COMPILER__lib_"]
"0x10" [label="CMakeFiles/lib.dir/c.cpp.o"]
"0x12" [label="CXX_COMPILER__lib_", shape=ellipse]
"0x12" -> "0x10"
"0x13" -> "0x12" [arrowhead=none]
"0x14" -> "0x12" [arrowhead=none style=dotted]
"0x13" [label="/src/c.cpp"]
"0x14" [label="gen.h"]
"0x15" [label="CUSTOM_COMMAND", shape=ellipse]
"0x15" -> "0x14"
"0x16" -> "0x15" [arrowhead=none]
"0x16" [label="/src/gen.py"]
}
)";

ProfileInput input(int cores) {
  ProfileInput in;
  in.build_dir = "/b";
  in.log = *parse_ninja_log(kLog);
  in.cores = cores;
  in.buckets = 16;
  return in;
}

std::vector<std::string> names(const Profile& p) {
  std::vector<std::string> v;
  for (size_t i : p.critical_path) v.push_back(p.units[i].name);
  return v;
}

}  // namespace

TEST(NinjaGraph, ReadsEdgesBothWays) {
  auto g = parse_ninja_graph(kDot);
  ASSERT_TRUE(g) << g.error();
  ASSERT_TRUE(g->producer.count("CMakeFiles/lib.dir/c.cpp.o"));
  const auto& c = g->edges[g->producer.at("CMakeFiles/lib.dir/c.cpp.o")];
  EXPECT_EQ(c.rule, "CXX_COMPILER__lib_");
  EXPECT_EQ(c.inputs, (std::vector<std::string>{"/src/c.cpp", "gen.h"}));
  const auto& m = g->edges[g->producer.at("CMakeFiles/app.dir/m.cpp.o")];
  EXPECT_EQ(m.rule, "CXX_COMPILER__app_");
  EXPECT_EQ(m.inputs, std::vector<std::string>{"/src/m.cpp"});
  EXPECT_FALSE(parse_ninja_graph("ninja: error: loading 'build.ninja'"));
}

TEST(Profile, CriticalPathParallelismAndBoundFromTheGraph) {
  auto in = input(2);
  in.graph = *parse_ninja_graph(kDot);
  auto p = compute_profile(in);
  EXPECT_EQ(p.makespan_ms, 1600);
  EXPECT_EQ(p.total_cpu_ms, 2200);
  EXPECT_EQ(p.critical_path_ms, 1600);
  EXPECT_TRUE(p.critical_path_from_graph);
  EXPECT_EQ(names(p), (std::vector<std::string>{"gen.h", "CMakeFiles/lib.dir/c.cpp.o", "liblib.so", "app"}));
  EXPECT_EQ(p.lower_bound_ms, 1600);
  EXPECT_EQ(p.bound_by, Bound::critical_path);
  EXPECT_DOUBLE_EQ(p.efficiency, 1.0);
  EXPECT_DOUBLE_EQ(p.avg_parallelism, 2200.0 / 1600.0);
  EXPECT_EQ(p.max_parallelism, 2);
  EXPECT_EQ(p.lanes, 2);
  // 16 buckets of 100 ms: two jobs in the first four, one from 600 ms on.
  ASSERT_EQ(p.parallelism.size(), 16u);
  EXPECT_DOUBLE_EQ(p.parallelism[0].value, 2.0);
  EXPECT_DOUBLE_EQ(p.parallelism[5].value, 2.0);
  EXPECT_DOUBLE_EQ(p.parallelism[6].value, 1.0);
  EXPECT_DOUBLE_EQ(p.parallelism[15].value, 1.0);
  // Kinds and targets from the rules and CMake's object folders.
  auto unit = [&](const std::string& n) {
    for (const auto& u : p.units)
      if (u.name == n) return u;
    return Unit{};
  };
  EXPECT_EQ(unit("CMakeFiles/lib.dir/b.cu.o").kind, UnitKind::cuda);
  EXPECT_EQ(unit("CMakeFiles/lib.dir/c.cpp.o").kind, UnitKind::cxx);
  EXPECT_EQ(unit("CMakeFiles/lib.dir/c.cpp.o").source, "/src/c.cpp");
  EXPECT_EQ(unit("liblib.so").kind, UnitKind::link);
  EXPECT_EQ(unit("liblib.so").target, "lib");
  ASSERT_FALSE(p.targets.empty());
  EXPECT_EQ(p.targets[0].name, "lib");
  EXPECT_EQ(p.targets[0].total_ms, 1600);  // b.cu.o, c.cpp.o and liblib.so
  EXPECT_EQ(p.peak_memory_kib, -1);        // no exec log: unknown, not zero
}

TEST(Profile, OneCoreMakesTheBuildCpuBound) {
  auto in = input(1);
  in.graph = *parse_ninja_graph(kDot);
  auto p = compute_profile(in);
  EXPECT_EQ(p.lower_bound_ms, 2200);
  EXPECT_EQ(p.bound_by, Bound::cpu);
  EXPECT_NEAR(p.efficiency, 1600.0 / 2200.0, 1e-9);
}

TEST(Profile, IndependentJobsRunSeriallyAreNotACriticalPath) {
  // -j1 ran x then y; they do not depend on each other. The graph knows; the fallback cannot.
  ProfileInput in;
  in.log = *parse_ninja_log("# ninja log v5\n0\t1000\t1\tx.o\t1\n1000\t2000\t1\ty.o\t2\n");
  in.cores = 4;
  in.graph = *parse_ninja_graph(R"(digraph ninja {
"0x1" [label="x.o"]
"0x2" [label="x.c"]
"0x2" -> "0x1" [label=" cc"]
"0x3" [label="y.o"]
"0x4" [label="y.c"]
"0x4" -> "0x3" [label=" cc"]
}
)");
  auto with_graph = compute_profile(in);
  EXPECT_EQ(with_graph.critical_path_ms, 1000);
  EXPECT_EQ(with_graph.lower_bound_ms, 1000);
  EXPECT_DOUBLE_EQ(with_graph.efficiency, 2.0);

  in.graph.reset();
  in.graph_problem = "ninja not found on PATH";
  auto chain = compute_profile(in);
  EXPECT_EQ(chain.critical_path_ms, 2000);
  EXPECT_FALSE(chain.critical_path_from_graph);
  EXPECT_NE(chain.critical_path_method.find("ninja not found"), std::string::npos);
  EXPECT_NE(chain.critical_path_method.find("upper estimate"), std::string::npos);
}

TEST(Profile, FallbackChainPicksTheLongestSequence) {
  ProfileInput in;
  in.graph_problem = "no graph";
  // In completion order, as ninja writes it.
  // a(0-300) -> c(300-900) beats b(0-500) -> d(500-700): 900 vs 700; e overlaps everything.
  in.log = *parse_ninja_log(
      "# ninja log v5\n0\t300\t1\ta\t1\n0\t500\t1\tb\t2\n500\t700\t1\td\t3\n100\t800\t1\te\t5\n300\t900\t1\tc\t4\n");
  auto p = compute_profile(in);
  EXPECT_EQ(p.critical_path_ms, 900);
  EXPECT_EQ(names(p), (std::vector<std::string>{"a", "c"}));
}

TEST(Profile, ExecLogGivesCpuMemoryAndWaiting) {
  auto in = input(2);
  in.graph = *parse_ninja_graph(kDot);
  // The launcher recorded the two compiles that overlap from 0 to 400 ms, and c.o, which waited
  // 200 ms for memory before it started compiling.
  in.exec = parse_exec_log(
      R"({"output": "CMakeFiles/lib.dir/b.cu.o", "source": "/src/b.cu", "start_ms": 1000, "wall_ms": 500, "cpu_ms": 450, "peak_rss_kib": 2000000, "exit": 0, "waited_ms": 0, "archs": 2})"
      "\n"
      R"({"output": "/b/CMakeFiles/lib.dir/c.cpp.o", "source": "/src/c.cpp", "start_ms": 1400, "wall_ms": 800, "cpu_ms": 500, "peak_rss_kib": 1000000, "exit": 0, "waited_ms": 200, "archs": 0})"
      "\n"
      R"({"output": "gen.h", "start_ms": 1000, "wall_ms": 400, "cpu_ms": 390, "peak_rss_kib": 500000, "exit": 0, "waited_ms": 0, "archs": 0})"
      "\n"
      R"({"output": "old.o", "start_ms": 1, "wall_ms": 4, "cpu_ms": 4, "peak_rss_kib": 9999999})"
      "\n");
  auto p = compute_profile(in);
  EXPECT_EQ(p.exec_matched, 3);
  EXPECT_EQ(p.cpu_from_exec, 3);
  // 450 + 500 + 390 from the log, 100 + 300 + 100 from durations.
  EXPECT_EQ(p.total_cpu_ms, 1840);
  // c.o's 200 ms of waiting is not work: the path is 400 + 600 + 300 + 100.
  EXPECT_EQ(p.critical_path_ms, 1400);
  // gen.h (0.5 GB) and b.cu.o (2 GB) overlap; c.o (1 GB) starts at 400 ms after gen.h ended.
  EXPECT_EQ(p.peak_memory_kib, 3000000);
  ASSERT_EQ(p.memory.size(), 16u);
  EXPECT_DOUBLE_EQ(p.memory[0].value, 2500000);
  EXPECT_DOUBLE_EQ(p.memory[4].value, 3000000);
  EXPECT_DOUBLE_EQ(p.memory[10].value, 1000000);
  EXPECT_DOUBLE_EQ(p.memory[13].value, 0);
  EXPECT_EQ(p.arch_method.rfind("even split", 0), 0u);
  for (const auto& u : p.units)
    if (u.name == "CMakeFiles/lib.dir/b.cu.o") EXPECT_DOUBLE_EQ(u.per_arch_estimate_ms, 250);
}

TEST(Profile, NvccTimesGiveTimePerArchitecture) {
  auto in = input(2);
  in.graph = *parse_ninja_graph(kDot);
  NvccTimes t;
  // ccache's base_dir makes nvcc see the source relative to the build folder /b.
  t.units.push_back(UnitArchTime{"../src/b.cu", {{80, 120.0}, {90, 180.0}}, 200.0});
  t.units.push_back(UnitArchTime{"/usr/share/cmake/CMakeCUDACompilerABI.cu", {{80, 999.0}}, 1.0});  // configure's check
  in.nvcc = t;
  auto p = compute_profile(in);
  EXPECT_EQ(p.arch_method, "nvcc --time");
  ASSERT_EQ(p.arch_times.size(), 2u);
  EXPECT_EQ(p.arch_times[0].arch, 80);
  EXPECT_DOUBLE_EQ(p.arch_times[0].ms, 120.0);
  EXPECT_EQ(p.arch_times[0].units, 1);
  EXPECT_DOUBLE_EQ(p.arch_times[1].ms, 180.0);
  for (const auto& u : p.units)
    if (u.name == "CMakeFiles/lib.dir/b.cu.o") EXPECT_DOUBLE_EQ(u.arch_ms.at(90), 180.0);
}

TEST(Profile, UpToDateBuildSaysSo) {
  ProfileInput in;
  in.log = *parse_ninja_log("# ninja log v5\n");
  auto p = compute_profile(in);
  EXPECT_TRUE(p.units.empty());
  EXPECT_FALSE(p.notes.empty());
  EXPECT_NE(render_text(p, 5).find("up to date"), std::string::npos);
}

TEST(Profile, RendersTextJsonAndHtml) {
  auto in = input(2);
  in.graph = *parse_ninja_graph(kDot);
  auto p = compute_profile(in);
  auto text = render_text(p, 3);
  EXPECT_NE(text.find("efficiency 1.00x"), std::string::npos) << text;
  EXPECT_NE(text.find("gen.h -> CMakeFiles/lib.dir/c.cpp.o -> liblib.so -> app"), std::string::npos) << text;
  auto j = to_json(p, 3);
  EXPECT_EQ(j["critical_path"]["duration_s"], 1.6);
  EXPECT_EQ(j["lower_bound_s"], 1.6);
  EXPECT_EQ(j["slowest_units"].size(), 3u);
  EXPECT_EQ(j["slowest_units"][0]["name"], "CMakeFiles/lib.dir/c.cpp.o");
  EXPECT_TRUE(j["memory"]["peak_bytes"].is_null());
  auto html = render_html(p, 3);
  EXPECT_NE(html.find("<svg id='timeline'"), std::string::npos);
  EXPECT_EQ(html.find("http://"), std::string::npos);  // nothing fetched
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(std::count(html.begin(), html.end(), '\0'), 0);
}

// causal-conv1d on the H100 as kiln built it: _bwd.cu already split 14 ways on 16 cores. Its device
// phases cannot be divided by the cores again: the bound stays near what it took, and the remedy
// says the unit itself must shrink.
TEST(Profile, AUnitThatAlreadyHadTheCoresIsNotPromisedMore) {
  ProfileInput in;
  in.build_dir = "/b";
  in.cores = 16;
  in.log = *parse_ninja_log(
      "# ninja log v5\n"
      "0\t42000\t1\t/p/build/temp/csrc/c.o\t01\n"
      "0\t175000\t1\t/p/build/temp/csrc/bwd.o\t03\n");
  in.exec = parse_exec_log(
      R"J({"output": "/p/build/temp/csrc/bwd.o", "source": "/p/csrc/bwd.cu", "start_ms": 1, "wall_ms": 175000, "cpu_ms": 545000, "archs": 1, "split": 14, "threads": 0, "cores": 14, "grant": "14 cores free of 16 (2 other compiles running)", )J"
      R"J("phases": {"front_end_ms": 2900, "host_ms": 23000, "link_ms": 1500, "other_ms": 0, "archs": {"90": {"device_ms": 107000, "ptxas_ms": 41000}}}})J"
      "\n");
  ASSERT_TRUE(in.exec->problems.empty()) << in.exec->problems.front();
  auto p = compute_profile(in);
  // 27 s serial + 148 s of device phases x 14 / 16 = 129.5 s: 156.5 s, not 148 / 16 + 27.
  EXPECT_EQ(p.split_critical_path_ms, 156500);
  EXPECT_NEAR(p.efficiency, 175.0 / 156.5, 1e-3);
  EXPECT_EQ(p.bound_by, Bound::one_unit);
  EXPECT_NE(p.remedy.find("already ran on 14 of the 16 cores"), std::string::npos) << p.remedy;
  EXPECT_NE(p.remedy.find("split the source file"), std::string::npos) << p.remedy;
  EXPECT_EQ(p.remedy.find("give it more"), std::string::npos) << p.remedy;
}

// causal-conv1d's shape on a 16-core machine: one long CUDA unit beside three short ones.
TEST(Profile, ABuildBoundByOneUnitNamesTheRemedyAndCountsWhatSplittingCouldDo) {
  ProfileInput in;
  in.build_dir = "/b";
  in.cores = 16;
  in.cores_source = "the build's record (kiln-build.json)";
  in.buckets = 8;
  in.log = *parse_ninja_log(
      "# ninja log v5\n"
      "0\t30000\t1\t/p/build/temp/csrc/c.o\t01\n"
      "0\t40000\t1\t/p/build/temp/csrc/upd.o\t04\n"
      "0\t120000\t1\t/p/build/temp/csrc/fwd.o\t02\n"
      "0\t320000\t1\t/p/build/temp/csrc/bwd.o\t03\n");
  in.exec = parse_exec_log(
      R"({"output": "/p/build/temp/csrc/bwd.o", "source": "/p/csrc/bwd.cu", "start_ms": 1, "wall_ms": 320000, "cpu_ms": 330000, "archs": 1, "split": 0, "threads": 0, "cores": 1, "grant": "no free cores: 15 other compiles (15 threads) on 16 cores", )"
      R"("phases": {"front_end_ms": 20000, "host_ms": 5000, "link_ms": 10, "other_ms": 0, "archs": {"90": {"device_ms": 280000, "ptxas_ms": 15000}}}})"
      "\n");
  ASSERT_TRUE(in.exec->problems.empty()) << in.exec->problems.front();
  auto p = compute_profile(in);
  EXPECT_EQ(p.critical_path_ms, 320000);
  // bwd: 25 s serial + 295 s of device phases / 16 cores = 43.4 s; fwd (no phases) stays 120 s.
  EXPECT_EQ(p.split_critical_path_ms, 120000);
  EXPECT_EQ(p.lower_bound_ms, 120000);
  EXPECT_NEAR(p.efficiency, 320.0 / 120.0, 1e-6);
  EXPECT_EQ(p.bound_by, Bound::one_unit);
  ASSERT_GE(p.bounding_unit, 0);
  EXPECT_EQ(p.units[p.bounding_unit].name, "/p/build/temp/csrc/bwd.o");
  EXPECT_NE(p.remedy.find("--split-compile"), std::string::npos) << p.remedy;
  EXPECT_NE(p.remedy.find("no free cores"), std::string::npos) << p.remedy;
  // The split path is a bound, and the remedy says so: on the GPU host mamba's longest unit took 62 s
  // alone with 32 split threads where this bound said 42 s (docs/benchmarks.md, Session 17).
  EXPECT_NE(p.remedy.find("would be 2m00s instead of 5m20s, at best"), std::string::npos) << p.remedy;
  EXPECT_EQ(p.arch_method, "nvcc --time, recorded per unit by kiln exec");
  ASSERT_EQ(p.arch_times.size(), 1u);
  EXPECT_DOUBLE_EQ(p.arch_times[0].ms, 295000);
  auto text = render_text(p, 5);
  EXPECT_NE(text.find("one-unit-bound"), std::string::npos) << text;
  EXPECT_NE(text.find("remedy"), std::string::npos) << text;
  EXPECT_NE(text.find("cores from the build's record"), std::string::npos) << text;
  EXPECT_NE(text.find("nvcc phases"), std::string::npos) << text;
  auto j = to_json(p, 5);
  EXPECT_EQ(j["bound_by"], "one unit");
  EXPECT_EQ(j["split_critical_path_s"], 120.0);
  EXPECT_EQ(j["slowest_units"][0]["phases"]["archs"]["sm_90"]["device_s"], 280.0);
  EXPECT_NE(render_html(p, 5).find("nvcc phases per unit"), std::string::npos);
}

namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(kiln::testing::source_dir() + "/tests/fixtures/report/busy_machine/" + name);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

// Issue 21: on a machine busy with other work (CPU 19 s of 29 s x 2 cores) the report blamed its
// own scheduling. The jobs' recorded CPU time says they were off the CPU two thirds of the time.
TEST(Profile, LoadTheBuildDidNotCauseIsNotBlamedOnScheduling) {
  ProfileInput in;
  in.build_dir = "/b";
  in.cores = 2;
  in.log = *parse_ninja_log(fixture("ninja_log"));
  in.graph = *parse_ninja_graph(fixture("graph.dot"));
  in.exec = parse_exec_log(fixture("kiln-exec.jsonl"));
  ASSERT_TRUE(in.exec->problems.empty()) << in.exec->problems.front();
  auto p = compute_profile(in);
  EXPECT_EQ(p.total_cpu_ms, 19000);
  EXPECT_EQ(p.makespan_ms, 29000);
  EXPECT_EQ(p.critical_path_ms, 17000);
  EXPECT_NEAR(p.efficiency, 29.0 / 17.0, 1e-6);
  EXPECT_NEAR(p.job_cpu_share, 19.0 / 53.0, 1e-6);
  EXPECT_TRUE(p.contended);
  const auto text = render_text(p, 5);
  EXPECT_EQ(text.find("scheduling or too few jobs"), std::string::npos) << text;
  EXPECT_NE(text.find("on a CPU only 36% of the time"), std::string::npos) << text;
  EXPECT_NE(text.find("load this build did not cause"), std::string::npos) << text;
  EXPECT_EQ(to_json(p, 5)["contended"], true);
}

TEST(Profile, ABuildThatHadTheCpuStillHearsAboutScheduling) {
  ProfileInput in;
  in.build_dir = "/b";
  in.cores = 4;  // about two jobs at a time on four idle cores: the build's own doing
  in.log = *parse_ninja_log(fixture("ninja_log"));
  in.graph = *parse_ninja_graph(fixture("graph.dot"));
  std::string exec = fixture("kiln-exec.jsonl");
  // The same build with each job on a CPU the whole time it ran.
  for (auto [from, to] : {std::pair{"\"cpu_ms\": 4000", "\"cpu_ms\": 12000"},
                          {"\"cpu_ms\": 4200", "\"cpu_ms\": 13000"},
                          {"\"cpu_ms\": 4300", "\"cpu_ms\": 12000"},
                          {"\"cpu_ms\": 2200", "\"cpu_ms\": 4000"}})
    for (auto at = exec.find(from); at != std::string::npos; at = exec.find(from))
      exec.replace(at, std::strlen(from), to);
  in.exec = parse_exec_log(exec);
  auto p = compute_profile(in);
  EXPECT_FALSE(p.contended);
  EXPECT_NE(render_text(p, 5).find("scheduling or too few jobs"), std::string::npos);
}

// A remedy must be an improvement: a unit whose device phases are a sliver of it gains nothing from
// --split-compile, and the report must not promise "the critical path would be" what it already was.
TEST(Profile, NoRemedyPromisesTheTimeAlreadyTaken) {
  ProfileInput in;
  in.build_dir = "/b";
  in.cores = 2;
  in.log = *parse_ninja_log("# ninja log v5\n0\t30000\t1\t/p/build/k.o\t01\n");
  in.exec = parse_exec_log(
      R"({"output": "/p/build/k.o", "source": "/p/k.cu", "start_ms": 1, "wall_ms": 30000, "cpu_ms": 29500, "archs": 1, "split": 0, "threads": 0, "cores": 1, "grant": "", )"
      R"("phases": {"front_end_ms": 21000, "host_ms": 7500, "link_ms": 10, "other_ms": 0, "archs": {"90": {"device_ms": 800, "ptxas_ms": 400}}}})"
      "\n");
  ASSERT_TRUE(in.exec->problems.empty()) << in.exec->problems.front();
  auto p = compute_profile(in);
  EXPECT_EQ(p.bound_by, Bound::one_unit);
  EXPECT_GE(p.split_critical_path_ms * 20, p.critical_path_ms * 19);
  EXPECT_EQ(p.remedy.find("would be"), std::string::npos) << p.remedy;
  EXPECT_EQ(p.remedy.find("give it more"), std::string::npos) << p.remedy;
  EXPECT_NE(p.remedy.find("split the source file"), std::string::npos) << p.remedy;
}

// mamba's first build on the GPU host (session 7): ten jobs on 16 cores, but the six backward units
// held 5 threads each and the forward ones 3, so the one single-threaded job (the host .cpp, 32 s
// of CPU in 47 s) waited for the build's own threads, not for other work on the machine.
TEST(Profile, ABuildThatOutnumberedTheCoresWithItsOwnThreadsIsNotContended) {
  Profile p;
  p.cores = 16;
  p.makespan_ms = 85'000;
  p.avg_parallelism = 7.7;
  auto unit = [&](const std::string& name, long end_s, long cpu_s, int cores, int split) {
    Unit u;
    u.name = name;
    u.kind = cores > 1 ? UnitKind::cuda : UnitKind::cxx;
    u.end_ms = end_s * 1000;
    u.cpu_ms = cpu_s * 1000;
    u.cores = cores;
    u.split = split;
    p.units.push_back(u);
  };
  unit("selective_scan.o", 47, 32, 1, 0);
  for (int i = 0; i < 3; ++i) unit("fwd_" + std::to_string(i) + ".o", 58, 64, 3, 3);
  for (int i = 0; i < 3; ++i) unit("bwd_real_" + std::to_string(i) + ".o", 63, 108, 5, 5);
  for (int i = 0; i < 3; ++i) unit("bwd_complex_" + std::to_string(i) + ".o", 82, 155, 5, 5);
  judge_contention(p);
  EXPECT_NEAR(p.job_cpu_share, 32.0 / 47.0, 1e-6);
  EXPECT_GT(p.avg_lanes, 16.5);  // (47 + 3 x 3 x 58 + 3 x 5 x 63 + 3 x 5 x 82) / 85 = 32
  EXPECT_FALSE(p.contended);
  const auto remedy = one_unit_remedy(p, p.units.back(), 0);
  EXPECT_EQ(remedy.find("other work on the machine"), std::string::npos) << remedy;
  EXPECT_NE(remedy.find("beside 32 threads of the build's compiles on 16 cores"), std::string::npos) << remedy;
  EXPECT_NE(remedy.find("one CPU weight"), std::string::npos) << remedy;
  // Had their grants counted one core each, the 68% would have been other work's doing.
  for (auto& u : p.units) u.cores = 1;
  judge_contention(p);
  EXPECT_TRUE(p.contended);
}

TEST(Profile, UnitKindsAndBoundsHaveOneSpellingEach) {
  for (auto k : kUnitKinds) EXPECT_EQ(unit_kind_from(to_string(k)), k) << to_string(k);
  for (auto b : kBounds) EXPECT_EQ(bound_from(to_string(b)), b) << to_string(b);
  EXPECT_EQ(to_string(UnitKind::cxx), "c++");
  EXPECT_EQ(to_string(Bound::critical_path), "critical path");
  EXPECT_FALSE(unit_kind_from("cxx"));
}
