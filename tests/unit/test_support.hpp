#pragma once
// What every unit test may need to know about where it runs. Only test_support.cpp is compiled with
// the checkout's paths, so the other test objects are the same in every clone (ccache shares them).
#include <string>

namespace kiln::testing {

std::string source_dir();   // the kiln checkout (fixtures live under tests/fixtures)
std::string kiln_binary();  // the built kiln executable

}  // namespace kiln::testing
