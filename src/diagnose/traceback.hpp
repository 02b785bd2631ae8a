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
  // A frame of the project's setup.py that setuptools' build_meta ran from its text (see
  // name_setup_py_frames): printed as "<string>" with no source line, `file` is "setup.py".
  bool setup_py_text = false;
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

// setuptools' build_meta (63.2 and later: pypa/setuptools 199deb1d4) runs setup.py as
// exec(code, locals()) of its text, so Python prints setup.py's frames as File "<string>" without a
// source line (before 63.2 it compiled the text under the name "setup.py", printed with its lines).
// Named "setup.py" here, setup_py_text set: the "<string>" module that build_meta.py's run_setup
// calls, the "<string>" frames it calls in turn (setup.py's functions), and "<string>" frames that
// setuptools or another library calls back (a command class of setup.py's), except those whose name
// Python's generated code has (a dataclass's __init__, a namedtuple's <lambda>). A second "<string>"
// module (setup.py exec'ing another file's text, a version.py) and what follows are left as printed.
// The reader calls it on a complete traceback.
void name_setup_py_frames(Traceback& tb);

// Frames in Python's own files (the standard library, site-packages, pip, setuptools) are not the
// project's: the innermost frame that is none of those, or the innermost frame when all are.
bool is_library_frame(std::string_view file);
const TracebackFrame* project_frame(const Traceback& tb);

}  // namespace kiln::diagnose
