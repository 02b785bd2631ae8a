#include "diagnose/traceback.hpp"

#include <algorithm>
#include <cstdlib>

#include "core/text.hpp"

namespace kiln::diagnose {
namespace {

// A traceback longer than this is not one (or is not worth reading further): the reader gives up.
constexpr int kMaxLines = 4000;

size_t indent_of(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  return i;
}

// `File "path", line N, in function` (the indentation already removed).
bool parse_frame(std::string_view s, TracebackFrame& f) {
  if (s.rfind("File \"", 0) != 0) return false;
  const size_t close = s.find("\", line ", 6);
  if (close == std::string_view::npos) return false;
  f.file = std::string(s.substr(6, close - 6));
  f.line = std::atoi(std::string(s.substr(close + 8, 12)).c_str());
  const size_t in = s.find(", in ", close);
  f.function = in == std::string_view::npos ? std::string() : std::string(s.substr(in + 5));
  return true;
}

// Python 3.11's markers under a code line (   ~~~^^^^^).
bool is_marker(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c == '^' || c == '~' || c == ' '; });
}

// setuptools' build_meta.py running setup.py's text (_BuildMetaBackend.run_setup; the legacy
// backend's run_setup calls it).
bool runs_setup_py(const TracebackFrame& f) {
  return f.function == "run_setup" &&
         (f.file == "setuptools/build_meta.py" || core::ends_with(f.file, "/setuptools/build_meta.py"));
}

// Names that Python's own generated code (dataclasses, namedtuple) has in "<string>".
bool generated_name(std::string_view function) {
  return function == "<lambda>" ||
         (function.size() > 4 && function.substr(0, 2) == "__" && function.substr(function.size() - 2) == "__");
}

}  // namespace

TracebackReader::TracebackReader(std::string_view header, uint64_t number) {
  indent_ = indent_of(header);
  tb_.header_line = number;
}

bool TracebackReader::feed(std::string_view line, uint64_t number) {
  if (state_ != State::frames) return false;
  if (++lines_ > kMaxLines) {
    state_ = State::abandoned;
    return false;
  }
  const std::string_view text = core::trim_view(line);
  if (text.empty()) return true;  // a blank line a build tool put between frames
  const size_t indent = indent_of(line);
  if (indent < indent_) {  // the log went on without an exception line: a cut traceback
    state_ = State::abandoned;
    return false;
  }
  if (indent == indent_) {
    // Back at the header's indentation: the exception (or a frame printed without its indent).
    TracebackFrame f;
    if (parse_frame(text, f)) {
      f.log_line = number;
      tb_.frames.push_back(std::move(f));
      return true;
    }
    tb_.exception = std::string(text);
    tb_.exception_line = number;
    state_ = tb_.frames.empty() ? State::abandoned : State::done;
    if (state_ == State::done) name_setup_py_frames(tb_);
    return false;
  }
  TracebackFrame f;
  if (parse_frame(text, f)) {
    f.log_line = number;
    tb_.frames.push_back(std::move(f));
  } else if (!tb_.frames.empty() && tb_.frames.back().code.empty() && !is_marker(text) && text.front() != '[') {
    tb_.frames.back().code = std::string(text);  // "[Previous line repeated 996 more times]" is not code
  }
  return true;
}

void name_setup_py_frames(Traceback& tb) {
  constexpr std::string_view kText = "<string>";
  bool module_seen = false;
  for (size_t i = 1; i < tb.frames.size(); ++i) {
    TracebackFrame& f = tb.frames[i];
    const TracebackFrame& caller = tb.frames[i - 1];
    if (f.file != kText) continue;
    bool ours = false;
    if (!module_seen) {
      ours = module_seen = f.function == "<module>" && runs_setup_py(caller);
    } else if (f.function == "<module>") {
      return;  // another file's text that setup.py ran: neither it nor what it calls is setup.py
    } else {
      ours = caller.setup_py_text ||
             (caller.file != kText && is_library_frame(caller.file) && !generated_name(f.function));
    }
    if (ours) {
      f.file = "setup.py";
      f.setup_py_text = true;
    }
  }
}

bool is_library_frame(std::string_view file) {
  if (file.empty() || file.front() == '<') return true;  // <string>, <frozen runpy>, <pip-setuptools-caller>
  // "/.kiln/": kiln's own helpers in the build folder (wheel_build.py, kiln_parallel_extensions.py),
  // which call the project's code but are not where its failure is.
  for (std::string_view part : {"/site-packages/", "/dist-packages/", "/pip/_internal/", "/pip/_vendor/",
                                "/setuptools/", "/distutils/", "/pyproject_hooks/", "/.kiln/"})
    if (file.find(part) != std::string_view::npos) return true;
  // The standard library: .../lib/python3.12/x.py
  const size_t lib = file.find("/lib/python");
  if (lib != std::string_view::npos && lib + 11 < file.size() && file[lib + 11] >= '0' && file[lib + 11] <= '9')
    return true;
  return false;
}

const TracebackFrame* project_frame(const Traceback& tb) {
  for (auto it = tb.frames.rbegin(); it != tb.frames.rend(); ++it)
    if (!is_library_frame(it->file)) return &*it;
  return tb.frames.empty() ? nullptr : &tb.frames.back();
}

}  // namespace kiln::diagnose
