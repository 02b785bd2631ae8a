#pragma once
// The text kiln's build progress shows, cli's alone like the drawing (cli/build_progress: redrawn in
// place on a terminal, plain lines in a log): Ninja's status as a bar and counts, times, an ETA, and
// lines cut to a terminal's width without splitting a character.
#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "drive/ninja_progress.hpp"

namespace kiln::cli {

// "[=====>     ] 12/340  1m05s  1m20s left  Building CUDA object ...", cut to fit a terminal
// `width` columns wide (it leaves the last column free; 0: no limit, for logs); the bar is dropped
// on narrow terminals. `elapsed` is the build step's time so far, shown when given, so that a line
// redrawn while a long step runs never stands still.
std::string progress_line(const drive::NinjaStatus& s, std::optional<std::chrono::seconds> eta, size_t width,
                          std::optional<std::chrono::seconds> elapsed = std::nullopt);

// "1m20s left"; "finishing" once nothing is left to estimate (a "0s left" that stays for seconds
// says the estimate is wrong); "" without an estimate.
std::string eta_text(std::optional<std::chrono::seconds> eta);

// What a step description names. A rule with no description (cpp_extension's build.ninja) makes Ninja
// show the whole command, hundreds of characters: that becomes "compiling OUTPUT" ("linking OUTPUT"
// without -c), from its -o; any other description is kept. The log keeps the command.
std::string step_text(std::string_view description);

// `text` cut to at most `columns` characters, never inside a UTF-8 sequence.
std::string fit_columns(std::string_view text, size_t columns);
// A step description cut to `columns` keeping its end, the output's file name, which says what is
// being built: "Building CUDA object ...dir/kernels/softmax.cu.o".
std::string fit_keeping_end(std::string_view text, size_t columns);

}  // namespace kiln::cli
