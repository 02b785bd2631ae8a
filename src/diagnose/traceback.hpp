#pragma once
// A Python traceback in a build log (setup.py, a PEP 517 backend or pip raising): read frame by
// frame after its "Traceback (most recent call last):" header, so a diagnosis names the exception
// and the project's own line that raised it, not pip's summary. Lines keep the indentation of the
// header (pip indents a subprocess's output by six spaces), so the exception is the first line back
// at the header's indentation.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::diagnose {

struct TracebackFrame {
  std::string file;      // as printed: /tmp/pip-req-build-x/op_builder/builder.py
  int line = 0;          // the line in that file
  std::string function;  // compute_capability_args, <module>
  std::string code;      // the source line Python printed under the frame, trimmed ("" when none)
  uint64_t log_line = 0;
};

struct Traceback {
  uint64_t header_line = 0;
  std::vector<TracebackFrame> frames;  // outermost first, as Python prints them
  std::string exception;               // "ValueError: invalid literal for int() with base 10: '0a'"
  uint64_t exception_line = 0;
};

class TracebackReader {
public:
  // `header` is the line holding "Traceback (most recent call last):".
  TracebackReader(std::string_view header, uint64_t number);
  // The next log line; returns false once the traceback is over (complete() says whether its
  // exception line was read) and it wants no more lines.
  bool feed(std::string_view line, uint64_t number);
  bool complete() const { return state_ == State::done; }
  const Traceback& traceback() const { return tb_; }

private:
  enum class State { frames, done, abandoned };
  State state_ = State::frames;
  size_t indent_ = 0;
  int lines_ = 0;
  Traceback tb_;
};

// Frames in Python's own files (the standard library, site-packages, pip, setuptools) are not the
// project's: the innermost frame that is none of those, or the innermost frame when all are.
bool is_library_frame(std::string_view file);
const TracebackFrame* project_frame(const Traceback& tb);

}  // namespace kiln::diagnose
