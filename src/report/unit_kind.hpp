#pragma once
// The closed sets a build profile branches on, each an enum with one spelling per value (the
// report's text, JSON and HTML): what a unit of the build is, and what bounds the build's time.
#include <optional>
#include <string_view>

namespace kiln::report {

// From the Ninja rule when the graph names it, else from the output's name (report/profile).
enum class UnitKind { cuda, cxx, link, other };
std::string_view to_string(UnitKind k);  // "cuda", "c++", "link", "other"
std::optional<UnitKind> unit_kind_from(std::string_view s);
inline constexpr UnitKind kUnitKinds[] = {UnitKind::cuda, UnitKind::cxx, UnitKind::link, UnitKind::other};

// The larger of the two lower bounds on the build's time, or one unit's compile when the critical
// path is that alone.
enum class Bound { cpu, critical_path, one_unit };
std::string_view to_string(Bound b);  // "cpu", "critical path", "one unit"
std::optional<Bound> bound_from(std::string_view s);
inline constexpr Bound kBounds[] = {Bound::cpu, Bound::critical_path, Bound::one_unit};

}  // namespace kiln::report
