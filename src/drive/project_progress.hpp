#pragma once
// One progress line for a whole project whose extensions build at once (data/parallel_extensions.py):
// each extension's Ninja tags its status lines "KILN-EXT <name> [done/total] ...", the helper names
// the extensions ("KILN-EXTENSIONS a b c"), the units each Ninja is about to run ("KILN-EXT-UNITS a
// 12": Ninja without a terminal prints its first status only when a unit ends) and each extension
// that finished ("KILN-EXTENSION-DONE a").
// The project's status is the units done of all units known so far, across extensions, described
// by the extension that just moved. A lone Ninja's plain status lines pass through unchanged.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "drive/ninja_progress.hpp"

namespace kiln::drive {

class ProjectProgress {
public:
  struct Fed {
    std::optional<NinjaStatus> status;  // the project's status after this line, when it was one
    bool consumed = false;              // kiln's own marker: not for the terminal (the log has it)
  };
  Fed feed(std::string_view line);

  int extensions() const { return static_cast<int>(order_.size()); }
  int extensions_done() const;

private:
  struct Extension {
    int done = 0, total = 0;
    bool finished = false;
    bool reported = false;  // its Ninja printed a status: its total is Ninja's
  };
  Extension& extension(std::string_view name);
  NinjaStatus total(std::string_view name, std::string_view description) const;
  std::map<std::string, Extension, std::less<>> exts_;
  std::vector<std::string> order_;
};

}  // namespace kiln::drive
