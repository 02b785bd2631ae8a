#pragma once
// Fills a core::SpecContext (what `all`, `all-major` and `native` mean here) from the probes,
// lazily: nvcc and the GPUs are only asked when the spec needs them.
#include <string_view>

#include "core/arch_spec.hpp"
#include "io/seams.hpp"

namespace kiln::probe {

core::SpecContext spec_context_for(std::string_view spec, const io::Seams& s);

}  // namespace kiln::probe
