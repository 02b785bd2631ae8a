#pragma once
// What a torch extension's build does outside its Ninja logs, for `kiln report --simulate`:
// setuptools links each extension once cpp_extension's Ninja has compiled it (kiln exec records
// the link in kiln-exec.jsonl; .ninja_log has no line for it), and the backend's start before the
// first compile (Python, setup.py, import torch) and the wheel and pip install after the last step
// run alone on the head node. Which records are this build's and that head-node time come from
// kiln build's record (drive/compile_span); a folder without it is projected from Ninja's logs
// alone, and `left_out` says so. A CMake build's links are Ninja's own steps: nothing is outside.
#include <span>
#include <string>
#include <vector>

#include "io/fs.hpp"
#include "report/profile.hpp"

namespace kiln::report {

struct OutsideNinja {
  std::vector<Unit> links;                      // setuptools' links, as kiln exec recorded them
  std::vector<std::vector<std::string>> needs;  // per link: the units (Ninja outputs) it runs after
  long serial_ms = 0;                           // before the first compile and after the last step
  std::vector<std::string> left_out;            // what the projection cannot include, and why
};

// `parts`: each Ninja folder's input (load_build), before they are merged into one profile.
OutsideNinja outside_ninja(const io::Filesystem& fs, std::span<const ProfileInput> parts);

}  // namespace kiln::report
