#pragma once
// Sizes as ccache and users write them ("5.0G", "500M", "20 GiB", "0"), read into bytes so JSON can
// carry one unit (docs/cli/json.md).
#include <cstdint>
#include <optional>
#include <string_view>

namespace kiln::core {

// ccache's rules (ccache(1), max_size): k, M, G, T are powers of 1000, Ki, Mi, Gi, Ti powers of
// 1024, a trailing B is allowed, no suffix means G. nullopt when `text` is not a size.
std::optional<std::uint64_t> parse_size_bytes(std::string_view text);

}  // namespace kiln::core
