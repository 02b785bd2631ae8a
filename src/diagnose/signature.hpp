#pragma once
// A failure signature from data/signatures.toml: how a cause shows up in a log and what to do.
#include <tl/expected.hpp>

#include <regex>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::diagnose {

enum class Severity { error, warning };

// The line that opens a Python traceback: the keyword every traceback signature lists.
inline constexpr std::string_view kTracebackHeader = "Traceback (most recent call last)";

// One ECMAScript pattern with (?<name>...) groups translated to numbered ones (std::regex has no
// named groups); names[i] names group i+1, empty for an unnamed group.
struct Pattern {
  std::string source;
  std::regex re;
  std::vector<std::string> names;
};

// What a signature needs besides its pattern: `needs = "empty-submodule"` matches only where the
// header it captures should be in one of the plan's empty git submodules (diagnose/empty_submodule);
// `needs = "project-header"` only where the project itself holds that header (so the include path,
// not a missing package, is the cause).
enum class Need { nothing, empty_submodule, project_header };

struct Signature {
  std::string id;
  std::string category;
  Severity severity = Severity::error;
  int priority = 0;
  std::string title;
  std::vector<std::string> keywords;
  std::vector<Pattern> patterns;
  int follow = 0;  // lines after a match kept as evidence
  // A Python traceback (traceback.hpp): `patterns` match its exception line, once the frames after
  // the "Traceback (most recent call last)" keyword are read; `frames`, when given, must match a
  // frame's function or code line too. Captures: exception, frame (the project's file:line),
  // function, code, frame_code, its_line (diagnoser.hpp), raised_at (the innermost frame's file:line).
  bool traceback = false;
  std::vector<Pattern> frames;
  std::string cause, fix, fix_plan, docs;
  Need needs = Need::nothing;
};

// Translates (?<name>...) into plain groups and compiles; an error names what is wrong.
tl::expected<Pattern, std::string> compile_pattern(std::string_view source);

// The categories a signature may name.
const std::vector<std::string>& known_categories();

class SignatureSet {
public:
  // Parses and validates a signatures table (TOML text). `origin` names it in errors.
  static tl::expected<SignatureSet, std::string> parse(std::string_view toml_text, std::string_view origin);
  // The table embedded from data/signatures.toml, parsed once. The table is tested, so a failure
  // here is a build bug and aborts with the reason.
  static const SignatureSet& builtin();

  const std::vector<Signature>& all() const { return sigs_; }
  const Signature* find(std::string_view id) const;

private:
  std::vector<Signature> sigs_;
};

}  // namespace kiln::diagnose
