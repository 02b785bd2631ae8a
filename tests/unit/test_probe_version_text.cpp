#include <gtest/gtest.h>

#include "probe/version_text.hpp"

using namespace kiln::probe;

TEST(VersionText, ReadsHeaderDefines) {
  const std::string h =
      "#ifndef X\n#define CUDNN_MAJOR 9\n#  define CUDNN_MINOR    19 /* minor */\n"
      "#define CUDNN_PATCHLEVEL_EXTRA 7\n#define CUDNN_PATCHLEVEL 0\n#define OPENBLAS_VERSION \" OpenBLAS 0.3.21 \"\n";
  EXPECT_EQ(header_define_int(h, "CUDNN_MAJOR"), 9);
  EXPECT_EQ(header_define_int(h, "CUDNN_MINOR"), 19);
  EXPECT_EQ(header_define_int(h, "CUDNN_PATCHLEVEL"), 0);  // not the _EXTRA one
  EXPECT_FALSE(header_define_int(h, "CUDNN_MISSING"));
  EXPECT_EQ(find_version(*header_define(h, "OPENBLAS_VERSION"))->str(), "0.3.21");
  EXPECT_FALSE(header_define_int("#define TRT_MAJOR NV_OTHER\n", "TRT_MAJOR"));
}
