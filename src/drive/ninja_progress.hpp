#pragma once
// Reads Ninja's status lines ("[12/340] Building CUDA object ...") into progress and an ETA; the
// text a terminal shows of them is cli/progress_text's.
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

}  // namespace kiln::drive
