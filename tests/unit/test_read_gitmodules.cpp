// Empty git submodules (issue 33): .gitmodules read as untrusted input, the folders that hold
// nothing found, the plan's note, and a missing header diagnosed as the submodule to check out
// rather than a package to install.
#include <gtest/gtest.h>

#include <filesystem>

#include "binary_fixtures.hpp"
#include "diagnose/diagnoser.hpp"
#include "diagnose/empty_submodule.hpp"
#include "read/gitmodules.hpp"
#include "test_support.hpp"

using namespace kiln;

TEST(Gitmodules, PathsAreReadAndOnesThatLeaveTheProjectIgnored) {
  const auto paths = read::parse_gitmodules(
      "[submodule \"third_party/cutlass\"]\n"
      "\tpath = third_party/cutlass\n"
      "\turl = https://example.invalid/cutlass.git\n"
      "[submodule \"phmap\"]\n"
      "  path=\"third_party/parallel-hashmap/\"\n"
      "[submodule \"evil\"]\n"
      "\tpath = ../../etc\n"
      "\tpath = /etc\n"
      "\tpathological = x\n");
  EXPECT_EQ(paths, (std::vector<std::string>{"third_party/cutlass", "third_party/parallel-hashmap"}));
}

TEST(Gitmodules, EmptyAndMissingFoldersAreEmptyCheckedOutOnesAreNot) {
  kiln::testing::FakeSeams w;
  w.fs.add_file("/p/.gitmodules",
                "[submodule \"a\"]\n path = third_party/a\n[submodule \"b\"]\n path = third_party/b\n"
                "[submodule \"c\"]\n path = third_party/c\n");
  w.fs.add_dir("/p/third_party/a");                                        // cloned without --recursive
  w.fs.add_file("/p/third_party/b/.git", "gitdir: ../../.git/modules/b");  // checked out
  w.fs.add_file("/p/third_party/b/b.h", "");
  EXPECT_EQ(read::empty_submodules(w.fs, "/p"), (std::vector<std::string>{"third_party/a", "third_party/c"}));
  kiln::testing::FakeSeams none;
  EXPECT_TRUE(read::empty_submodules(none.fs, "/p").empty());
}

TEST(SubmoduleIncludes, IncludeFlagsNamingAnEmptySubmoduleAreFound) {
  auto seen = [](std::string_view log) {
    diagnose::SubmoduleIncludes s({"third_party/phmap"});
    s.scan(log);
    return s.holder_of("parallel_hashmap/phmap.h").value_or("");
  };
  EXPECT_EQ(seen("c++ -I/src/p/third_party/phmap -c a.cpp"), "third_party/phmap");
  EXPECT_EQ(seen("c++ -Ithird_party/phmap/include -c a.cpp"), "third_party/phmap");
  EXPECT_EQ(seen("c++ -isystem /src/p/third_party/phmap -c a.cpp"), "third_party/phmap");
  EXPECT_EQ(seen("c++ -I third_party/phmap -c a.cpp"), "third_party/phmap");
  EXPECT_EQ(seen("c++ -I/src/p/third_party/phmap2 -c a.cpp"), "");    // another folder
  EXPECT_EQ(seen("c++ -c /src/p/third_party/phmap/a.cpp"), "");       // a source, not an include folder
  EXPECT_EQ(seen("c++ -I/src/p/my_third_party/phmap -c a.cpp"), "");  // another folder
  // Without a flag, a header whose path starts with the submodule's.
  diagnose::SubmoduleIncludes s({"third_party/phmap"});
  EXPECT_EQ(s.holder_of("third_party/phmap/phmap.h").value_or(""), "third_party/phmap");
}

TEST(SubmoduleIncludes, TheDiagnosisNamesTheSubmoduleOnlyWhereThePlanSaysItIsEmpty) {
  const std::string log =
      "FAILED: graph.o\n"
      "c++ -I/src/p/third_party/parallel-hashmap -c /src/p/csrc/graph.cpp -o graph.o\n"
      "/src/p/csrc/graph.cpp:1:10: fatal error: parallel_hashmap/phmap.h: No such file or directory\n"
      "compilation terminated.\n";
  auto plain = diagnose::diagnose_text(log);
  ASSERT_TRUE(plain.failed());
  EXPECT_EQ(plain.root_cause()->signature->id, "host-compiler.header-missing");
  diagnose::Options opts;
  opts.plan = diagnose::PlanContext{.empty_submodules = {"third_party/parallel-hashmap"}};
  auto d = diagnose::diagnose_text(log, opts);
  ASSERT_TRUE(d.failed());
  EXPECT_EQ(d.root_cause()->signature->id, "host-compiler.header-in-empty-submodule");
  EXPECT_EQ(d.root_cause()->fix.rfind("empty submodule third_party/parallel-hashmap: run git submodule update --init "
                                      "--recursive",
                                      0),
            0u)
      << d.root_cause()->fix;
  EXPECT_EQ(d.root_cause()->fix.find("apt-file"), std::string::npos);
  // An empty submodule the failing compile does not include: the header is someone else's.
  opts.plan = diagnose::PlanContext{.empty_submodules = {"third_party/cutlass"}};
  EXPECT_EQ(diagnose::diagnose_text(log, opts).root_cause()->signature->id, "host-compiler.header-missing");
}

// kiln diagnose BUILD/kiln-build.log from any folder: the project comes from kiln's record beside
// the log, so its empty submodules are known without --project.
TEST(SubmoduleIncludes, KilnDiagnoseFindsTheProjectFromTheBuildRecord) {
  kiln::testing::TempDir dir;
  const std::string proj = dir / "proj";
  dir.write("proj/.gitmodules", "[submodule \"phmap\"]\n\tpath = third_party/parallel-hashmap\n");
  dir.mkdir("proj/third_party/parallel-hashmap");
  dir.write("proj/build-kiln/kiln-build.json", "{\"schema\": 1, \"project_dir\": \"" + proj + "\"}");
  const auto log = dir.write("proj/build-kiln/kiln-build.log",
                             "FAILED: g.o\nc++ -I" + proj +
                                 "/third_party/parallel-hashmap -c a.cpp -o g.o\n"
                                 "a.cpp:1:10: fatal error: parallel_hashmap/phmap.h: No such file or directory\n");
  kiln::testing::CliRig c;
  EXPECT_EQ(c.run({"diagnose", log}), 1);
  EXPECT_NE(
      c.out.str().find("empty submodule third_party/parallel-hashmap: run git submodule update --init --recursive"),
      std::string::npos)
      << c.out.str();
}
