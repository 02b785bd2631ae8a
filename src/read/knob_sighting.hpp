#pragma once
// What reading a project's build files finds, as values: a switch seen in a file, an op-builder's
// op, and what could not be read statically. Both readers produce them (project_knobs_read, the
// line patterns; setup_py_ast, Python's ast), so they live apart from either.
#include <string>
#include <vector>

namespace kiln::read {

struct KnobSighting {
  enum class Use {
    compare,       // os.getenv("X", "FALSE") == "TRUE", .lower() in ("1", "true"): a switch
    value,         // os.getenv("X") or "4", os.environ["X"], $ENV{X}: a value read
    cmake_option,  // option(X "..." OFF)
    cmake_cache,   // set(X "cpu" CACHE STRING ...), with STRINGS choices when declared
    probe,         // torch.cuda.is_available(): CUDA only where torch sees a GPU; no name
  };
  Use use = Use::compare;
  std::string name;           // variable; empty for a probe
  std::string file;           // setup.py, CMakeLists.txt, pyproject.toml
  int line = 0;               // 1-based
  std::string text;           // the line, trimmed
  std::string default_value;  // what the project assumes when it is unset ("" when none is written)
  bool has_default = false;
  std::string true_value;     // compare: the value that makes the switch true
  bool negated = false;       // compare with != / not in: true for every value but true_value
  std::string flag;           // setup.py flag the variable becomes (--cuda_ext), if any
  std::vector<std::string> choices;  // cmake_cache: the STRINGS property
};

// A pre-built op of an op-builder project (DeepSpeed's pattern): a class with BUILD_VAR.
struct OpSwitch {
  std::string name;   // fused_adam
  std::string var;    // DS_BUILD_FUSED_ADAM
  std::string where;  // op_builder/fused_adam.py:12 (the BUILD_VAR line)
  std::string checks; // where its is_compatible is, or ""
  bool cuda = false;  // its class chain is a CUDA builder
  std::vector<std::string> libraries;  // linked libraries its is_compatible checks for (aio)
  int min_cc = 0;     // the lowest compute capability it accepts (70), 0 when it does not say
};

struct Undecided {
  std::string where, text, why;
};

}  // namespace kiln::read
