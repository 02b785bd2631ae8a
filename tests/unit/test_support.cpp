#include "test_support.hpp"

namespace kiln::testing {

std::string source_dir() { return KILN_SOURCE_DIR; }
std::string kiln_binary() { return KILN_BINARY; }

}  // namespace kiln::testing
