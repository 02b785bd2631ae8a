#pragma once
// Did-you-mean: the optimal string alignment distance (Levenshtein plus adjacent transpositions,
// so "4900" for "4090" or "biuld" for "build" costs one edit) and the one rule for which names are
// near enough to suggest, for commands, options, PyTorch options, knobs and kiln.toml keys.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::core {

size_t edit_distance(std::string_view a, std::string_view b);

// Near enough to be a typo: at most max(1, |typed| / 4) edits (ninja's SpellcheckString allows 3 for
// any length; a quarter of the word keeps "-j" from suggesting "-D" and USE_CUDNNN from suggesting
// USE_CUDA).
size_t typo_limit(std::string_view typed);

// The candidates near enough to `typed`, nearest first (ties by name), at most `n`; `typed` itself
// is never one.
std::vector<std::string> nearest_names(std::string_view typed, const std::vector<std::string>& candidates, size_t n);

// The nearest of them, when one is near enough.
std::optional<std::string> closest(std::string_view typed, const std::vector<std::string>& candidates);

}  // namespace kiln::core
