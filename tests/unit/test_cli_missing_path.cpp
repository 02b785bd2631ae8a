// Every command that takes a path answers a missing one alike (issue 33): exit 2, one line naming
// the path. inspect, verify and report had exited 1.
#include <gtest/gtest.h>

#include "test_support.hpp"

using kiln::testing::CliRig;

TEST(CliMissingPath, EveryCommandThatTakesAPathExitsTwoNamingIt) {
  const std::string gone = "/nonexistent-kiln-test/path";
  const std::vector<std::vector<std::string>> commands = {
      {"plan", gone},   {"build", gone},    {"inspect", gone}, {"verify", gone, "--gpu", "h100"},
      {"report", gone}, {"diagnose", gone}, {"bench", gone},
  };
  for (const auto& args : commands) {
    CliRig c;
    EXPECT_EQ(c.run(args), 2) << args.front() << ": " << c.err.str();
    const std::string err = c.err.str();
    EXPECT_NE(err.find("'" + gone + "'"), std::string::npos) << args.front() << ": " << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << args.front() << ": " << err;
  }
}
