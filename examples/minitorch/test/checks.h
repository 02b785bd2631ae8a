#pragma once
#include "report.h"

namespace selftest {

// The dispatcher table holds exactly the kernels ops.toml declares.
void run_dispatch_checks(Report& report);
// CPU self-consistency: known values, round trips, invariants. No GPU needed.
void run_cpu_checks(Report& report);
// Each CUDA kernel against the CPU reference on the same inputs.
void run_cuda_checks(Report& report, int device);

}  // namespace selftest
