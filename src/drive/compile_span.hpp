#pragma once
// Where a torch extension build's time went beside its compiles: from kiln exec's records of this
// build (kiln-exec.jsonl keeps earlier builds' too), the seconds before the first compile began
// (the backend's start: Python, setup.py, `import torch`), the compiles' span (the first start to
// the last end, links included) and the seconds after (the wheel, pip install). On the GPU host a
// mamba build spent 5-7 s before its first compile and about 3.5 s after its last (issue 19).
// kiln build keeps it in the build folder (compile_span_path) for `kiln report --simulate`, which
// adds that head-node time to its projection; .ninja_log has none of it (issue 35).
#include <optional>
#include <string>

namespace kiln::drive {

struct CompileSpan {
  double before_s = 0, span_s = 0, after_s = 0;
  int units = 0;                     // the records of this build
  long long from_ms = 0, to_ms = 0;  // the build step's window (unix epoch ms): which records are this build's
};

// The records that started within [from_ms, to_ms] (unix epoch ms: the build step's start and
// end); nullopt when there are none.
std::optional<CompileSpan> compile_span(const std::string& exec_log, long long from_ms, long long to_ms);

// The record of the last build that compiled, in kiln's build folder: one JSON object,
// {"schema": "kiln.compile-span/1", "from_ms", "to_ms", "before_s", "span_s", "after_s", "units"}.
// A build that compiled nothing leaves the previous one's, as .ninja_log keeps the previous run.
std::string compile_span_path(const std::string& kiln_build_dir);
std::string compile_span_json(const CompileSpan& s);
// nullopt for another schema, a malformed record or one whose figures cannot be a build's.
std::optional<CompileSpan> parse_compile_span(const std::string& text);

}  // namespace kiln::drive
