#include <gtest/gtest.h>

#include "core/duration_text.hpp"

using namespace kiln;
using core::ShortSpan;

// One spelling of a span of time for reports, remedies, the progress line, grant reasons and the
// build summary (issue 31: five private formatters, "45 s", "45s", "0.75s", "1m05s", disagreed).
TEST(DurationText, OneSpellingForEverySpan) {
  EXPECT_EQ(core::duration_text(0.0), "0s");
  EXPECT_EQ(core::duration_text(44'600.0), "45s");  // rounded to the second
  EXPECT_EQ(core::duration_text(65'000.0), "1m05s");
  EXPECT_EQ(core::duration_text(3'599'000.0), "59m59s");
  EXPECT_EQ(core::duration_text(7'500'000.0), "2h05m");
  EXPECT_EQ(core::duration_text(-1.0), "-");  // unknown
  EXPECT_EQ(core::duration_text(std::chrono::seconds(80)), "1m20s");
}

TEST(DurationText, ShortSpansKeepDecimalsWhereAskedFor) {
  EXPECT_EQ(core::duration_text(1'254.0, ShortSpan::hundredths_under_10s), "1.25s");  // a step in a report
  EXPECT_EQ(core::duration_text(12'400.0, ShortSpan::hundredths_under_10s), "12s");
  EXPECT_EQ(core::duration_text(22'240.0, ShortSpan::tenths_under_1m), "22.2s");  // a build's phases
  EXPECT_EQ(core::duration_text(85'500.0, ShortSpan::tenths_under_1m), "1m26s");
  EXPECT_EQ(core::duration_text(std::chrono::milliseconds(40), ShortSpan::tenths_under_1m), "0.0s");
}
