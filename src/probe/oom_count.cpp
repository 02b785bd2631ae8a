#include "probe/oom_count.hpp"

#include "core/text.hpp"

namespace kiln::probe {

std::optional<std::uint64_t> parse_oom_kill(std::string_view vmstat) {
  size_t at = 0;
  while (at < vmstat.size()) {
    size_t end = vmstat.find('\n', at);
    if (end == std::string_view::npos) end = vmstat.size();
    const std::string_view line = vmstat.substr(at, end - at);
    at = end + 1;
    constexpr std::string_view key = "oom_kill ";
    if (line.substr(0, key.size()) != key) continue;
    const auto n = core::parse_int(line.substr(key.size()));
    if (!n || *n < 0) return std::nullopt;
    return static_cast<std::uint64_t>(*n);
  }
  return std::nullopt;
}

std::optional<std::uint64_t> oom_kill_count(const io::Filesystem& fs) {
  const auto text = fs.read("/proc/vmstat");
  return text ? parse_oom_kill(*text) : std::nullopt;
}

}  // namespace kiln::probe
