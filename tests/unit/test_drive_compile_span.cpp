// The seconds of a torch extension build beside its compiles, from kiln exec's records.
#include <gtest/gtest.h>

#include "drive/compile_span.hpp"

using namespace kiln;

namespace {

std::string record(const std::string& out, long long start_ms, long wall_ms) {
  return "{\"output\":\"" + out + "\",\"source\":\"" + out + ".cu\",\"start_ms\":" + std::to_string(start_ms) +
         ",\"wall_ms\":" + std::to_string(wall_ms) +
         ",\"cpu_ms\":1,\"peak_rss_kib\":1,\"exit\":0,\"waited_ms\":0,\"archs\":1,\"expected_kib\":1,\"pruned\":false}"
         "\n";
}

}  // namespace

TEST(CompileSpan, TheBuildsOwnRecordsGiveBeforeSpanAndAfter) {
  // mamba's shape on the GPU host: the step began at 1000 s, the first compile 6.7 s later, the
  // last link ended at 103.9 s, the step (wheel, pip install) at 107.7 s. An earlier build's record
  // in the same file is not this build's.
  const long long t0 = 1'000'000;
  std::string log = record("old.o", t0 - 500'000, 90'000) + record("a.o", t0 + 6'700, 96'400) +
                    record("b.o", t0 + 6'900, 60'000) + record("mod.so", t0 + 103'100, 800);
  auto s = drive::compile_span(log, t0, t0 + 107'700);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->units, 3);
  EXPECT_DOUBLE_EQ(s->before_s, 6.7);
  EXPECT_DOUBLE_EQ(s->span_s, 97.2);
  EXPECT_DOUBLE_EQ(s->after_s, 3.8);
}

TEST(CompileSpan, NoRecordOfThisBuildIsNoSpan) {
  const long long t0 = 1'000'000;
  EXPECT_FALSE(drive::compile_span(record("old.o", t0 - 9'000, 1'000), t0, t0 + 5'000));
  EXPECT_FALSE(drive::compile_span("", t0, t0 + 5'000));
  EXPECT_FALSE(drive::compile_span("not json\n", t0, t0 + 5'000));
  // A record whose end runs past ours (another clock): the span stops at the end, nothing after.
  auto s = drive::compile_span(record("a.o", t0 + 1'000, 9'000), t0, t0 + 5'000);
  ASSERT_TRUE(s);
  EXPECT_DOUBLE_EQ(s->span_s, 4.0);
  EXPECT_DOUBLE_EQ(s->after_s, 0.0);
}

// Issue 35: kiln report reads the span later from the build folder; the record says which build's
// records it covers (its window), and anything else is not a record.
TEST(CompileSpan, TheRecordReadsBackAndRefusesWhatIsNotOne) {
  const long long t0 = 1'795'950'857'000;  // an epoch time past INT_MAX, as a real one is
  drive::CompileSpan s{
      .before_s = 1.8, .span_s = 90.1, .after_s = 1.8, .units = 4, .from_ms = t0, .to_ms = t0 + 93'700};
  auto back = drive::parse_compile_span(drive::compile_span_json(s));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->from_ms, t0);
  EXPECT_EQ(back->to_ms, t0 + 93'700);
  EXPECT_DOUBLE_EQ(back->before_s, 1.8);
  EXPECT_DOUBLE_EQ(back->after_s, 1.8);
  EXPECT_EQ(back->units, 4);
  EXPECT_EQ(drive::compile_span_path("/b"), "/b/.kiln/compile-span.json");
  for (const char* bad :
       {"", "[]", "{}",
        R"({"schema":"kiln.compile-span/2","from_ms":1,"to_ms":2,"before_s":0,"span_s":0,"after_s":0,"units":1})",
        R"({"schema":"kiln.compile-span/1","from_ms":5,"to_ms":2,"before_s":0,"span_s":0,"after_s":0,"units":1})",
        R"({"schema":"kiln.compile-span/1","from_ms":1,"to_ms":2,"before_s":-1,"span_s":0,"after_s":0,"units":1})",
        R"({"schema":"kiln.compile-span/1","from_ms":1,"to_ms":2,"before_s":0,"span_s":0,"units":1})"})
    EXPECT_FALSE(drive::parse_compile_span(bad)) << bad;
}
