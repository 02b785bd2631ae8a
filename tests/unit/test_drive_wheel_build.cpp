// The wheel build's contract with its Python script: one line names the wheel, nothing else does.
#include <gtest/gtest.h>

#include "drive/wheel_build.hpp"
#include "plan/install_command.hpp"

using namespace kiln;

TEST(WheelBuild, TheScriptsLineNamesTheWheelFile) {
  EXPECT_EQ(drive::built_wheel_name("KILN-WHEEL causal_conv1d-1.5.0-cp312-cp312-linux_x86_64.whl\r"),
            "causal_conv1d-1.5.0-cp312-cp312-linux_x86_64.whl");
  EXPECT_FALSE(drive::built_wheel_name("  KILN-WHEEL x.whl"));          // a child's indented echo is not ours
  EXPECT_FALSE(drive::built_wheel_name("KILN-WHEEL ../../etc/x.whl"));  // a file in the wheel folder only
  EXPECT_FALSE(drive::built_wheel_name("KILN-WHEEL x.tar.gz"));
  EXPECT_FALSE(drive::built_wheel_name("KILN-WHEEL "));
  EXPECT_FALSE(drive::built_wheel_name("creating build/lib/x.whl"));
}

TEST(WheelBuild, InstallReplacesTheSameVersionAndNeverReachesAnIndex) {
  auto argv = kiln::plan::wheel_install_argv("/venv/bin/python", "/b/wheel/x-1.0-py3-none-any.whl");
  ASSERT_GE(argv.size(), 4u);
  EXPECT_EQ(argv[0], "/venv/bin/python");
  EXPECT_EQ(argv.back(), "/b/wheel/x-1.0-py3-none-any.whl");
  for (const char* flag : {"--no-deps", "--no-index", "--no-build-isolation", "--force-reinstall"})
    EXPECT_NE(std::find(argv.begin(), argv.end(), flag), argv.end()) << flag;
}

TEST(WheelBuild, TheScriptFallsBackToTheLegacyBackendAsPipDoes) {
  const auto script = drive::wheel_build_script();
  EXPECT_NE(script.find("setuptools.build_meta:__legacy__"), std::string_view::npos);
  EXPECT_NE(script.find("backend-path"), std::string_view::npos);
  EXPECT_NE(script.find("print(\"KILN-WHEEL \" + name"), std::string_view::npos);
}
