#pragma once
// Where a torch extension build's time went beside its compiles: from kiln exec's records of this
// build (kiln-exec.jsonl keeps earlier builds' too), the seconds before the first compile began
// (the backend's start: Python, setup.py, `import torch`), the compiles' span (the first start to
// the last end, links included) and the seconds after (the wheel, pip install). On the GPU host a
// mamba build spent 5-7 s before its first compile and about 3.5 s after its last (issue 19).
#include <optional>
#include <string>

namespace kiln::drive {

struct CompileSpan {
  double before_s = 0, span_s = 0, after_s = 0;
  int units = 0;  // the records of this build
};

// The records that started within [from_ms, to_ms] (unix epoch ms: the build step's start and
// end); nullopt when there are none.
std::optional<CompileSpan> compile_span(const std::string& exec_log, long long from_ms, long long to_ms);

}  // namespace kiln::drive
