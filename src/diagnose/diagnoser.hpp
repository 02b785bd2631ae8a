#pragma once
// The streaming matcher: reads a log once, in order, and keeps only what it found. Lines are
// screened by a literal prefilter (LiteralPrefilter) and only lines holding a signature's keyword
// are run through that signature's regular expressions, so memory stays flat and a 1 GB log costs
// about one read.
#include <deque>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "diagnose/diagnosis.hpp"
#include "diagnose/empty_submodule.hpp"
#include "diagnose/prefilter.hpp"
#include "diagnose/signature.hpp"
#include "diagnose/traceback.hpp"

namespace kiln::diagnose {

struct Options {
  int context = 2;          // lines kept before and after each finding's first match
  size_t max_evidence = 5;  // matched lines kept per finding
  std::optional<PlanContext> plan;
};

class Diagnoser {
public:
  explicit Diagnoser(Options options = {}, const SignatureSet& signatures = SignatureSet::builtin());

  // One log line, without its newline.
  void feed(std::string_view line);
  // Whole lines, each ending in '\n' (what a buffered reader hands over).
  void feed_block(std::string_view text);
  // Ranks what was found; the Diagnoser is spent afterwards.
  Diagnosis finish();

private:
  struct Pending {
    size_t finding;
    bool evidence;  // true: follow lines (evidence); false: context after the match
    int remaining;
  };
  // `hit` is the offset of the first keyword in the line.
  void process_line(std::string_view block, size_t start, size_t end, size_t hit, uint64_t number,
                    const std::vector<uint32_t>& candidates);
  void record(size_t sig, const Pattern& p, const std::cmatch& m, std::string_view line, uint64_t number,
              std::string_view block, size_t start, size_t end);
  void take_following(std::vector<Pending>& pending, std::string_view block, size_t from, uint64_t first_number);
  // Hands the lines from block[from] to the open traceback until it ends, then matches it.
  void feed_traceback(std::string_view block, size_t from, uint64_t first_number);
  void match_traceback(const Traceback& tb);
  // A frame's source line as captures: code (the line; from the plan's setup.py for a frame that
  // setuptools ran from its text), frame_code ("in FUNCTION: `CODE`", or without the line, saying why
  // where it is setup.py's) and its_line ("its line `CODE`", or "the line there").
  std::vector<std::pair<std::string, std::string>> frame_code_captures(const TracebackFrame& f) const;
  Finding& finding_for(size_t sig, uint64_t number);
  // For a signature that needs an empty submodule: the one that should hold the matched header.
  std::optional<std::string> empty_submodule_of(const Pattern& p, const std::cmatch& m) const;
  // For a signature that needs a project header: the project's file the matched header names.
  std::optional<std::string> project_header_of(const Pattern& p, const std::cmatch& m) const;
  static void add_capture(Finding& f, const std::string& name, const std::string& value);

  Options opts_;
  const SignatureSet& sigs_;
  LiteralPrefilter prefilter_;
  std::vector<std::vector<uint32_t>> keyword_sigs_;  // keyword index -> signatures, by rank
  std::vector<uint32_t> rank_;                       // signature index -> rank (0 = highest priority)
  std::vector<int> finding_of_;                      // signature index -> finding index or -1
  std::vector<Finding> findings_;
  std::vector<Pending> pending_;
  std::optional<TracebackReader> traceback_;  // open while a traceback's frames are being read
  std::vector<uint32_t> traceback_sigs_;      // traceback signatures, by rank
  std::deque<std::string> tail_;              // the last `context` lines of earlier blocks
  uint64_t lines_ = 0, bytes_ = 0;
  std::vector<LiteralPrefilter::Hit> hits_;
  std::string scratch_;
  SubmoduleIncludes submodules_;  // the plan's empty submodules, and which the log's -I flags named
};

// Reads `in` in 1 MiB blocks and diagnoses it.
Diagnosis diagnose_stream(std::istream& in, Options options = {});
Diagnosis diagnose_text(std::string_view text, Options options = {});

}  // namespace kiln::diagnose
