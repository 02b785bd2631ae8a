#pragma once
// What a compile unit costs before it ever compiled, for weighing it beside the others
// (launch/unit_weight) on a first build. A torch extension's unit costs mostly what it includes
// (a 600-byte .cpp with <torch/extension.h> took 47 s of CPU on the GPU host, a 30 KB .cu with
// only <ATen/ATen.h> 40 s), then its device code by the kernels it instantiates: each `<<<` launch
// its functions reach (launch/reachable_launches) once per distinct template the switch cases around
// it instantiate, more for a big kernel (its loops as they unroll with the launch's integer template
// arguments: launch/unrolled_code) or one built on CuTe/CUTLASS, per device target. The figures
// and their sources are in data/unit_cost.toml; only ratios matter.
#include <string>
#include <string_view>
#include <vector>

#include "io/fs.hpp"
#include "launch/unrolled_code.hpp"

namespace kiln::launch {

struct HeaderClass {
  std::string name;
  std::vector<std::string> includes;  // exact <...> names
  std::vector<std::string> prefixes;  // or any <...> name starting with one of these
  double host_seconds = 0;
  double device_seconds = 0;  // per device target
};

// Kernels written on a device template library whose headers kiln does not read (CuTe, CUTLASS:
// reached through <...>) cost more per instantiation than the size of the project's own code says.
struct DeviceLibrary {
  std::string name;
  std::vector<std::string> prefixes;  // any <...> name starting with one of these
  double launch_factor = 1;           // times seconds_per_launch
};

struct CostTable {
  std::vector<HeaderClass> classes;  // heaviest first; the last matches every unit
  std::vector<DeviceLibrary> libraries;
  double seconds_per_kib = 0.1;
  double seconds_per_launch = 0.25;
  double macro_factor = 2.0;
  double kernel_kib = 16.0;             // a launch of a bigger kernel counts kib / kernel_kib times
  double unrolled_share = 0.5;          // of each byte an unrolled loop's copies add (launch/unrolled_code)
  double complex_factor = 1.5;          // an explicit instantiation with a complex type (reachable_launches)
  IntValues constants;                  // integer macros of headers kiln does not read (C10_WARP_SIZE)
  static const CostTable& from_data();  // data/unit_cost.toml
};

struct UnitEstimate {
  double seconds = 0;  // 0: the source could not be read
  std::string header_class;
  double launches = 0;       // weighted kernel launches: those reached, else every one the text holds
  double launch_factor = 1;  // the costliest device library it includes, else 1
  double kib = 0;            // the source and its project headers, comments removed
};

// The source and the project headers it includes with "..." (found next to the including file,
// each counted once, at most 64 files); a CUDA unit has device_targets > 0.
UnitEstimate estimate_unit(const io::Filesystem& fs, const std::string& source, int device_targets,
                           const CostTable& table = CostTable::from_data());

// The pieces, for tests: comments removed (string literals kept as they are), the <...> and "..."
// includes as written, and the kernel launches weighted by the switch macros around them.
std::string without_comments(std::string_view text);
std::vector<std::string> includes_of(std::string_view text, char open);
double weighted_launches(std::string_view text, double macro_factor);

}  // namespace kiln::launch
