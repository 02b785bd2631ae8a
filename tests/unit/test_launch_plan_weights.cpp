// The order of an extension's units (launch/plan_weights.hpp): weighed as kiln exec's thread grants
// weigh them, heaviest first, for data/parallel_extensions.py (`kiln exec --weigh PLAN_FILE`).
#include <gtest/gtest.h>

#include "fakes/fs.hpp"
#include "launch/exec_launcher.hpp"
#include "launch/plan_weights.hpp"
#include "launch/unit_weight.hpp"
#include "test_support.hpp"

using namespace kiln;

namespace {

std::vector<std::string> order(const launch::PlanWeights& w) {
  std::vector<std::string> out;
  for (const auto& u : w.units) out.push_back(u.output);
  return out;
}

}  // namespace

TEST(PlanWeights, AUnitIsWeighedWithItsProjectHeadersNotItsSourceAlone) {
  io::FakeFilesystem fs;
  // b.cpp is the larger file; a.cpp includes a project header that pulls in torch's C++ API.
  fs.add_file("/p/a.cpp", "#include \"ext.h\"\n");
  fs.add_file("/p/ext.h", "#include <torch/extension.h>\n");
  fs.add_file("/p/b.cpp", std::string(1000, 'b'));
  fs.add_file("/p/c.cpp", std::string(1000, 'c'));
  auto plan = launch::parse_unit_plan(
      "unit\text\t2\tcxx\t0\t/t/b.o\t/p/b.cpp\n"
      "unit\text\t2\tcxx\t0\t/t/a.o\t/p/a.cpp\n"
      "unit\text\t2\tcxx\t0\t/t/c.o\t/p/c.cpp\n");
  auto w = launch::weigh_plan(fs, {}, plan);
  EXPECT_EQ(w.basis, "estimate");
  // Equal weights keep the plan's order (b before c).
  EXPECT_EQ(order(w), (std::vector<std::string>{"/t/a.o", "/t/b.o", "/t/c.o"}));
  EXPECT_GT(w.units[0].weight, 4 * w.units[1].weight);  // torch's headers, not bytes
  // The same figure the grants use.
  EXPECT_DOUBLE_EQ(w.units[0].weight / w.units[1].weight,
                   launch::estimate_work(fs, "/p/a.cpp", 0) / launch::estimate_work(fs, "/p/b.cpp", 0));
}

TEST(PlanWeights, WhatAnotherCheckoutLearnedOrdersAFreshClone) {
  io::FakeFilesystem fs;
  // Two units of equal size; the first clone learned that `slow` takes 90 s of CPU, `fast` 2 s.
  for (const auto* root : {"/first", "/clone"}) {
    fs.add_file(std::string(root) + "/fast.cu", std::string(800, 'f'));
    fs.add_file(std::string(root) + "/slow.cu", std::string(800, 's'));
  }
  const std::string units = "/xdg/kiln/units";
  auto learn = [&](const std::string& name, long cpu_ms) {
    const auto id = launch::portable_unit_id(fs, "/first", "/first/build/" + name + ".o", "/first/" + name + ".cu");
    ASSERT_FALSE(id.empty());
    fs.add_file(units + "/" + launch::history_key(id), launch::format_history({1000, cpu_ms, cpu_ms, 1}));
  };
  learn("fast", 2000);
  learn("slow", 90000);
  auto plan = launch::parse_unit_plan(
      "unit\text\t16\tcuda\t1\t/clone/build/fast.o\t/clone/fast.cu\n"
      "unit\text\t16\tcuda\t1\t/clone/build/slow.o\t/clone/slow.cu\n");
  auto w = launch::weigh_plan(fs, {"", units, "/clone"}, plan);
  EXPECT_NE(w.basis.find("learned"), std::string::npos) << w.basis;
  EXPECT_EQ(order(w), (std::vector<std::string>{"/clone/build/slow.o", "/clone/build/fast.o"}));
  // Nothing learned: equal estimates keep the plan's order.
  EXPECT_EQ(order(launch::weigh_plan(fs, {}, plan)),
            (std::vector<std::string>{"/clone/build/fast.o", "/clone/build/slow.o"}));
}

TEST(PlanWeights, TheCommandPrintsTheBasisThenEachUnitHeaviestFirst) {
  kiln::testing::FakeSeams s;
  s.fs.add_file("/p/a.cpp", "#include <ATen/ATen.h>\n");
  s.fs.add_file("/p/b.cpp", std::string(100, 'b'));
  s.fs.add_file("/t/units.plan",
                "unit\text\t2\tcxx\t0\t/t/b.o\t/p/b.cpp\n"
                "unit\text\t2\tcxx\t0\t/t/a.o\t/p/a.cpp\n");
  EXPECT_EQ(launch::weigh_plan_command("/t/units.plan", s.seams), 0);
  EXPECT_EQ(s.out.str(), "basis\testimate\n25\t/t/a.o\n2\t/t/b.o\n");
  EXPECT_EQ(launch::weigh_plan_command("/t/missing.plan", s.seams), 1);
  EXPECT_NE(s.err.str().find("cannot read the unit plan /t/missing.plan"), std::string::npos);
}
