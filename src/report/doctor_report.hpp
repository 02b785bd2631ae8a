#pragma once
// Renders a probe::DoctorReport: as JSON (schema "kiln.doctor/2", documented in docs/cli/doctor.md)
// and as the text report grouped by area.
#include <nlohmann/json.hpp>
#include <string>

#include "probe/doctor.hpp"

namespace kiln::report {

nlohmann::ordered_json doctor_json(const probe::DoctorReport& r);
std::string doctor_text(const probe::DoctorReport& r);

}  // namespace kiln::report
