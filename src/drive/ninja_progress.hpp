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
  // What a project adds before it, "pkg.b (0/3 extensions)" (drive/project_progress); "" for a
  // lone Ninja. Kept apart so that the progress line can replace the step and keep the scope.
  std::string scope;
};

// nullopt for lines that are not Ninja status lines (compiler output, FAILED: blocks, ...).
std::optional<NinjaStatus> parse_ninja_status(std::string_view line);

// Remaining time from the rate so far; nullopt until enough steps finished to say.
std::optional<std::chrono::seconds> estimate_remaining(const NinjaStatus& s, std::chrono::milliseconds elapsed);

// "[=====>     ] 12/340  1m05s  1m20s left  Building CUDA object ...", cut to fit a terminal
// `width` columns wide (it leaves the last column free; 0: no limit, for logs); the bar is dropped
// on narrow terminals. `elapsed` is the build step's time so far, shown when given, so that a line
// redrawn while a long step runs never stands still.
std::string progress_line(const NinjaStatus& s, std::optional<std::chrono::seconds> eta, size_t width,
                          std::optional<std::chrono::seconds> elapsed = std::nullopt);

// "1m20s left"; "finishing" once nothing is left to estimate (a "0s left" that stays for seconds
// says the estimate is wrong); "" without an estimate.
std::string eta_text(std::optional<std::chrono::seconds> eta);
std::string duration_text(std::chrono::seconds d);  // "45s", "1m20s", "2h05m"

// `text` cut to at most `columns` characters, never inside a UTF-8 sequence.
std::string fit_columns(std::string_view text, size_t columns);
// A step description cut to `columns` keeping its end, the output's file name, which says what is
// being built: "Building CUDA object ...dir/kernels/softmax.cu.o".
std::string fit_keeping_end(std::string_view text, size_t columns);

}  // namespace kiln::drive
