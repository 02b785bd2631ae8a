#pragma once
// Sizes as ccache and users write them ("5.0G", "500M", "20 GiB", "0"), read into bytes so JSON can
// carry one unit (docs/cli/json.md). The one size reader: each caller names the base its K, M, G and
// T mean, and says it in its messages (size_base_text).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kiln::core {

// What K, M, G and T mean: powers of 1000 (ccache's max_size) or of 1024 (memory, as Slurm's --mem
// and the kernel count it). Ki, Mi, Gi and Ti are powers of 1024 under either.
enum class SizeBase { decimal, binary };

// A number (a fraction allowed), then optionally a unit: k or K, M, G, T by `base` (m, g and t in
// lower case too), Ki, Mi, Gi, Ti, each with an optional trailing B; spaces around the number and
// before the unit allowed. No unit: `bare` bytes per unit (ccache: a G; memory: a byte). nullopt
// when `text` is not a size or its bytes do not fit in 64 bits.
std::optional<std::uint64_t> parse_size_bytes(std::string_view text, SizeBase base, std::uint64_t bare);

// ccache's max_size rules (ccache(1)): K, M, G, T decimal, a bare number is G.
std::optional<std::uint64_t> parse_ccache_size(std::string_view text);

// For error and help text: "K, M, G and T are powers of 1024" (or 1000).
std::string size_base_text(SizeBase base);

}  // namespace kiln::core
