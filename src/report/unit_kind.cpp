#include "report/unit_kind.hpp"

#include "core/name_table.hpp"

namespace kiln::report {
namespace {

constexpr core::NameTable<UnitKind, 4> kUnitKindNames{
    {{{UnitKind::cuda, "cuda"}, {UnitKind::cxx, "c++"}, {UnitKind::link, "link"}, {UnitKind::other, "other"}}}};

constexpr core::NameTable<Bound, 3> kBoundNames{
    {{{Bound::cpu, "cpu"}, {Bound::critical_path, "critical path"}, {Bound::one_unit, "one unit"}}}};

}  // namespace

std::string_view to_string(UnitKind k) { return kUnitKindNames.name(k, "other"); }
std::optional<UnitKind> unit_kind_from(std::string_view s) { return kUnitKindNames.find(s); }

std::string_view to_string(Bound b) { return kBoundNames.name(b, "cpu"); }
std::optional<Bound> bound_from(std::string_view s) { return kBoundNames.find(s); }

}  // namespace kiln::report
