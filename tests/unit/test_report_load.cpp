// kiln report reads the machine's cores and kiln's log paths from the build's own record.
#include <gtest/gtest.h>

#include <sstream>

#include "io/seams.hpp"
#include "report/load.hpp"
#include "test_support.hpp"

using namespace kiln;

namespace {

struct World : kiln::testing::FakeSeams {
  World() {
    fs.add_dir("/p/build/temp");
    fs.add_file("/p/build/temp/.ninja_log", "# ninja log v5\n0\t100\t1\t/p/build/temp/a.o\t01\n");
  }
};

}  // namespace

TEST(ReportLoad, CoresComeFromTheBuildsRecordNotThisMachine) {
  World w;
  w.fs.add_file(
      "/p/build/temp/kiln-build.json",
      R"({"schema": 1, "cores": 16, "exec_log": "/k/kiln-exec.jsonl", "ccache_stats": "/k/kiln-ccache-stats.log"})");
  w.fs.add_file("/k/kiln-exec.jsonl", R"({"output": "/p/build/temp/a.o", "start_ms": 1, "wall_ms": 100, "cpu_ms": 90})"
                                      "\n");
  auto in = report::load_build("/p/build/temp", w.seams, 2);
  ASSERT_TRUE(in) << in.error();
  EXPECT_EQ(in->cores, 16);
  EXPECT_EQ(in->cores_source, "the build's record (kiln-build.json)");
  ASSERT_TRUE(in->exec);  // found where the record says, not beside the Ninja log
  EXPECT_EQ(in->exec->records.size(), 1u);
  // --cores still wins.
  auto forced = report::load_build("/p/build/temp", w.seams, 2, 4);
  EXPECT_EQ(forced->cores, 4);
  EXPECT_EQ(forced->cores_source, "--cores");
}

TEST(ReportLoad, WithoutARecordThisMachineAndABadRecordIsNoted) {
  World w;
  auto in = report::load_build("/p/build/temp", w.seams, 2);
  ASSERT_TRUE(in);
  EXPECT_EQ(in->cores, 2);
  EXPECT_NE(in->cores_source.find("this machine"), std::string::npos);
  w.fs.add_file("/p/build/temp/kiln-build.json", "[1, 2]");
  in = report::load_build("/p/build/temp", w.seams, 2);
  ASSERT_TRUE(in);
  EXPECT_EQ(in->cores, 2);
  ASSERT_EQ(in->notes.size(), 1u);
  w.fs.add_file("/p/build/temp/kiln-build.json", R"({"cores": -3})");
  EXPECT_EQ(report::load_build("/p/build/temp", w.seams, 2)->cores, 2);
}
