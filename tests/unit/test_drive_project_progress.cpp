// One progress line for a project whose extensions build at once: the units of every extension's
// Ninja added up, the extension that moved named, kiln's own markers kept off the terminal.
#include <gtest/gtest.h>

#include "drive/project_progress.hpp"

using kiln::drive::ProjectProgress;

TEST(ProjectProgress, AddsTheUnitsOfEveryExtensionsNinja) {
  ProjectProgress p;
  EXPECT_TRUE(p.feed("KILN-EXTENSIONS pkg.a pkg.b pkg.c").consumed);
  EXPECT_EQ(p.extensions(), 3);
  auto s = p.feed("KILN-EXT pkg.a [1/2] c++ -c a1.cpp -o a1.o").status;
  ASSERT_TRUE(s);
  EXPECT_EQ(s->done, 1);
  EXPECT_EQ(s->total, 2);
  s = p.feed("KILN-EXT pkg.b [0/5] c++ -c b1.cpp").status;
  ASSERT_TRUE(s);
  EXPECT_EQ(s->done, 1);
  EXPECT_EQ(s->total, 7);
  EXPECT_EQ(s->scope, "pkg.b (0/3 extensions)");
  EXPECT_EQ(s->description, "c++ -c b1.cpp");
  auto done = p.feed("KILN-EXTENSION-DONE pkg.a");
  EXPECT_TRUE(done.consumed);
  ASSERT_TRUE(done.status);
  EXPECT_EQ(done.status->done, 2);  // an extension that finished counts all its units, linked
  EXPECT_EQ(p.extensions_done(), 1);
}

TEST(ProjectProgress, PlainNinjaStatusAndOtherLinesPassThrough) {
  ProjectProgress p;
  auto s = p.feed("[3/4] Building CXX object x.o").status;
  ASSERT_TRUE(s);
  EXPECT_EQ(s->done, 3);
  EXPECT_EQ(s->description, "Building CXX object x.o");
  auto other = p.feed("warning: unused variable");
  EXPECT_FALSE(other.status);
  EXPECT_FALSE(other.consumed);
  // A malformed tag is output, not progress; an unannounced extension still counts.
  EXPECT_FALSE(p.feed("KILN-EXT broken").status);
  auto late = p.feed("KILN-EXT pkg.z [1/1] c++ z.cpp").status;
  ASSERT_TRUE(late);
  EXPECT_EQ(late->total, 1);
  EXPECT_EQ(p.extensions(), 1);
  EXPECT_TRUE(p.feed("KILN-EXTENSION-DONE unknown.ext").consumed);
}

TEST(ProjectProgress, EachNinjasUnitsCountBeforeItsFirstStatus) {
  // apex on the GPU host: Ninja without a terminal prints a status only when a unit ends, so the
  // line said "1/2" after 71 s of a build of 37 units (only the first extension had reported).
  ProjectProgress p;
  p.feed("KILN-EXTENSIONS pkg.a pkg.b");
  EXPECT_TRUE(p.feed("KILN-EXT-UNITS pkg.a 15").consumed);
  auto s = p.feed("KILN-EXT-UNITS pkg.b 22").status;
  ASSERT_TRUE(s);
  EXPECT_EQ(s->done, 0);
  EXPECT_EQ(s->total, 37);
  s = p.feed("KILN-EXT pkg.a [1/15] nvcc a1.cu").status;
  ASSERT_TRUE(s);
  EXPECT_EQ(s->done, 1);
  EXPECT_EQ(s->total, 37);
  // Ninja's own count wins (an object up to date by its depfile), and a late helper line does not undo it.
  s = p.feed("KILN-EXT pkg.b [1/20] nvcc b1.cu").status;
  ASSERT_TRUE(s);
  EXPECT_EQ(s->total, 35);
  s = p.feed("KILN-EXT-UNITS pkg.b 22").status;
  ASSERT_TRUE(s);
  EXPECT_EQ(s->total, 35);
  EXPECT_TRUE(p.feed("KILN-EXT-UNITS broken").consumed);
}
