// kiln report on what kiln build printed: the project or kiln's build folder finds every Ninja
// folder of a torch extension's build (one per extension when they built at once), and several
// Ninja logs are placed on one clock by the launcher's records.
#include <gtest/gtest.h>

#include "fakes/fs.hpp"
#include "report/build_folders.hpp"

using namespace kiln;

namespace {
io::FakeFilesystem extension_build() {
  io::FakeFilesystem fs;
  fs.add_file("/p/setup.py", "");
  fs.add_file("/p/build-kiln/kiln-build.json", "{}");
  fs.add_file("/p/build-kiln/kiln-build.log", "kiln: build: python wheel_build.py\n");
  for (const char* e : {"pkg.a", "pkg.b"})
    fs.add_file(std::string("/p/build/temp.linux/kiln-ninja/") + e + "/.ninja_log", "# ninja log v5\n");
  fs.add_dir("/p/build/lib.linux");
  return fs;
}

report::Job job(const std::string& out, long start, long end) {
  report::Job j;
  j.outputs = {out};
  j.start_ms = start;
  j.end_ms = end;
  return j;
}

report::ExecRecord record(const std::string& out, long long start, long wall = 0, long waited = 0) {
  report::ExecRecord r;
  r.output = out;
  r.start_ms = start;
  r.wall_ms = wall;
  r.waited_ms = waited;
  return r;
}
}  // namespace

TEST(BuildFolders, KilnsBuildFolderAndTheProjectFindEveryExtensionsNinjaFolder) {
  auto fs = extension_build();
  const std::vector<std::string> want = {"/p/build/temp.linux/kiln-ninja/pkg.a",
                                         "/p/build/temp.linux/kiln-ninja/pkg.b"};
  for (const char* dir : {"/p/build-kiln", "/p"}) {
    auto f = report::find_build_folders(fs, dir);
    EXPECT_EQ(f.ninja_dirs, want) << dir;
    EXPECT_EQ(f.kiln_dir, "/p/build-kiln") << dir;
    EXPECT_EQ(f.wheel_cache_hit, "");
  }
  // A Ninja folder itself is what it is.
  EXPECT_EQ(report::find_build_folders(fs, "/p/build/temp.linux/kiln-ninja/pkg.a").ninja_dirs,
            std::vector<std::string>{"/p/build/temp.linux/kiln-ninja/pkg.a"});
}

TEST(BuildFolders, ASerialExtensionBuildAndACMakeBuildHaveOneNinjaFolder) {
  io::FakeFilesystem fs;
  fs.add_file("/s/build-kiln/kiln-build.json", "{}");
  fs.add_file("/s/build/temp.linux/.ninja_log", "");
  EXPECT_EQ(report::find_build_folders(fs, "/s/build-kiln").ninja_dirs,
            std::vector<std::string>{"/s/build/temp.linux"});
  fs.add_file("/c/build-kiln/kiln-build.json", "{}");
  fs.add_file("/c/build-kiln/.ninja_log", "");
  EXPECT_EQ(report::find_build_folders(fs, "/c").ninja_dirs, std::vector<std::string>{"/c/build-kiln"});
  EXPECT_EQ(report::find_build_folders(fs, "/c/build-kiln").ninja_dirs, std::vector<std::string>{"/c/build-kiln"});
}

TEST(BuildFolders, AWheelCacheHitIsSaid) {
  io::FakeFilesystem fs;
  fs.add_file("/p/build-kiln/kiln-build.json", "{}");
  fs.add_file("/p/build-kiln/kiln-build.log", "x\nkiln: wheel cache: hit 0123abcd (12 project files)\nmore\n");
  auto f = report::find_build_folders(fs, "/p");
  EXPECT_TRUE(f.ninja_dirs.empty());
  EXPECT_EQ(f.wheel_cache_hit, "kiln: wheel cache: hit 0123abcd (12 project files)");
}

TEST(MergeInputs, NinjaLogsArePlacedOnTheLaunchersClock) {
  report::ProfileInput a, b;
  a.log.jobs = {job("/t/a1.o", 0, 5000), job("/t/a2.o", 100, 4000)};
  b.log.jobs = {job("/t/b1.o", 0, 3000)};
  report::ExecLog exec;
  // Ninja a started at epoch 1'000'000, ninja b 2 s later.
  exec.records = {record("/t/a1.o", 1'000'010, 4990), record("/t/a2.o", 1'000'100, 3900),
                  record("/t/b1.o", 1'002'000, 3000)};
  a.exec = exec;
  b.exec = exec;
  auto m = report::merge_inputs({a, b});
  ASSERT_EQ(m.log.jobs.size(), 3u);
  EXPECT_EQ(m.log.jobs[0].name(), "/t/a1.o");
  EXPECT_EQ(m.log.jobs[0].start_ms, 0);
  EXPECT_EQ(m.log.jobs[2].name(), "/t/b1.o");
  EXPECT_EQ(m.log.jobs[2].start_ms, 2000);  // overlapping a's jobs, as it ran
  EXPECT_EQ(m.log.jobs[2].end_ms, 5000);
}

TEST(MergeInputs, UnitsThatWaitedInTheGovernorDoNotMoveTheirLog) {
  // apex on 16 cores: every unit of one extension's Ninja waited for memory before its compile
  // began (the record starts after the wait), so matching starts placed that log 45 s late.
  report::ProfileInput a, b;
  a.log.jobs = {job("/t/a1.o", 0, 60'000)};
  b.log.jobs = {job("/t/b1.o", 0, 100'000), job("/t/b2.o", 10, 90'000)};
  report::ExecLog exec;
  // Both Ninjas started at epoch 1'000'000; b's units began compiling after 45 s and 50 s of waiting.
  exec.records = {record("/t/b1.o", 1'045'000, 55'000, 45'000), record("/t/a1.o", 1'000'000, 60'000),
                  record("/t/b2.o", 1'050'010, 39'980, 50'000)};
  a.exec = exec;
  b.exec = exec;
  auto m = report::merge_inputs({a, b});
  long end = 0;
  for (const auto& j : m.log.jobs) end = std::max(end, j.end_ms);
  EXPECT_EQ(end, 100'000);  // the build's span, not 145 s
  // A record of an earlier build of the same output is not the one matched.
  exec.records.insert(exec.records.begin(), record("/t/b1.o", 900'000, 20'000));
  b.exec = exec;
  m = report::merge_inputs({a, b});
  end = 0;
  for (const auto& j : m.log.jobs) end = std::max(end, j.end_ms);
  EXPECT_EQ(end, 100'000);
}

TEST(MergeInputs, LogsWithoutRecordsGoOneAfterAnotherAndSaySo) {
  report::ProfileInput a, b;
  a.log.jobs = {job("/t/a1.o", 0, 5000)};
  b.log.jobs = {job("/t/b1.o", 0, 3000)};
  auto m = report::merge_inputs({a, b});
  ASSERT_EQ(m.log.jobs.size(), 2u);
  EXPECT_EQ(m.log.jobs[1].start_ms, 5000);
  EXPECT_EQ(m.log.jobs[1].end_ms, 8000);
  bool said = false;
  for (const auto& n : m.notes) said = said || n.find("one after another") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(BuildFolders, ObjectFoldersPerExtensionAreFoundDeeperDown) {
  io::FakeFilesystem fs;
  fs.add_file("/p/build-kiln/kiln-build.json", "{}");
  // kiln's own object folders (extensions that share a source), and apex's (build_temp/<extension>).
  fs.add_file("/p/build/temp.linux/kiln-obj/pkg.a/kiln-ninja/pkg.a/.ninja_log", "");
  fs.add_file("/p/build/temp.linux/apex_C/kiln-ninja/apex_C/.ninja_log", "");
  fs.add_file("/p/build/temp.linux/kiln-obj/pkg.a/src/a.o", "");
  EXPECT_EQ(report::find_build_folders(fs, "/p").ninja_dirs,
            (std::vector<std::string>{"/p/build/temp.linux/apex_C/kiln-ninja/apex_C",
                                      "/p/build/temp.linux/kiln-obj/pkg.a/kiln-ninja/pkg.a"}));
}
