#pragma once
// Did-you-mean: the optimal string alignment distance (Levenshtein plus adjacent transpositions,
// so "4900" for "4090" or "biuld" for "build" costs one edit) and the closest of a set of names.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::core {

size_t edit_distance(std::string_view a, std::string_view b);

// The candidate nearest to `typed`, when it is near enough to be a typo: at most
// max(1, |typed| / 3) edits (ninja's SpellcheckString allows 3 for any length; a third of the word
// keeps "-j" from suggesting "-D").
std::optional<std::string> closest(std::string_view typed, const std::vector<std::string>& candidates);

}  // namespace kiln::core
