#pragma once
// The local GPUs (probe/local_gpus.hpp) set against the toolkit and torch: a toolkit newer than
// the driver supports, a GPU this nvcc cannot build for, a torch whose kernels do not run here.
#include <optional>

#include "probe/cuda_toolkit.hpp"
#include "probe/finding.hpp"
#include "probe/local_gpus.hpp"
#include "probe/python_torch.hpp"

namespace kiln::probe {

Findings check_gpus(const LocalGpus& gpus, const CudaToolkit& tk, const std::optional<TorchInfo>& torch);

}  // namespace kiln::probe
