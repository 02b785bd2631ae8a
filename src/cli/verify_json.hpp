#pragma once
// One JSON shape for a verification report (binary::VerifyReport), the same in `kiln verify --json`
// and in `kiln build --json`'s outcome.verify; docs/cli/verify.md documents it.
#include <cstddef>

#include <nlohmann/json.hpp>

#include "binary/verify.hpp"

namespace kiln::cli {

// {ok, files_checked, skipped, files[{path, targets, cxx_abi, gpus, kernels}], problems[{file, gpu,
// kind, why, fix}], notes,
// extension_torch[{torch, how}]}. `kernel_names`: missing kernels named per GPU (0: all).
nlohmann::ordered_json verify_report_json(const binary::VerifyReport& rep, std::size_t kernel_names);

}  // namespace kiln::cli
