#pragma once
// `kiln build`'s result as JSON (docs/cli/build.md) and as text: the outcome of its steps and the
// verdict on them (drive/build_verdict), a build's summary or its failure with the diagnosis.
#include <optional>

#include <nlohmann/json.hpp>

#include "drive/build_verdict.hpp"
#include "drive/compile_span.hpp"
#include "io/seams.hpp"

namespace kiln::cli {

// {"plan": ..., "outcome": ...}: the body of kiln.build's JSON.
nlohmann::ordered_json build_json(const plan::Plan& p, const drive::BuildOutcome& o, const drive::BuildVerdict& v,
                                  const std::optional<drive::CompileSpan>& span);

// The build's result in words: the summary on out, or the failure and its diagnosis on err. The
// exit code: kOk when the verdict is ok, kFindings otherwise.
int print_build_text(io::Seams& s, const plan::Plan& p, const drive::BuildOutcome& o, const drive::BuildVerdict& v,
                     const std::optional<drive::CompileSpan>& span);

}  // namespace kiln::cli
