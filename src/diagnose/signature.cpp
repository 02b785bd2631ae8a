#include "diagnose/signature.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "core/data.hpp"

namespace kiln::diagnose {

tl::expected<Pattern, std::string> compile_pattern(std::string_view src) {
  Pattern p;
  p.source = std::string(src);
  std::string out;
  out.reserve(src.size());
  bool in_class = false;
  for (size_t i = 0; i < src.size(); ++i) {
    char c = src[i];
    if (c == '\\') {
      out += c;
      if (i + 1 < src.size()) out += src[++i];
      continue;
    }
    if (in_class) {
      if (c == ']') in_class = false;
      out += c;
      continue;
    }
    if (c == '[') {
      in_class = true;
      out += c;
      // A ']' right after '[' or '[^' is a literal member, not the end of the class.
      if (i + 1 < src.size() && src[i + 1] == '^') out += src[++i];
      if (i + 1 < src.size() && src[i + 1] == ']') out += src[++i];
      continue;
    }
    if (c != '(') {
      out += c;
      continue;
    }
    if (i + 1 < src.size() && src[i + 1] == '?') {
      if (i + 2 < src.size() && src[i + 2] == '<' && i + 3 < src.size() && src[i + 3] != '=' && src[i + 3] != '!') {
        size_t end = src.find('>', i + 3);
        if (end == std::string_view::npos) return tl::unexpected("unterminated group name in pattern: " + p.source);
        std::string name(src.substr(i + 3, end - i - 3));
        if (name.empty() || !std::all_of(name.begin(), name.end(),
                                         [](char ch) { return std::isalnum((unsigned char)ch) || ch == '_'; }))
          return tl::unexpected("bad group name '" + name + "' in pattern: " + p.source);
        p.names.push_back(name);
        out += '(';
        i = end;
        continue;
      }
      if (i + 2 < src.size() && src[i + 2] == '<')
        return tl::unexpected("lookbehind is not supported by std::regex: " + p.source);
      out += c;  // (?: (?= (?! : not a capture
      continue;
    }
    p.names.emplace_back();
    out += c;
  }
  try {
    p.re = std::regex(out, std::regex::ECMAScript | std::regex::optimize);
  } catch (const std::regex_error& e) {
    return tl::unexpected(fmt::format("invalid pattern {}: {}", p.source, e.what()));
  }
  if (p.re.mark_count() != p.names.size())
    return tl::unexpected(
        fmt::format("pattern {} has {} groups, counted {}", p.source, p.re.mark_count(), p.names.size()));
  return p;
}

const std::vector<std::string>& known_categories() {
  static const std::vector<std::string> cats = {
      "cmake",         "nvcc",    "host-compiler", "linker",     "python-packaging",
      "cpp-extension", "runtime", "resources",     "build-tool", "generic"};
  return cats;
}

namespace {

std::string str(const toml::table& t, std::string_view key) { return std::string(t[key].value_or(std::string_view{})); }

std::vector<std::string> strings(const toml::table& t, std::string_view key) {
  std::vector<std::string> v;
  if (const toml::array* a = t[key].as_array())
    for (const auto& e : *a)
      if (auto s = e.value<std::string_view>()) v.emplace_back(*s);
  return v;
}

}  // namespace

tl::expected<SignatureSet, std::string> SignatureSet::parse(std::string_view text, std::string_view origin) {
  toml::parse_result parsed = toml::parse(text, origin);
  if (!parsed)
    return tl::unexpected(
        fmt::format("{}:{}: {}", origin, parsed.error().source().begin.line, parsed.error().description()));
  const toml::table& root = parsed.table();
  const toml::array* arr = root["signature"].as_array();
  if (!arr || arr->empty()) return tl::unexpected(fmt::format("{}: no [[signature]] entries", origin));
  SignatureSet set;
  std::set<std::string> ids;
  for (const auto& node : *arr) {
    const toml::table* t = node.as_table();
    if (!t) return tl::unexpected(fmt::format("{}: a [[signature]] entry is not a table", origin));
    Signature s;
    s.id = str(*t, "id");
    auto where = [&](std::string_view what) { return fmt::format("{}: signature '{}': {}", origin, s.id, what); };
    if (s.id.empty()) return tl::unexpected(fmt::format("{}: a signature has no id", origin));
    if (!ids.insert(s.id).second) return tl::unexpected(where("duplicate id"));
    s.category = str(*t, "category");
    const auto& cats = known_categories();
    if (std::find(cats.begin(), cats.end(), s.category) == cats.end())
      return tl::unexpected(where("unknown category '" + s.category + "'"));
    std::string sev = str(*t, "severity");
    if (sev.empty() || sev == "error")
      s.severity = Severity::error;
    else if (sev == "warning")
      s.severity = Severity::warning;
    else
      return tl::unexpected(where("severity must be error or warning"));
    auto prio = (*t)["priority"].value<int64_t>();
    if (!prio || *prio < 0 || *prio > 100) return tl::unexpected(where("priority must be an integer 0-100"));
    s.priority = static_cast<int>(*prio);
    s.follow = static_cast<int>((*t)["follow"].value_or(int64_t{0}));
    if (s.follow < 0 || s.follow > 20) return tl::unexpected(where("follow must be 0-20"));
    s.title = str(*t, "title");
    s.cause = str(*t, "cause");
    s.fix = str(*t, "fix");
    s.fix_plan = str(*t, "fix_plan");
    s.docs = str(*t, "docs");
    if (s.title.empty() || s.cause.empty() || s.fix.empty() || s.docs.empty())
      return tl::unexpected(where("title, cause, fix and docs are required"));
    s.keywords = strings(*t, "keywords");
    if (s.keywords.empty()) return tl::unexpected(where("needs at least one keyword"));
    for (const auto& k : s.keywords) {
      // A line break may only end a keyword ("Killed\n": the whole line is "Killed").
      size_t nl = k.find_first_of("\r\n");
      if (k.size() < 4 || (nl != std::string::npos && nl != k.size() - 1))
        return tl::unexpected(where("keyword '" + k + "' must be one line of at least 4 characters"));
    }
    auto pats = strings(*t, "patterns");
    if (pats.empty()) return tl::unexpected(where("needs at least one pattern"));
    for (const auto& src : pats) {
      auto p = compile_pattern(src);
      if (!p) return tl::unexpected(where(p.error()));
      s.patterns.push_back(std::move(*p));
    }
    if (const std::string need = str(*t, "needs"); need == "empty-submodule")
      s.needs = Need::empty_submodule;
    else if (need == "project-header")
      s.needs = Need::project_header;
    else if (!need.empty())
      return tl::unexpected(where("needs must be empty-submodule or project-header"));
    s.traceback = (*t)["traceback"].value_or(false);
    for (const auto& src : strings(*t, "frames")) {
      auto p = compile_pattern(src);
      if (!p) return tl::unexpected(where(p.error()));
      s.frames.push_back(std::move(*p));
    }
    if (!s.frames.empty() && !s.traceback) return tl::unexpected(where("frames need traceback = true"));
    if (s.traceback && std::find(s.keywords.begin(), s.keywords.end(), kTracebackHeader) == s.keywords.end())
      return tl::unexpected(where(fmt::format("a traceback signature needs the keyword '{}'", kTracebackHeader)));
    set.sigs_.push_back(std::move(s));
  }
  return set;
}

const SignatureSet& SignatureSet::builtin() {
  static const SignatureSet set = [] {
    auto text = data::file("signatures.toml");
    if (!text) {
      std::fprintf(stderr, "kiln: internal error: data/signatures.toml was not embedded\n");
      std::abort();
    }
    auto parsed = parse(*text, "data/signatures.toml");
    if (!parsed) {
      std::fprintf(stderr, "kiln: internal error: %s\n", parsed.error().c_str());
      std::abort();
    }
    return std::move(*parsed);
  }();
  return set;
}

const Signature* SignatureSet::find(std::string_view id) const {
  for (const auto& s : sigs_)
    if (s.id == id) return &s;
  return nullptr;
}

}  // namespace kiln::diagnose
