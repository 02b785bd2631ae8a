#pragma once
// kiln's folder in the user's cache: $XDG_CACHE_HOME/kiln, else $HOME/.cache/kiln; "" when neither
// names an absolute folder. What outlives one checkout lives here (kept wheels, unit history).
#include <string>

#include "io/environment.hpp"

namespace kiln::io {

std::string kiln_user_cache(const Environment& env);

}  // namespace kiln::io
