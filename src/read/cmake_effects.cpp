#include "read/cmake_effects.hpp"

#include "core/text.hpp"
#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kiln::read {

namespace {

// The names of the variables an argument reads, ${NAME}, in order.
std::vector<std::string> variables_read(const std::string& text) {
  std::vector<std::string> out;
  for (size_t at = text.find("${"); at != std::string::npos; at = text.find("${", at + 2))
    if (size_t close = text.find('}', at); close != std::string::npos)
      out.push_back(text.substr(at + 2, close - at - 2));
  return out;
}

// One branch of an if() chain: the command that opens it (if, elseif, else) and its body [begin, end).
struct Branch {
  size_t cmd = 0, begin = 0, end = 0;
  bool nested = false;  // the chain sits inside another if()
};
using Chain = std::vector<Branch>;

// Every if() chain of a file, nested ones included; an unbalanced chain is left out.
std::vector<Chain> chains_of(const std::vector<cmake::Command>& cmds) {
  std::vector<Chain> out, open;
  for (size_t i = 0; i < cmds.size(); ++i) {
    const std::string& n = cmds[i].name;
    if (n == "if") {
      open.push_back({{i, i + 1, i + 1, !open.empty()}});
    } else if ((n == "elseif" || n == "else") && !open.empty()) {
      open.back().back().end = i;
      open.back().push_back({i, i + 1, i + 1, open.size() > 1});
    } else if (n == "endif" && !open.empty()) {
      open.back().back().end = i;
      out.push_back(std::move(open.back()));
      open.pop_back();
    }
  }
  return out;
}

const std::set<std::string>& binary_operators() {
  static const std::set<std::string> ops = {"STREQUAL",
                                            "STRLESS",
                                            "STRGREATER",
                                            "STRLESS_EQUAL",
                                            "STRGREATER_EQUAL",
                                            "EQUAL",
                                            "LESS",
                                            "GREATER",
                                            "LESS_EQUAL",
                                            "GREATER_EQUAL",
                                            "MATCHES",
                                            "VERSION_EQUAL",
                                            "IN_LIST",
                                            "VERSION_LESS",
                                            "VERSION_GREATER",
                                            "VERSION_LESS_EQUAL",
                                            "VERSION_GREATER_EQUAL"};
  return ops;
}

// The literal a STRING option is compared with when the condition is only that comparison:
// if(X STREQUAL "cuda"), if("${X}" STREQUAL cuda), if("cuda" STREQUAL X); "" otherwise (an AND,
// a NOT, another variable on the other side: kiln cannot say which value takes the branch).
std::string compared_with(const std::vector<cmake::Arg>& args, const std::string& name) {
  if (args.size() != 3 || core::to_upper(args[1].text) != "STREQUAL" || args[1].kind != cmake::Arg::unquoted) return {};
  auto is_option = [&](const cmake::Arg& a) {
    return (a.kind == cmake::Arg::unquoted && a.text == name) || a.text == "${" + name + "}";
  };
  auto literal = [](const cmake::Arg& a) { return a.text.find("${") == std::string::npos && !a.text.empty(); };
  if (is_option(args[0]) && literal(args[2])) return args[2].text;
  if (is_option(args[2]) && literal(args[0])) return args[0].text;
  return {};
}

// How a branch's condition needs the option: +1 true, -1 false (NOT X), 0 when kiln cannot tell
// (an OR, parentheses, the option compared with something, DEFINED X, or not read at all). `alone`:
// the condition is the option itself (X or NOT X).
int polarity(const std::vector<cmake::Arg>& args, const std::string& name, bool& alone) {
  alone = false;
  if (!compared_with(args, name).empty()) return 0;
  std::optional<size_t> at;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& t = args[i].text;
    if (args[i].kind != cmake::Arg::unquoted) continue;
    if (t == "OR" || t == "(" || t == ")") return 0;
    if (t == name || t == "${" + name + "}") {
      if (at) return 0;
      at = i;
    }
  }
  if (!at) return 0;
  const size_t i = *at;
  if (i + 1 < args.size() && binary_operators().count(core::to_upper(args[i + 1].text))) return 0;
  if (i > 0 &&
      (binary_operators().count(core::to_upper(args[i - 1].text)) || core::to_upper(args[i - 1].text) == "DEFINED"))
    return 0;
  const bool negated = i > 0 && args[i - 1].text == "NOT";
  alone = args.size() == (negated ? 2u : 1u);
  return negated ? -1 : 1;
}

// What a branch's commands do.
struct Facts {
  bool language = false;  // it enables the CUDA language
  bool sources = false;   // it adds CUDA sources to a file that has none otherwise
  bool removes_cuda = false, fatal = false, only_flags = true, empty = true;
  bool tool = false;  // it sets how a tool runs (nvcc response files, a generator's arguments)
};

class Reader {
public:
  explicit Reader(const std::vector<CmakeFile>& files) : files_(files) {
    for (size_t i = 0; i < files.size(); ++i) by_path_[files[i].file] = i;
    // Variables project() or enable_language() takes its languages from (faiss: FAISS_LANGUAGES).
    for (const auto& f : files)
      for (const auto& c : f.commands)
        if (c.name == "project" || c.name == "enable_language")
          for (const auto& a : c.args)
            for (auto& var : variables_read(a.text)) language_vars_.insert(std::move(var));
    // Variables whose every use is in a flag command (faiss's CUDA_LIBS: target_link_libraries), and
    // those whose every use is an argument of a command the build runs (cutlass's HEURISTICS_ARGS:
    // execute_process(generator.py ... ${HEURISTICS_ARGS}), tools/library/CMakeLists.txt:360).
    std::map<std::string, bool> only_in_flags, only_in_runs;
    for (const auto& f : files)
      for (const auto& c : f.commands) {
        const bool flags = flag_command(c);
        const bool runs =
            c.name == "execute_process" || c.name == "add_custom_command" || c.name == "add_custom_target";
        for (const auto& a : c.args)
          for (const auto& var : variables_read(a.text)) {
            auto in_flags = only_in_flags.emplace(var, true).first;
            in_flags->second = in_flags->second && flags;
            auto in_runs = only_in_runs.emplace(var, true).first;
            in_runs->second = in_runs->second && runs;
          }
      }
    for (const auto& [var, flags] : only_in_flags)
      if (flags) flag_vars_.insert(var);
    for (const auto& [var, runs] : only_in_runs)
      if (runs) run_vars_.insert(var);
  }

  Facts facts(const CmakeFile& f, const Branch& b) {
    Facts out;
    int depth = 0;
    for (size_t i = b.begin; i < b.end; ++i) {
      const auto& c = f.commands[i];
      if (c.name == "if") ++depth;
      if (c.name == "endif") --depth;
      if (c.name == "if" || c.name == "elseif" || c.name == "else" || c.name == "endif") continue;
      out.empty = false;
      // CUDA sources in a file that compiles CUDA anyway are more of it, not the gate of it (faiss's
      // FAISS_ENABLE_CUVS adds .cu files to faiss/gpu, which FAISS_ENABLE_GPU decides).
      const Cuda what = cuda_command(f, c);
      if (what == Cuda::language) out.language = true;
      if (what == Cuda::sources && !unconditional_cuda(f)) out.sources = true;
      if (removes_cuda(c)) out.removes_cuda = true;
      const bool fatal = c.name == "message" && !c.args.empty() && core::to_upper(c.args[0].text) == "FATAL_ERROR";
      if (fatal && depth == 0) out.fatal = true;
      // A status message is no effect; a FATAL_ERROR anywhere in it is more than flags.
      const bool tool = tool_command(c);
      out.tool = out.tool || tool;
      if ((c.name != "message" || fatal) && !flag_command(c) && !tool) out.only_flags = false;
    }
    return out;
  }

private:
  enum class Cuda { none, language, sources };

  // The language: enable_language(CUDA), project(... CUDA), find_package(CUDAToolkit), CUDA added
  // to the list project() takes its languages from. Sources: a .cu file, or a folder whose own
  // unconditional commands compile CUDA.
  Cuda cuda_command(const CmakeFile& f, const cmake::Command& c, int depth = 0) {
    const auto& a = c.args;
    auto has_arg = [&](const std::string& v) {
      return std::any_of(a.begin(), a.end(), [&](const cmake::Arg& x) { return core::to_upper(x.text) == v; });
    };
    if ((c.name == "enable_language" || c.name == "project") && has_arg("CUDA")) return Cuda::language;
    if (c.name == "find_package" && !a.empty() && (a[0].text == "CUDAToolkit" || a[0].text == "CUDA"))
      return Cuda::language;
    if ((c.name == "list" || c.name == "set") && a.size() >= 2 && has_arg("CUDA") &&
        language_vars_.count(c.name == "list" ? a[1].text : a[0].text))
      return Cuda::language;
    if (c.name == "add_subdirectory" && !a.empty())
      return depth < 8 && folder_compiles_cuda(f, a[0].text, depth) ? Cuda::sources : Cuda::none;
    if (c.name == "list" && !a.empty() &&
        (core::to_upper(a[0].text) == "FILTER" || core::to_upper(a[0].text) == "REMOVE_ITEM"))
      return Cuda::none;
    return std::any_of(a.begin(), a.end(), [](const cmake::Arg& x) { return core::ends_with(x.text, ".cu"); })
               ? Cuda::sources
               : Cuda::none;
  }

  // Whether the file's commands outside every if() compile CUDA sources (enabling the language
  // alone compiles nothing).
  bool unconditional_cuda(const CmakeFile& f, int depth = 0) {
    if (auto m = unconditional_.find(f.file); m != unconditional_.end()) return m->second;
    unconditional_[f.file] = false;  // a folder that adds itself again: not CUDA through that
    int nest = 0;
    bool cuda = false;
    for (const auto& c : f.commands) {
      if (c.name == "if") ++nest;
      if (c.name == "endif") --nest;
      if (nest == 0 && c.name != "endif" && cuda_command(f, c, depth) == Cuda::sources) {
        cuda = true;
        break;
      }
    }
    return unconditional_[f.file] = cuda;
  }

  bool removes_cuda(const cmake::Command& c) const {
    const auto& a = c.args;
    if (c.name != "list" || a.size() < 3) return false;
    const std::string op = core::to_upper(a[0].text);
    if (op == "FILTER" && a.size() >= 5 && core::to_upper(a[2].text) == "EXCLUDE") {
      const std::string re = core::to_lower(a.back().text);
      return re.find("cuda") != std::string::npos || re.find("\\.cu") != std::string::npos;
    }
    if (op == "REMOVE_ITEM")
      return std::any_of(a.begin() + 2, a.end(), [](const cmake::Arg& x) { return core::ends_with(x.text, ".cu"); });
    return false;
  }

  bool flag_command(const cmake::Command& c) const {
    static const std::set<std::string> flags = {
        "add_definitions",       "add_compile_definitions",    "add_compile_options",
        "add_link_options",      "target_compile_definitions", "target_compile_options",
        "target_link_libraries", "target_link_options",        "link_libraries",
        "include_directories",   "target_include_directories"};
    if (flags.count(c.name)) return true;
    // set(CMAKE_CUDA_FLAGS ...), string(APPEND CMAKE_CXX_FLAGS ...), list(APPEND CMAKE_*_FLAGS ...)
    const size_t var = c.name == "set" ? 0 : (c.name == "string" || c.name == "list") ? 1 : c.args.size();
    if (var >= c.args.size()) return false;
    const std::string& v = c.args[var].text;
    // set(CUDA_LIBS ...) / list(APPEND TCNN_LIBRARIES cuda) of a variable only flag commands read
    return (v.rfind("CMAKE_", 0) == 0 && v.find("FLAGS") != std::string::npos) ||
           ((c.name == "set" || (c.name == "list" && core::to_upper(c.args[0].text) == "APPEND")) &&
            flag_vars_.count(v));
  }

  // How a tool runs, not what it compiles: set(CMAKE_CUDA_USE_RESPONSE_FILE_FOR_INCLUDES 0) (cutlass
  // CMakeLists.txt:81), or arguments added to a variable only commands the build runs read, none of
  // them about architectures.
  bool tool_command(const cmake::Command& c) const {
    if (c.args.empty()) return false;
    if (c.name == "set") return c.args[0].text.find("_USE_RESPONSE_FILE_FOR_") != std::string::npos;
    if (c.name != "list" || c.args.size() < 3 || core::to_upper(c.args[0].text) != "APPEND" ||
        !run_vars_.count(c.args[1].text))
      return false;
    return std::none_of(c.args.begin() + 2, c.args.end(),
                        [](const cmake::Arg& a) { return core::to_lower(a.text).find("arch") != std::string::npos; });
  }

  bool folder_compiles_cuda(const CmakeFile& f, std::string sub, int depth) {
    for (const char* v : {"${CMAKE_CURRENT_SOURCE_DIR}/", "${CMAKE_CURRENT_LIST_DIR}/"})
      if (sub.rfind(v, 0) == 0) sub = sub.substr(std::string(v).size());
    std::string path;
    if (sub.rfind("${PROJECT_SOURCE_DIR}/", 0) == 0) {
      path = sub.substr(std::string("${PROJECT_SOURCE_DIR}/").size());
    } else {
      const size_t slash = f.file.rfind('/');
      path = (slash == std::string::npos ? "" : f.file.substr(0, slash + 1)) + sub;
    }
    auto it = by_path_.find(path + "/CMakeLists.txt");
    return it != by_path_.end() && unconditional_cuda(files_[it->second], depth + 1);
  }

  const std::vector<CmakeFile>& files_;
  std::map<std::string, size_t> by_path_;
  std::map<std::string, bool> unconditional_;
  std::set<std::string> language_vars_, flag_vars_, run_vars_;
};

std::string line_of(const std::string& text, int line) {
  size_t start = 0;
  for (int i = 1; i < line && start != std::string::npos; ++i) {
    start = text.find('\n', start);
    if (start != std::string::npos) ++start;
  }
  if (start == std::string::npos) return {};
  size_t end = text.find('\n', start);
  std::string l = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
  const size_t b = l.find_first_not_of(" \t\r");
  const size_t e = l.find_last_not_of(" \t\r");
  return b == std::string::npos ? std::string() : l.substr(b, e - b + 1);
}

// The effect found for one option: what, whether kiln wants it ON (want_on) and where.
struct Found {
  std::string effect;
  bool want_on = false;
  const CmakeFile* file = nullptr;
  int line = 0;
  std::string value;  // a STRING option's literal ("" a BOOL option)
};

CmakeEffect effect_of(const Found& f) {
  return {f.effect, f.want_on, f.file->file + ":" + std::to_string(f.line), line_of(f.file->text, f.line), f.value};
}

// Each option with the variables that only copy it, set(Y ${X}) or set(Y "${X}"), and those that
// copy them: an if(Y) decides by X's value. A variable set
// anywhere else too is not a copy: its value there is not X's.
std::map<std::string, std::vector<std::string>> aliases(const std::vector<CmakeFile>& files,
                                                        const std::vector<std::string>& options) {
  std::map<std::string, int> sets;
  std::map<std::string, std::vector<std::string>> copies;  // X -> Ys
  for (const auto& f : files)
    for (const auto& c : f.commands) {
      if (c.name != "set" || c.args.empty()) continue;
      ++sets[c.args[0].text];
      if (c.args.size() != 2) continue;
      const std::string& v = c.args[1].text;
      if (v.size() > 3 && v.rfind("${", 0) == 0 && v.back() == '}' && v.find("${", 2) == std::string::npos)
        copies[v.substr(2, v.size() - 3)].push_back(c.args[0].text);
    }
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& o : options) {
    auto& names = out[o];
    names.push_back(o);
    for (size_t i = 0; i < names.size() && names.size() < 8; ++i)
      for (const auto& y : copies[names[i]])
        if (sets[y] == 1 && std::find(names.begin(), names.end(), y) == names.end()) names.push_back(y);
  }
  return out;
}

}  // namespace

std::map<std::string, CmakeEffect> cmake_option_effects(const std::vector<CmakeFile>& files,
                                                        const std::vector<std::string>& options) {
  Reader reader(files);
  std::vector<std::vector<Chain>> chains;
  for (const auto& f : files) chains.push_back(chains_of(f.commands));
  // Each option's branches with what they do: the options that enable the CUDA language are its
  // gates; .cu sources another option adds under them are more CUDA, not the gate of it.
  struct Seen {
    const CmakeFile* file;
    int line, pol;
    bool alone, nested;
    Facts facts;
    std::string literal;  // if(X STREQUAL "lit"): the branch is taken when X is lit
  };
  std::map<std::string, std::vector<Seen>> seen;
  std::set<std::string> language_gates, source_gates;
  auto names = aliases(files, options);
  for (const auto& name : options) {
    if (seen.count(name)) continue;
    auto& list = seen[name];
    for (size_t fi = 0; fi < files.size(); ++fi)
      for (const auto& chain : chains[fi])
        for (size_t bi = 0; bi < chain.size(); ++bi) {
          const auto& cmds = files[fi].commands;
          bool alone = false;
          int pol = 0;
          std::string literal;
          for (const auto& n : names[name]) {  // the option, then the variables that copy it
            pol = polarity(cmds[chain[bi].cmd].args, n, alone);
            literal = compared_with(cmds[chain[bi].cmd].args, n);
            if (!literal.empty()) pol = 1;
            // if(X) ... else(): the else branch needs the opposite.
            if (pol == 0 && bi == 1 && chain.size() == 2 && cmds[chain[bi].cmd].name == "else") {
              pol = -polarity(cmds[chain[0].cmd].args, n, alone);
              if (!alone) pol = 0;
            }
            if (pol != 0) break;
          }
          if (pol == 0) continue;
          const size_t at = literal.empty() ? chain[0].cmd : chain[bi].cmd;  // elseif(X STREQUAL ...) is its own line
          list.push_back(
              {&files[fi], cmds[at].line, pol, alone, chain[bi].nested, reader.facts(files[fi], chain[bi]), literal});
          if (list.back().facts.language) language_gates.insert(name);
          if (list.back().facts.sources) source_gates.insert(name);
        }
  }
  std::map<std::string, CmakeEffect> out;
  for (const auto& [name, branches] : seen) {
    if (branches.empty()) continue;
    // Where another option enables the language, or several add CUDA folders (cutlass: library,
    // profiler, tests, examples), sources make an optional part, not the CUDA build: not followed.
    const bool other_gate = !language_gates.empty() || source_gates.size() > 1;
    std::optional<Found> cuda, fatal;
    bool conflict = false, all_flags = true, any_tool = false;
    for (const auto& b : branches) {
      const bool adds = b.facts.language || (b.facts.sources && !other_gate);
      if (adds != b.facts.removes_cuda && !b.literal.empty()) {
        // A STRING option: the literal whose branch compiles CUDA is the value kiln sets; a branch
        // that drops CUDA for its literal says nothing of which other value keeps it.
        if (!adds) continue;
        if (cuda && (!cuda->want_on || cuda->value != b.literal)) conflict = true;
        if (!cuda) cuda = Found{"cuda", true, b.file, b.line, b.literal};
      } else if (adds != b.facts.removes_cuda) {
        const bool want_on = (b.pol > 0) == adds;  // CUDA in the branch X takes, or out of the one it avoids
        if (cuda && (cuda->want_on != want_on || !cuda->value.empty())) conflict = true;
        if (!cuda) cuda = Found{"cuda", want_on, b.file, b.line, ""};
      }
      // Only a guard of its own: under another if(), the error needs that condition too.
      if (b.facts.fatal && b.alone && !b.nested && !fatal) fatal = Found{"fatal", b.pol < 0, b.file, b.line, ""};
      if (b.facts.empty || !b.facts.only_flags) all_flags = false;
      any_tool = any_tool || b.facts.tool;
    }
    if (cuda && !conflict)
      out[name] = effect_of(*cuda);
    else if (fatal && !cuda)
      out[name] = effect_of(*fatal);
    else if (all_flags && !cuda)
      out[name] =
          effect_of(Found{any_tool ? "tool" : "flags", false, branches.front().file, branches.front().line, ""});
  }
  return out;
}

}  // namespace kiln::read
