// Issue 35: `kiln report --simulate` on a torch extension's build projects what the build did
// outside cpp_extension's Ninja too: setuptools' links (kiln-exec.jsonl has them, .ninja_log does
// not), after their extension's compiles, and the serial head-node time before the first compile
// and after the last step, from kiln build's record (.kiln/compile-span.json).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "fakes/fs.hpp"
#include "report/cluster.hpp"
#include "report/outside_ninja.hpp"
#include "temp_dir.hpp"
#include "test_support.hpp"

using namespace kiln;

namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(kiln::testing::source_dir() + "/tests/fixtures/report/torch_extension/" + name);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The fixture laid out as kiln build leaves it: kiln's build folder with its record, logs and
// .kiln/compile-span.json (unless `span` is empty), cpp_extension's Ninja folder under setuptools/.
std::string lay_out(const kiln::testing::TempDir& tmp, const std::string& span) {
  const std::string kiln_dir = tmp / "p/build-kiln";
  tmp.write("p/build-kiln/kiln-build.json", nlohmann::json{{"schema", 1},
                                                           {"kiln_build_dir", kiln_dir},
                                                           {"project_dir", tmp / "p"},
                                                           {"cores", 2},
                                                           {"exec_log", kiln_dir + "/kiln-exec.jsonl"}}
                                                .dump());
  tmp.write("p/build-kiln/kiln-exec.jsonl", fixture("kiln-exec.jsonl"));
  tmp.write("p/build-kiln/setuptools/temp.linux/.ninja_log", fixture("ninja_log"));
  if (!span.empty()) tmp.write("p/build-kiln/.kiln/compile-span.json", span);
  return kiln_dir;
}

nlohmann::json simulate_json(const std::string& dir) {
  kiln::testing::CliRig c;
  EXPECT_EQ(c.run({"report", dir, "--simulate", "1x2x8G", "--step-overhead", "0", "--json"}), 0) << c.err.str();
  auto j = nlohmann::json::parse(c.out.str(), nullptr, false);
  EXPECT_TRUE(j.is_object() && j.contains("simulate")) << c.out.str();
  return j.is_object() && j.contains("simulate") ? j["simulate"][0] : nlohmann::json::object();
}

}  // namespace

// Ninja's three compiles alone project 85 s on one 2-core node (a.o and c.o at once, b.o after
// a.o); the link after them (0.6 s of CPU) and 3.6 s of serial head-node time make it 89.2 s
// (the build step took 94.3 s).
TEST(OutsideNinja, ATorchExtensionsLinkAndSerialTimeAreInTheProjection) {
  kiln::testing::TempDir tmp;
  const auto dir = lay_out(tmp, fixture("compile-span.json"));
  const auto s = simulate_json(dir);
  EXPECT_DOUBLE_EQ(s.value("wall_s", 0.0), 89.2) << s.dump();
  EXPECT_EQ(s.value("links", 0), 1) << s.dump();
  EXPECT_DOUBLE_EQ(s.value("links_s", 0.0), 0.6) << s.dump();
  EXPECT_DOUBLE_EQ(s.value("serial_s", 0.0), 3.6) << s.dump();
  EXPECT_DOUBLE_EQ(s.value("critical_path_s", 0.0), 46.0 + 0.6 + 3.6) << s.dump();
  EXPECT_EQ(s.value("head_units", 0), 1) << s.dump();
  EXPECT_EQ(s.value("left_out", nlohmann::json::array()), nlohmann::json::array()) << s.dump();
  kiln::testing::CliRig c;
  ASSERT_EQ(c.run({"report", dir, "--simulate", "1x2x8G", "--step-overhead", "0"}), 0) << c.err.str();
  EXPECT_NE(c.out.str().find("1m29s"), std::string::npos) << c.out.str();
  EXPECT_NE(c.out.str().find("1 setuptools link (0.60s"), std::string::npos) << c.out.str();
  EXPECT_NE(c.out.str().find("3.60s on the head node alone"), std::string::npos) << c.out.str();
}

// A folder built before kiln kept the record: today's projection of Ninja's steps, and the report
// says what it left out. A record of another build (its window holds none of these compiles) is
// not used either.
TEST(OutsideNinja, WithoutTheBuildsRecordNinjasStepsAloneAndWhatIsLeftOut) {
  kiln::testing::TempDir tmp;
  auto s = simulate_json(lay_out(tmp, ""));
  EXPECT_DOUBLE_EQ(s.value("wall_s", 0.0), 85.0) << s.dump();
  EXPECT_EQ(s.value("links", -1), 0) << s.dump();
  EXPECT_DOUBLE_EQ(s.value("serial_s", -1.0), 0.0) << s.dump();
  ASSERT_EQ(s.value("left_out", nlohmann::json::array()).size(), 1u) << s.dump();
  EXPECT_NE(s["left_out"][0].get<std::string>().find(".kiln/compile-span.json, and this build has none"),
            std::string::npos)
      << s.dump();

  kiln::testing::TempDir other;
  auto stale = fixture("compile-span.json");
  for (auto [from, to] : {std::pair{"1795950858200", "1795950259000"}, {"1795950952500", "1795950262000"}})
    stale.replace(stale.find(from), std::strlen(from), to);  // the earlier build's window
  s = simulate_json(lay_out(other, stale));
  EXPECT_DOUBLE_EQ(s.value("wall_s", 0.0), 85.0) << s.dump();
  ASSERT_EQ(s.value("left_out", nlohmann::json::array()).size(), 1u) << s.dump();
  EXPECT_NE(s["left_out"][0].get<std::string>().find("is of another build"), std::string::npos) << s.dump();
}

// Extensions built at once (kiln-ninja/<extension>): each link follows its own extension's
// compiles, not every compile of the build: on one 2-core node, pb's long link runs while pa
// compiles, where after every compile it would end at 100 s.
TEST(OutsideNinja, EachLinkFollowsItsOwnExtensionsCompiles) {
  io::FakeFilesystem fs;
  const long long t0 = 1'795'950'860'000;
  fs.add_file("/k/.kiln/compile-span.json",
              R"({"schema": "kiln.compile-span/1", "from_ms": )" + std::to_string(t0 - 2000) + R"(, "to_ms": )" +
                  std::to_string(t0 + 68'000) + R"(, "before_s": 2, "span_s": 65, "after_s": 3, "units": 4})");
  auto record = [&](const std::string& out, const std::string& source, long long start, long ms) {
    launch::ExecRecord r;
    r.output = out, r.source = source, r.start_ms = t0 + start, r.wall_ms = ms, r.cpu_ms = ms;
    return r;
  };
  launch::ExecLog exec;
  exec.records = {record("/t/pa.o", "/s/pa.cpp", 0, 60'000), record("/t/pb.o", "/s/pb.cpp", 0, 10'000),
                  record("/l/pkg/pb.cpython-311-x86_64-linux-gnu.so", "", 10'000, 40'000),
                  record("/l/pkg/pa.cpython-311-x86_64-linux-gnu.so", "", 60'000, 5'000)};
  std::vector<report::ProfileInput> parts(2);
  for (size_t i = 0; i < 2; ++i) {
    const std::string e = i == 0 ? "pa" : "pb";
    parts[i].build_dir = "/t/kiln-ninja/pkg." + e;  // the extension pkg.pa, as setup.py names it
    parts[i].kiln_dir = "/k";
    parts[i].exec = exec;
    drive::Job j;
    j.outputs = {"/t/" + e + ".o"};
    j.end_ms = i == 0 ? 60'000 : 10'000;
    parts[i].log.jobs = {j};
  }
  const auto outside = report::outside_ninja(fs, parts);
  ASSERT_EQ(outside.links.size(), 2u);
  EXPECT_EQ(outside.needs[0], std::vector<std::string>{"/t/pa.o"});  // by output: pa's link first
  EXPECT_EQ(outside.serial_ms, 5000);
  EXPECT_TRUE(outside.left_out.empty());
  report::Profile p;
  for (const auto& part : parts) {
    report::Unit u;
    u.name = part.log.jobs[0].name(), u.outputs = part.log.jobs[0].outputs, u.kind = report::UnitKind::cxx;
    u.end_ms = part.log.jobs[0].end_ms;
    p.units.push_back(u);
  }
  const auto r = report::simulate(p, {{}, {}}, *report::parse_shape("1x2x8G"), 0, outside);
  EXPECT_EQ(r.makespan_ms, 65'000 + 5000);  // pa's 60 s compile, its link; pb's link ran meanwhile
  EXPECT_EQ(r.links_ms, 45'000);
  EXPECT_EQ(r.links, 2);
}
