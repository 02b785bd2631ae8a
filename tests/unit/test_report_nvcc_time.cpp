#include <gtest/gtest.h>

#include "report/nvcc_time.hpp"

using kiln::report::parse_nvcc_time;

// Rows recorded from nvcc 13.0 --time for a.cu built for sm_80 and sm_90 (two runs interleaved
// with b.cu, as parallel compiles append to one file), shortened to the columns' meaning.
TEST(NvccTime, SumsDevicePhasesPerArchAndHostPhasesApart) {
  const std::string csv =
      "source file name , phase name , phase input files , phase output file , arch , tool, metric , unit\n"
      "/p/a.cu , gcc (preprocessing 1) , /p/a.cu  , /tmp/tmpxft_00007b01_00000000-8_a.compute_80.cpp1.ii , compute_80 "
      ", nvcc , 369.8100 , ms\n"
      "/p/b.cu , gcc (preprocessing 1) , /p/b.cu  , /tmp/tmpxft_00007b05_00000000-8_b.compute_80.cpp1.ii , compute_80 "
      ", nvcc , 399.5030 , ms\n"
      "/p/a.cu , gcc (preprocessing 1) , /p/a.cu  , /tmp/tmpxft_00007b01_00000000-9_a.compute_90.cpp1.ii , compute_90 "
      ", nvcc , 322.5350 , ms\n"
      "/p/a.cu , gcc (preprocessing 4) , /p/a.cu  , /tmp/tmpxft_00007b01_00000000-5_a.cpp4.ii ,  , nvcc , 349.4930 , "
      "ms\n"
      "/p/a.cu , cudafe++ ,  /tmp/tmpxft_00007b01_00000000-5_a.cpp4.ii  , "
      "/tmp/tmpxft_00007b01_00000000-6_a.compute_90.cudafe1.cpp , compute_90 , nvcc , 1177.5470 , ms\n"
      "/p/a.cu , cicc ,  /tmp/tmpxft_00007b01_00000000-8_a.compute_80.cpp1.ii  , "
      "/tmp/tmpxft_00007b01_00000000-7_a.compute_80.ptx , compute_80 , nvcc , 1032.3500 , ms\n"
      "/p/a.cu , ptxas , /tmp/tmpxft_00007b01_00000000-7_a.compute_80.ptx  , "
      "/tmp/tmpxft_00007b01_00000000-10_a.compute_80.cubin , sm_80 , nvcc , 59.8220 , ms\n"
      "/p/a.cu , cicc ,  /tmp/tmpxft_00007b01_00000000-9_a.compute_90.cpp1.ii  , "
      "/tmp/tmpxft_00007b01_00000000-6_a.compute_90.ptx , compute_90 , nvcc , 1384.1360 , ms\n"
      "/p/a.cu , ptxas , /tmp/tmpxft_00007b01_00000000-6_a.compute_90.ptx  , "
      "/tmp/tmpxft_00007b01_00000000-11_a.compute_90.cubin , sm_90 , nvcc , 95.8250 , ms\n"
      "/p/a.cu , fatbinary , /tmp/tmpxft_00007b01_00000000-10_a.compute_80.cubin "
      "/tmp/tmpxft_00007b01_00000000-11_a.compute_90.cubin  , /tmp/tmpxft_00007b01_00000000-3_a.fatbin ,  , nvcc , "
      "2.3300 , ms\n"
      "/p/a.cu , gcc (compiling) ,   , CMakeFiles/k.dir/a.cu.o , compute_90 , nvcc , 1265.6550 , ms\n"
      " , nvcc (driver) ,  , CMakeFiles/k.dir/a.cu.o ,  , nvcc , 4.4673 , ms\n"
      "garbage line\n";
  auto t = parse_nvcc_time(csv);
  EXPECT_EQ(t.rows, 12);
  EXPECT_EQ(t.skipped, 1);
  ASSERT_EQ(t.units.size(), 2u);
  const auto& a = t.units[0];
  EXPECT_EQ(a.source, "/p/a.cu");
  EXPECT_NEAR(a.device_ms.at(80), 369.81 + 1032.35 + 59.822, 1e-6);
  EXPECT_NEAR(a.device_ms.at(90), 322.535 + 1384.136 + 95.825, 1e-6);
  EXPECT_NEAR(a.host_ms, 349.493 + 1177.547 + 2.33 + 1265.655, 1e-6);
}

TEST(NvccTime, KeepsTheLastCompileOfASource) {
  const std::string csv =
      "/p/a.cu , cicc , /tmp/tmpxft_00000001_00000000-8_a.ii , /tmp/tmpxft_00000001_00000000-7_a.ptx , compute_80 , "
      "nvcc , 100 , ms\n"
      "/p/a.cu , cicc , /tmp/tmpxft_00000002_00000000-8_a.ii , /tmp/tmpxft_00000002_00000000-7_a.ptx , compute_80 , "
      "nvcc , 7 , ms\n";
  auto t = parse_nvcc_time(csv);
  ASSERT_EQ(t.units.size(), 1u);
  EXPECT_DOUBLE_EQ(t.units[0].device_ms.at(80), 7);
}
