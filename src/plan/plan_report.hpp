#pragma once
// A plan as text (with the reason for each choice) and as JSON (the stable schema in docs/cli/plan.md).
#include <nlohmann/json.hpp>

#include <string>

#include "plan/plan.hpp"

namespace kiln::plan {

nlohmann::ordered_json plan_to_json(const Plan& p);
std::string plan_to_text(const Plan& p);
// The knobs block of the text plan: what kiln sets, keeps off or leaves, and what it cannot classify.
std::string knobs_to_text(const read::KnobPlan& kp);

}  // namespace kiln::plan
