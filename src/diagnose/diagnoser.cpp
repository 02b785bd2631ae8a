#include "diagnose/diagnoser.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <numeric>

#include "core/text.hpp"

namespace kiln::diagnose {

namespace {

// Regular expressions see at most this much of a line: std::regex recurses per character and
// a multi-megabyte line (a minified command, a base64 blob) would exhaust the stack.
constexpr size_t kMaxRegexLine = 4096;

std::vector<std::string> unique_keywords(const SignatureSet& sigs) {
  std::vector<std::string> kws;
  for (const auto& s : sigs.all())
    for (const auto& k : s.keywords)
      if (std::find(kws.begin(), kws.end(), k) == kws.end()) kws.push_back(k);
  return kws;
}

// Removes ANSI escape sequences (colored gcc/clang/ninja output: ESC [ ... letter).
std::string strip_ansi(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\x1b' && i + 1 < s.size() && s[i + 1] == '[') {
      i += 2;
      while (i < s.size() && !((s[i] >= '@' && s[i] <= '~') && s[i] != '[')) ++i;
      continue;
    }
    out += s[i];
  }
  return out;
}

// Line `n` (1-based) of `text`, trimmed and at most kMaxRegexLine long; "" when there is none.
std::string line_of(std::string_view text, int n) {
  size_t pos = 0;
  for (int i = 1; i < n && pos != std::string_view::npos; ++i) {
    pos = text.find('\n', pos);
    if (pos != std::string_view::npos) ++pos;
  }
  if (n < 1 || pos == std::string_view::npos || pos >= text.size()) return {};
  const size_t end = text.find('\n', pos);
  return std::string(
      core::trim_view(text.substr(pos, end == std::string_view::npos ? end : end - pos)).substr(0, kMaxRegexLine));
}

}  // namespace

Diagnoser::Diagnoser(Options options, const SignatureSet& signatures)
    : opts_(std::move(options)),
      sigs_(signatures),
      prefilter_(unique_keywords(signatures)),
      submodules_(opts_.plan ? opts_.plan->empty_submodules : std::vector<std::string>{}) {
  const auto& all = sigs_.all();
  std::vector<uint32_t> order(all.size());
  std::iota(order.begin(), order.end(), 0);
  // Higher priority first; the table's order breaks ties, so more specific entries listed first win.
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return all[a].priority > all[b].priority; });
  rank_.assign(all.size(), 0);
  for (uint32_t r = 0; r < order.size(); ++r) rank_[order[r]] = r;
  const auto& kws = prefilter_.keywords();
  keyword_sigs_.assign(kws.size(), {});
  for (uint32_t i = 0; i < all.size(); ++i)
    for (const auto& k : all[i].keywords) {
      auto idx = static_cast<size_t>(std::find(kws.begin(), kws.end(), k) - kws.begin());
      keyword_sigs_[idx].push_back(i);
    }
  finding_of_.assign(all.size(), -1);
  for (uint32_t i : order)
    if (all[i].traceback) traceback_sigs_.push_back(i);
}

void Diagnoser::feed(std::string_view line) {
  scratch_.assign(line.data(), line.size());
  scratch_ += '\n';
  feed_block(scratch_);
}

void Diagnoser::take_following(std::vector<Pending>& pending, std::string_view block, size_t from,
                               uint64_t first_number) {
  // Satisfies follow/context requests from the lines starting at block[from].
  size_t pos = from;
  uint64_t number = first_number;
  while (!pending.empty() && pos < block.size()) {
    size_t end = block.find('\n', pos);
    if (end == std::string_view::npos) end = block.size();
    std::string_view line = core::trim_line_end(block.substr(pos, end - pos));
    for (auto& p : pending) {
      if (p.remaining <= 0) continue;
      Finding& f = findings_[p.finding];
      auto& dest = p.evidence ? f.evidence : f.context;
      dest.push_back({number, std::string(line.substr(0, kMaxRegexLine))});
      --p.remaining;
    }
    pending.erase(std::remove_if(pending.begin(), pending.end(), [](const Pending& p) { return p.remaining <= 0; }),
                  pending.end());
    pos = end + 1;
    ++number;
  }
}

void Diagnoser::feed_block(std::string_view block) {
  bytes_ += block.size();
  const uint64_t base = lines_;  // lines before this block
  if (!pending_.empty()) take_following(pending_, block, 0, base + 1);
  if (traceback_) feed_traceback(block, 0, base + 1);
  if (!submodules_.empty()) submodules_.scan(block);

  hits_.clear();
  prefilter_.scan(block, hits_);
  std::sort(hits_.begin(), hits_.end(), [](const auto& a, const auto& b) { return a.pos < b.pos; });

  size_t counted_pos = 0;
  uint64_t counted_lines = 0;
  size_t cur_start = std::string_view::npos, cur_end = 0, cur_hit = 0;
  std::vector<uint32_t> candidates;
  auto flush = [&] {
    if (cur_start == std::string_view::npos) return;
    counted_lines += static_cast<uint64_t>(std::count(block.begin() + counted_pos, block.begin() + cur_start, '\n'));
    counted_pos = cur_start;
    std::sort(candidates.begin(), candidates.end(), [&](uint32_t a, uint32_t b) { return rank_[a] < rank_[b]; });
    candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
    process_line(block, cur_start, cur_end, cur_hit - cur_start, base + counted_lines + 1, candidates);
    candidates.clear();
  };
  for (const auto& h : hits_) {
    if (cur_start != std::string_view::npos && h.pos >= cur_start && h.pos < cur_end) {
      candidates.insert(candidates.end(), keyword_sigs_[h.index].begin(), keyword_sigs_[h.index].end());
      continue;
    }
    flush();
    const void* nl = h.pos ? memrchr(block.data(), '\n', h.pos) : nullptr;
    cur_start = nl ? static_cast<size_t>(static_cast<const char*>(nl) - block.data()) + 1 : 0;
    size_t e = block.find('\n', h.pos);
    cur_end = e == std::string_view::npos ? block.size() : e;
    cur_hit = h.pos;
    candidates.assign(keyword_sigs_[h.index].begin(), keyword_sigs_[h.index].end());
  }
  flush();

  const uint64_t block_lines = static_cast<uint64_t>(std::count(block.begin(), block.end(), '\n'));
  lines_ = base + block_lines;

  // Remember the last few lines for the context before a match at the start of the next block.
  if (opts_.context > 0) {
    std::vector<std::string> last;
    size_t end = block.size();
    if (end && block[end - 1] == '\n') --end;
    while (last.size() < static_cast<size_t>(opts_.context) && end != std::string_view::npos) {
      const void* nl = end ? memrchr(block.data(), '\n', end) : nullptr;
      size_t start = nl ? static_cast<size_t>(static_cast<const char*>(nl) - block.data()) + 1 : 0;
      last.emplace_back(core::trim_line_end(block.substr(start, end - start)).substr(0, kMaxRegexLine));
      if (!nl) break;
      end = start - 1;
    }
    if (block_lines >= static_cast<uint64_t>(opts_.context)) tail_.clear();
    for (auto it = last.rbegin(); it != last.rend(); ++it) tail_.push_back(std::move(*it));
    while (tail_.size() > static_cast<size_t>(opts_.context)) tail_.pop_front();
  }
}

void Diagnoser::process_line(std::string_view block, size_t start, size_t end, size_t hit, uint64_t number,
                             const std::vector<uint32_t>& candidates) {
  std::string_view line = core::trim_line_end(block.substr(start, end - start));
  if (line.size() > kMaxRegexLine) {
    // Keep the part around the first keyword: that is where the message is.
    size_t from = hit > kMaxRegexLine / 2 ? hit - kMaxRegexLine / 2 : 0;
    line = line.substr(from, kMaxRegexLine);
  }
  // Colored compiler output: match the text without escapes, and look for keywords again in it,
  // since escapes can sit inside a keyword (": \e[01;31merror: ").
  std::string plain;
  std::vector<uint32_t> recolored;
  const std::vector<uint32_t>* cands = &candidates;
  if (line.find('\x1b') != std::string_view::npos) {
    plain = strip_ansi(line);
    line = plain;
    std::string with_nl = plain + "\n";
    std::vector<LiteralPrefilter::Hit> hits;
    prefilter_.scan(with_nl, hits);
    for (const auto& h : hits)
      recolored.insert(recolored.end(), keyword_sigs_[h.index].begin(), keyword_sigs_[h.index].end());
    std::sort(recolored.begin(), recolored.end(), [&](uint32_t a, uint32_t b) { return rank_[a] < rank_[b]; });
    recolored.erase(std::unique(recolored.begin(), recolored.end()), recolored.end());
    cands = &recolored;
  }
  std::cmatch m;
  for (uint32_t sig : *cands) {
    if (sigs_.all()[sig].traceback) {
      // The header: read the frames that follow, then match the whole traceback.
      if (traceback_ || line.find(kTracebackHeader) == std::string_view::npos) continue;
      traceback_.emplace(line, number);
      if (end < block.size()) feed_traceback(block, end + 1, number + 1);
      return;
    }
    for (const Pattern& p : sigs_.all()[sig].patterns) {
      if (std::regex_search(line.data(), line.data() + line.size(), m, p.re)) {
        const Need need = sigs_.all()[sig].needs;
        std::optional<std::string> holder, header;
        if (need == Need::empty_submodule && !(holder = empty_submodule_of(p, m))) break;
        if (need == Need::project_header && !(header = project_header_of(p, m))) break;
        record(sig, p, m, line, number, block, start, end);
        Finding& f = findings_[static_cast<size_t>(finding_of_[sig])];
        if (holder) add_capture(f, "submodule", *holder);
        if (header) {
          add_capture(f, "project_header", *header);
          // The folder an include path needs for the spelling the source used.
          const std::string* name = f.capture("header");
          const size_t cut = name && header->size() > name->size() ? header->size() - name->size() - 1 : 0;
          add_capture(f, "include_dir", cut ? header->substr(0, cut) : std::string("."));
        }
        return;  // one signature per line: the highest-ranked that matches
      }
    }
  }
}

void Diagnoser::record(size_t sig, const Pattern& p, const std::cmatch& m, std::string_view line, uint64_t number,
                       std::string_view block, size_t start, size_t end) {
  const Signature& s = sigs_.all()[sig];
  const bool first = finding_of_[sig] < 0;
  Finding& f = finding_for(sig, number);
  const size_t fi = static_cast<size_t>(finding_of_[sig]);
  ++f.count;
  for (size_t g = 0; g < p.names.size(); ++g) {
    if (p.names[g].empty() || !m[g + 1].matched) continue;
    if (f.capture(p.names[g])) continue;
    std::string v = m[g + 1].str();
    while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.pop_back();  // ninja's "FAILED: x "
    f.captures.emplace_back(p.names[g], std::move(v));
  }
  bool new_line =
      std::none_of(f.evidence.begin(), f.evidence.end(), [&](const LogLine& l) { return l.number == number; });
  if (new_line && f.evidence.size() < opts_.max_evidence) f.evidence.push_back({number, std::string(line)});
  if (!first) return;

  // Context before the first match: from this block, then from earlier blocks' tail.
  if (opts_.context > 0) {
    std::vector<std::string> before;
    size_t pos = start;
    while (before.size() < static_cast<size_t>(opts_.context) && pos > 0) {
      size_t e = pos - 1;  // the '\n' ending the previous line
      const void* nl = e ? memrchr(block.data(), '\n', e) : nullptr;
      size_t b = nl ? static_cast<size_t>(static_cast<const char*>(nl) - block.data()) + 1 : 0;
      before.emplace_back(core::trim_line_end(block.substr(b, e - b)).substr(0, kMaxRegexLine));
      pos = b;
    }
    for (auto it = tail_.rbegin(); it != tail_.rend() && before.size() < static_cast<size_t>(opts_.context); ++it)
      if (pos == 0) before.push_back(*it);
    uint64_t n = number;
    for (const auto& b : before) {
      if (n <= 1) break;
      f.context.insert(f.context.begin(), {--n, b});
    }
    f.context.push_back({number, std::string(line)});
  }
  // The lines after this match: taken from this block now; what the block lacks comes from the
  // start of the next one.
  std::vector<Pending> after;
  if (opts_.context > 0) after.push_back({fi, false, opts_.context});
  if (s.follow > 0) after.push_back({fi, true, s.follow});
  if (end < block.size()) take_following(after, block, end + 1, number + 1);
  pending_.insert(pending_.end(), after.begin(), after.end());
}

void Diagnoser::feed_traceback(std::string_view block, size_t from, uint64_t first_number) {
  size_t pos = from;
  uint64_t number = first_number;
  while (traceback_ && pos < block.size()) {
    size_t end = block.find('\n', pos);
    if (end == std::string_view::npos) end = block.size();
    std::string_view line = core::trim_line_end(block.substr(pos, end - pos)).substr(0, kMaxRegexLine);
    std::string plain;
    if (line.find('\x1b') != std::string_view::npos) line = plain = strip_ansi(line);
    if (line.find(kTracebackHeader) != std::string_view::npos) {
      traceback_.reset();  // a new traceback before this one's exception: the hit loop opens it
      return;
    }
    if (!traceback_->feed(line, number)) {
      if (traceback_->complete()) match_traceback(traceback_->traceback());
      traceback_.reset();
    }
    pos = end + 1;
    ++number;
  }
}

std::optional<std::string> Diagnoser::empty_submodule_of(const Pattern& p, const std::cmatch& m) const {
  if (submodules_.empty()) return std::nullopt;
  for (size_t g = 0; g < p.names.size(); ++g)
    if (p.names[g] == "header" && m[g + 1].matched) return submodules_.holder_of(m[g + 1].str());
  return std::nullopt;
}

std::optional<std::string> Diagnoser::project_header_of(const Pattern& p, const std::cmatch& m) const {
  if (!opts_.plan || opts_.plan->project_headers.empty()) return std::nullopt;
  for (size_t g = 0; g < p.names.size(); ++g) {
    if (p.names[g] != "header" || !m[g + 1].matched) continue;
    const std::string header = m[g + 1].str();
    for (const auto& h : opts_.plan->project_headers)
      if (h == header ||
          (h.size() > header.size() && core::ends_with(h, header) && h[h.size() - header.size() - 1] == '/'))
        return h;
  }
  return std::nullopt;
}

void Diagnoser::add_capture(Finding& f, const std::string& name, const std::string& value) {
  if (!f.capture(name)) f.captures.emplace_back(name, value);
}

Finding& Diagnoser::finding_for(size_t sig, uint64_t number) {
  if (finding_of_[sig] < 0) {
    finding_of_[sig] = static_cast<int>(findings_.size());
    Finding f;
    f.signature = &sigs_.all()[sig];
    f.first_line = number;
    findings_.push_back(std::move(f));
  }
  return findings_[static_cast<size_t>(finding_of_[sig])];
}

void Diagnoser::match_traceback(const Traceback& tb) {
  const std::string& exc = tb.exception;
  std::cmatch m;
  for (uint32_t sig : traceback_sigs_) {
    const Signature& s = sigs_.all()[sig];
    std::vector<std::pair<std::string, std::string>> caps;
    auto take = [&](const Pattern& p) {
      for (size_t g = 0; g < p.names.size(); ++g)
        if (!p.names[g].empty() && m[g + 1].matched) caps.emplace_back(p.names[g], m[g + 1].str());
    };
    const Pattern* hit = nullptr;
    for (const Pattern& p : s.patterns)
      if (std::regex_search(exc.data(), exc.data() + exc.size(), m, p.re)) {
        hit = &p;
        take(p);
        break;
      }
    if (!hit) continue;
    bool frames_ok = s.frames.empty();
    for (const auto& f : tb.frames) {
      for (const Pattern& p : s.frames) {
        for (const std::string* t : {&f.function, &f.code})
          if (!frames_ok && std::regex_search(t->data(), t->data() + t->size(), m, p.re)) {
            frames_ok = true;
            take(p);
          }
      }
    }
    if (!frames_ok) continue;
    const TracebackFrame* own = project_frame(tb);
    const TracebackFrame& last = tb.frames.back();
    caps.emplace_back("exception", exc);
    caps.emplace_back("frame", own->file + ":" + std::to_string(own->line));
    caps.emplace_back("function", own->function);
    for (auto& [k, v] : frame_code_captures(*own)) caps.emplace_back(k, std::move(v));
    caps.emplace_back("raised_at", last.file + ":" + std::to_string(last.line));

    Finding& f = finding_for(sig, tb.header_line);
    ++f.count;
    for (auto& [k, v] : caps)
      if (!f.capture(k)) f.captures.emplace_back(k, std::move(v));
    auto add = [&](uint64_t n, std::string text) {
      bool have = std::any_of(f.evidence.begin(), f.evidence.end(), [&](const LogLine& l) { return l.number == n; });
      if (!have && f.evidence.size() < opts_.max_evidence) f.evidence.push_back({n, std::move(text)});
    };
    for (const TracebackFrame* fr : {own, &last}) {  // the frames as the log has them
      const std::string file = fr->setup_py_text ? std::string("<string>") : fr->file;
      add(fr->log_line, "File \"" + file + "\", line " + std::to_string(fr->line) + ", in " + fr->function);
      if (!fr->code.empty()) add(fr->log_line + 1, fr->code);
    }
    add(tb.exception_line, exc);
    return;  // one signature per traceback: the highest-ranked that matches
  }
}

std::vector<std::pair<std::string, std::string>> Diagnoser::frame_code_captures(const TracebackFrame& f) const {
  std::string code = f.code;
  if (code.empty() && f.setup_py_text && opts_.plan) code = line_of(opts_.plan->setup_py, f.line);
  std::string in = "in " + f.function + (code.empty() ? std::string() : ": `" + code + "`");
  if (f.setup_py_text)
    in += code.empty()
              ? "; setuptools ran setup.py's text with exec, so Python printed it as <string>, without the line"
              : "; the log names it <string>, as setuptools ran setup.py's text with exec";
  return {{"code", code},
          {"frame_code", std::move(in)},
          {"its_line", code.empty() ? "the line there" : "its line `" + code + "`"}};
}

Diagnosis Diagnoser::finish() {
  Diagnosis d;
  d.lines = lines_;
  d.bytes = bytes_;
  for (auto& f : findings_) {
    std::sort(f.evidence.begin(), f.evidence.end(),
              [](const LogLine& a, const LogLine& b) { return a.number < b.number; });
    const Signature& s = *f.signature;
    f.cause = fill(s.cause, f.captures, opts_.plan);
    bool use_plan = opts_.plan && !s.fix_plan.empty() && plan_can_fill(s.fix_plan, *opts_.plan);
    f.fix = fill(use_plan ? s.fix_plan : s.fix, f.captures, opts_.plan);
  }
  d.findings = std::move(findings_);
  std::stable_sort(d.findings.begin(), d.findings.end(), [](const Finding& a, const Finding& b) {
    if (a.is_error() != b.is_error()) return a.is_error();
    if (a.signature->priority != b.signature->priority) return a.signature->priority > b.signature->priority;
    return a.first_line < b.first_line;
  });
  findings_.clear();
  return d;
}

Diagnosis diagnose_stream(std::istream& in, Options options) {
  Diagnoser dx(std::move(options));
  constexpr size_t kBlock = 1 << 20;
  constexpr size_t kMaxLine = 16 << 20;  // a "line" longer than this is cut, not buffered forever
  std::string buf(kBlock, '\0');
  size_t have = 0;
  while (in) {
    if (buf.size() - have < kBlock / 2) buf.resize(buf.size() * 2);
    in.read(buf.data() + have, static_cast<std::streamsize>(buf.size() - have));
    size_t got = static_cast<size_t>(in.gcount());
    if (got == 0) break;
    have += got;
    const void* nl = memrchr(buf.data(), '\n', have);
    if (!nl) {
      if (have >= kMaxLine) {
        buf[have - 1] = '\n';
        dx.feed_block(std::string_view(buf.data(), have));
        have = 0;
      }
      continue;
    }
    size_t cut = static_cast<size_t>(static_cast<const char*>(nl) - buf.data()) + 1;
    dx.feed_block(std::string_view(buf.data(), cut));
    std::memmove(buf.data(), buf.data() + cut, have - cut);
    have -= cut;
  }
  if (have) dx.feed(std::string_view(buf.data(), have));  // a last line without its newline
  return dx.finish();
}

Diagnosis diagnose_text(std::string_view text, Options options) {
  Diagnoser dx(std::move(options));
  size_t pos = 0;
  // Whole lines as one block, then the unterminated rest.
  size_t last_nl = text.rfind('\n');
  if (last_nl != std::string_view::npos) {
    dx.feed_block(text.substr(0, last_nl + 1));
    pos = last_nl + 1;
  }
  if (pos < text.size()) dx.feed(text.substr(pos));
  return dx.finish();
}

}  // namespace kiln::diagnose
