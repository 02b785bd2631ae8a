// Every text parser of kiln report, bench and cache fed damaged input: truncations and random
// bytes of recorded files. They must return an error or a partial result, never crash or hang.
#include <gtest/gtest.h>

#include <random>

#include "launch/exec_record.hpp"
#include "report/ninja_graph.hpp"
#include "drive/ninja_log.hpp"
#include "report/nvcc_time.hpp"
#include "report/compute_profile.hpp"
#include "report/profile.hpp"
#include "launch/ccache_admin.hpp"

using namespace kiln;

namespace {

const std::string kSamples[] = {
    "# ninja log v5\n0\t400\t1\tgen.h\t01\n0\t500\t1\tCMakeFiles/lib.dir/b.cu.o\t02\n1200\t1500\t1\tliblib.so\t05\n",
    "digraph ninja {\n\"0x1\" [label=\"a.o\"]\n\"0x2\" [label=\"CXX\", shape=ellipse]\n\"0x2\" -> \"0x1\"\n\"0x3\" -> "
    "\"0x2\" "
    "[arrowhead=none]\n\"0x3\" [label=\"a.c\"]\n}\n",
    R"({"output": "a.o", "source": "a.c", "start_ms": 1, "wall_ms": 2, "cpu_ms": 3, "peak_rss_kib": 4, "exit": 0, "waited_ms": 0, "archs": 1})"
    "\n",
    "/p/a.cu , cicc , /tmp/tmpxft_1_0-8_a.ii , /tmp/tmpxft_1_0-7_a.ptx , compute_80 , nvcc , 100 , ms\n",
    "cache_miss\t5\ndirect_cache_hit\t7\n(default) max_size = 5.0G\n",
};

void feed(const std::string& text) {
  auto log = drive::parse_ninja_log(text);
  auto graph = report::parse_ninja_graph(text);
  auto exec = launch::parse_exec_log(text);
  auto nvcc = report::parse_nvcc_time(text);
  (void)launch::parse_print_stats(text);
  (void)launch::parse_show_config(text);
  if (log) {
    report::ProfileInput in;
    in.log = *log;
    if (graph) in.graph = *graph;
    in.exec = exec;
    in.nvcc = nvcc;
    in.cores = 3;
    auto p = report::compute_profile(in);
    EXPECT_GE(p.makespan_ms, 0);
    EXPECT_GE(p.lower_bound_ms, p.critical_path_ms);
  }
}

}  // namespace

TEST(ReportRobustness, TruncatedAndMutatedInputs) {
  std::mt19937 rng(7);
  for (const auto& sample : kSamples) {
    for (size_t cut = 0; cut <= sample.size(); ++cut) feed(sample.substr(0, cut));
    for (int round = 0; round < 300; ++round) {
      std::string s = sample;
      const int edits = 1 + static_cast<int>(rng() % 6);
      for (int e = 0; e < edits; ++e) s[rng() % s.size()] = static_cast<char>(rng() % 256);
      feed(s);
    }
  }
  std::string noise(4096, '\0');
  for (auto& c : noise) c = static_cast<char>(rng() % 256);
  feed(noise);
  feed("# ninja log v5\n" + noise);
}
