// PyTorch option resolution: profile, --set, missing libraries and dependent options.
#include <gtest/gtest.h>

#include "read/options.hpp"

using namespace kiln::read;

namespace {
const ResolvedOption& get(const std::vector<ResolvedOption>& v, const std::string& name) {
  for (const auto& o : v)
    if (o.name == name) return o;
  throw std::runtime_error("no option " + name);
}
}  // namespace

TEST(Options, DefaultsFromTheTable) {
  auto r = resolve_options({}, "", {}, nullptr).value();
  EXPECT_TRUE(get(r, "USE_CUDA").on);
  EXPECT_TRUE(get(r, "USE_NCCL").on);
  EXPECT_FALSE(get(r, "USE_TENSORRT").on);
  EXPECT_EQ(to_string(get(r, "USE_NCCL").origin), "default");
}

TEST(Options, NcclNeedsDistributedAndCuda) {
  auto r = resolve_options({}, "", {{"USE_DISTRIBUTED", "0"}}, nullptr).value();
  EXPECT_FALSE(get(r, "USE_NCCL").on);
  EXPECT_EQ(to_string(get(r, "USE_NCCL").origin), "dependency");
  EXPECT_EQ(get(r, "USE_NCCL").reason, "needs USE_DISTRIBUTED, which is off");
  auto cpu = resolve_options({{"USE_CUDA", "false"}}, "cpu", {}, nullptr).value();
  for (const char* o : {"USE_NCCL", "USE_CUDNN", "USE_CUPTI", "USE_FLASH_ATTENTION"}) EXPECT_FALSE(get(cpu, o).on) << o;
  EXPECT_TRUE(get(cpu, "USE_DISTRIBUTED").on);
  EXPECT_EQ(to_string(get(cpu, "USE_CUDA").origin), "profile cpu");
}

TEST(Options, DependencyChainsSettle) {
  // USE_CUPTI needs USE_KINETO: turning Kineto off turns CUPTI off too.
  auto r = resolve_options({}, "", {{"USE_KINETO", "OFF"}}, nullptr).value();
  EXPECT_FALSE(get(r, "USE_CUPTI").on);
}

TEST(Options, MissingLibraryTurnsFeatureOffUnlessForced) {
  auto check = [](const std::string& lib) -> std::optional<bool> {
    if (lib == "cupti") return false;
    if (lib == "nccl") return true;
    return std::nullopt;
  };
  auto r = resolve_options({}, "", {}, check).value();
  EXPECT_FALSE(get(r, "USE_CUPTI").on);
  EXPECT_EQ(to_string(get(r, "USE_CUPTI").origin), "library");
  EXPECT_NE(get(r, "USE_CUPTI").reason.find("cupti was not found"), std::string::npos);
  EXPECT_TRUE(get(r, "USE_NCCL").on);
  EXPECT_TRUE(get(r, "USE_CUDNN").on);  // unknown: left alone
  auto forced = resolve_options({}, "", {{"USE_CUPTI", "1"}}, check).value();
  EXPECT_TRUE(get(forced, "USE_CUPTI").on);
}

TEST(Options, UserBeatsProfile) {
  auto r = resolve_options({{"BUILD_TEST", "0"}}, "production", {{"BUILD_TEST", "1"}}, nullptr).value();
  EXPECT_TRUE(get(r, "BUILD_TEST").on);
  EXPECT_EQ(to_string(get(r, "BUILD_TEST").origin), "--set");
}

TEST(Options, BadValueIsAnError) {
  auto r = resolve_options({}, "", {{"USE_NCCL", "maybe"}}, nullptr);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("USE_NCCL=maybe"), std::string::npos);
}

TEST(Options, OriginNamesRoundTripAndSpellThePlansWords) {
  for (auto s : kOptionSources) {
    const OptionOrigin o{s, s == OptionSource::profile ? "dev" : ""};
    EXPECT_EQ(option_origin_from(to_string(o)), o) << to_string(o);
  }
  EXPECT_EQ(to_string(OptionOrigin{OptionSource::profile, "dev"}), "profile dev");
  EXPECT_EQ(to_string(OptionOrigin{OptionSource::set_option, {}}), "--set");
  EXPECT_EQ(to_string(OptionOrigin{OptionSource::not_declared, {}}), "not declared here");
  EXPECT_FALSE(option_origin_from("profile"));
  EXPECT_FALSE(option_origin_from("--knob"));
}
