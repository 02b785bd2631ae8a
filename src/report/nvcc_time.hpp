#pragma once
// Per-architecture compile time of CUDA units, measured by nvcc itself: `nvcc --time FILE` appends
// one CSV row per compilation phase (source, phase, inputs, output, arch, tool, time, unit). The
// device phases (preprocessing for one arch, cicc, ptxas) name their architecture; the host
// phases (cudafe++, the host compiler, fatbinary) do not belong to one. Which phase is which is
// launch/nvcc_phases' one model; this reader only groups a whole build's rows by compile.
// kiln report reads BUILD/kiln-nvcc-time.csv when a build wrote it
// (kiln build ... -D CMAKE_CUDA_FLAGS=--time=BUILD/kiln-nvcc-time.csv).
#include <map>
#include <string>
#include <vector>

namespace kiln::report {

struct UnitArchTime {
  std::string source;
  std::map<int, double> device_ms;  // arch number (80, 90, 100 ...) -> preprocessing + cicc + ptxas
  double host_ms = 0;               // everything else nvcc did for the unit
};

struct NvccTimes {
  std::vector<UnitArchTime> units;  // the last compile of each source
  int rows = 0, skipped = 0;
};

NvccTimes parse_nvcc_time(const std::string& csv);

}  // namespace kiln::report
