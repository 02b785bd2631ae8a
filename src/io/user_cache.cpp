#include "io/user_cache.hpp"

namespace kiln::io {

std::string kiln_user_cache(const Environment& env) {
  if (auto x = env.get("XDG_CACHE_HOME"); x && !x->empty() && (*x)[0] == '/') return *x + "/kiln";
  if (auto h = env.get("HOME"); h && !h->empty() && (*h)[0] == '/') return *h + "/.cache/kiln";
  return "";
}

}  // namespace kiln::io
