#pragma once
// Reads Ninja's status lines ("[12/340] Building CUDA object ...") into progress and an ETA.
#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace kiln::drive {

struct NinjaStatus {
  int done = 0;
  int total = 0;
  std::string description;
};

// nullopt for lines that are not Ninja status lines (compiler output, FAILED: blocks, ...).
std::optional<NinjaStatus> parse_ninja_status(std::string_view line);

// Remaining time from the rate so far; nullopt until enough steps finished to say.
std::optional<std::chrono::seconds> estimate_remaining(const NinjaStatus& s, std::chrono::milliseconds elapsed);

// "[=====>     ] 12/340  1m20s left  Building CUDA object ...", cut to fit a terminal `width`
// columns wide (it leaves the last column free); the bar is dropped on narrow terminals.
std::string progress_line(const NinjaStatus& s, std::optional<std::chrono::seconds> eta, size_t width);

// `text` cut to at most `columns` characters, never inside a UTF-8 sequence.
std::string fit_columns(std::string_view text, size_t columns);

}  // namespace kiln::drive
