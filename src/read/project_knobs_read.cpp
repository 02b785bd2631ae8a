#include "read/project_knobs_read.hpp"

#include <algorithm>
#include <map>
#include <regex>
#include <utility>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "core/text.hpp"
#include "read/cmake_effects.hpp"
#include "read/cmake_lang.hpp"

namespace kiln::read {
namespace {

using Use = KnobSighting::Use;

// The line without its comment: '#' outside a string literal starts one (Python and CMake alike).
std::string strip_comment(std::string_view line) {
  char quote = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quote) {
      if (c == '\\')
        ++i;
      else if (c == quote)
        quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '#') {
      return std::string(line.substr(0, i));
    }
  }
  return std::string(line);
}

template <class F>
void each_line(std::string_view text, F&& f) {
  int n = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    f(++n, line);
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
}

// String literals at the start of `rest` up to the closing bracket: ("1", "true", "yes").
std::vector<std::string> literal_list(const std::string& rest) {
  static const std::regex lit(R"re((["'])([^"']*)\1)re");
  std::vector<std::string> out;
  size_t end = rest.find_first_of(")]}");
  std::string inside = rest.substr(0, end);
  for (std::sregex_iterator it(inside.begin(), inside.end(), lit), e; it != e; ++it) out.push_back((*it)[2]);
  return out;
}

// What follows an os.getenv(...) call: a comparison, `or "default"`, or nothing.
void read_use(KnobSighting& k, const std::string& before, const std::string& rest) {
  static const std::regex cmp(
      R"re(^\s*(?:\.\s*(?:lower|upper|strip|casefold)\s*\(\s*\)\s*)*(==|!=|not\s+in\b|in\b)\s*(.*))re");
  static const std::regex lit(R"re(^(["'])([^"']*)\1)re");
  static const std::regex num(R"re(^(\d+))re");
  static const std::regex orr(R"re(^\s*or\s+(["'])([^"']*)\1)re");
  std::smatch m;
  if (std::regex_search(rest, m, cmp)) {
    const std::string op = m[1], rhs = m[2];
    k.use = Use::compare;
    k.negated = op == "!=" || op.rfind("not", 0) == 0;
    std::smatch v;
    if (op == "==" || op == "!=") {
      if (std::regex_search(rhs, v, lit) || std::regex_search(rhs, v, num)) k.true_value = v[v.size() - 1];
    } else if (!rhs.empty() && (rhs[0] == '(' || rhs[0] == '[' || rhs[0] == '{')) {
      auto values = literal_list(rhs.substr(1));
      if (!values.empty()) k.true_value = values.front();
    }
    return;
  }
  if (std::regex_search(rest, m, orr)) {
    k.use = Use::value;
    k.default_value = m[2];
    k.has_default = true;
    return;
  }
  // int(os.getenv("X", "0")) / bool(int(...)) used as a truth value: true when it is 1.
  static const std::regex as_int(R"re((?:^|[^\w.])(?:bool\s*\(\s*)?int\s*\(\s*$)re");
  if (std::regex_search(before, as_int)) {
    k.use = Use::compare;
    k.true_value = "1";
    return;
  }
  k.use = Use::value;
}

}  // namespace

ArchForm arch_form_from(std::string_view word) {
  return word == "numbers" ? ArchForm::numbers : word == "dotted" ? ArchForm::dotted : ArchForm::unknown;
}

TorchCheck::Cmp TorchCheck::Cmp::from(std::string_view part, std::string_view op, int value) {
  using P = Part;
  using O = Op;
  static constexpr std::pair<std::string_view, O> ops[] = {{"Eq", O::eq},  {"NotEq", O::ne}, {"Lt", O::lt},
                                                           {"LtE", O::le}, {"Gt", O::gt},    {"GtE", O::ge}};
  Cmp c;
  c.part = part == "cuda_major" ? P::cuda_major : part == "major" ? P::major : P::minor;
  for (const auto& [name, o] : ops)
    if (op == name) c.op = o;
  c.value = value;
  return c;
}

std::vector<KnobSighting> read_setup_py(std::string_view text, const std::string& file) {
  static const std::regex get(
      R"re(os\s*\.\s*(?:getenv|environ\s*\.\s*get)\s*\(\s*(["'])([A-Za-z_][A-Za-z0-9_]*)\1\s*(?:,\s*(?:(["'])([^"']*)\3|(\d+)|None)\s*)?\))re");
  static const std::regex index(R"re(os\s*\.\s*environ\s*\[\s*(["'])([A-Za-z_][A-Za-z0-9_]*)\1\s*\])re");
  static const std::regex presence(R"re((["'])([A-Za-z_][A-Za-z0-9_]*)\1\s+(not\s+)?in\s+os\s*\.\s*environ\b)re");
  static const std::regex to_flag(R"re(^\s*(["'])([A-Z][A-Z0-9_]*)\1\s*:\s*(["'])(--[A-Za-z0-9_-]+)\3)re");
  // The loop that applies such a table: os.environ.get(env_var, "0") == "1" (a name, not a literal).
  static const std::regex indirect(
      R"re(os\s*\.\s*(?:getenv|environ\s*\.\s*get)\s*\(\s*[A-Za-z_]\w*\s*,\s*(["'])([^"']*)\1\s*\)\s*==\s*(["'])([^"']*)\3)re");
  std::vector<KnobSighting> out;
  std::string indirect_default, indirect_true;
  bool probe_seen = false;
  each_line(text, [&](int n, std::string_view raw) {
    const std::string line = strip_comment(raw);
    auto base = [&](std::string name) {
      KnobSighting k;
      k.name = std::move(name);
      k.file = file;
      k.line = n;
      k.text = core::trim(raw);
      return k;
    };
    for (std::sregex_iterator it(line.begin(), line.end(), get), e; it != e; ++it) {
      const auto& m = *it;
      KnobSighting k = base(m[2]);
      if (m[3].matched)
        k.default_value = m[4], k.has_default = true;
      else if (m[5].matched)
        k.default_value = m[5], k.has_default = true;
      read_use(k, line.substr(0, m.position(0)), line.substr(m.position(0) + m.length(0)));
      out.push_back(std::move(k));
    }
    for (std::sregex_iterator it(line.begin(), line.end(), index), e; it != e; ++it) {
      // os.environ["X"] = ...: the project sets it for itself; only reads are knobs.
      std::string after = line.substr((*it).position(0) + (*it).length(0));
      auto eq = after.find_first_not_of(" \t");
      if (eq != std::string::npos && after[eq] == '=' && (eq + 1 >= after.size() || after[eq + 1] != '=')) continue;
      KnobSighting k = base((*it)[2]);
      k.use = Use::value;
      out.push_back(std::move(k));
    }
    for (std::sregex_iterator it(line.begin(), line.end(), presence), e; it != e; ++it) {
      KnobSighting k = base((*it)[2]);
      k.use = Use::compare;
      k.true_value = "1";  // any value makes it true; 1 is the conventional one
      k.negated = (*it)[3].matched;
      out.push_back(std::move(k));
    }
    std::smatch m;
    if (std::regex_search(line, m, to_flag)) {
      KnobSighting k = base(m[2]);
      k.use = Use::compare;
      k.flag = m[4];
      out.push_back(std::move(k));
    }
    if (std::regex_search(line, m, indirect) && indirect_true.empty()) {
      indirect_default = m[2];
      indirect_true = m[4];
    }
    if (!probe_seen && line.find("torch.cuda.is_available()") != std::string::npos) {
      probe_seen = true;
      KnobSighting k = base("");
      k.use = Use::probe;
      out.push_back(std::move(k));
    }
  });
  // Table entries take the comparison of the loop that applies them.
  for (auto& k : out)
    if (!k.flag.empty() && !indirect_true.empty()) {
      k.true_value = indirect_true;
      k.default_value = indirect_default;
      k.has_default = true;
    }
  return out;
}

// With the CMake-language reader (cmake_lang.hpp): option(), cmake_dependent_option(),
// set(... CACHE TYPE ...), set_property(CACHE X PROPERTY STRINGS ...) and $ENV{X} anywhere in an
// argument. A file CMake itself would refuse gives nothing here (CMake will say what is wrong).
std::vector<KnobSighting> read_cmakelists(std::string_view text, const std::string& file) {
  std::vector<KnobSighting> out;
  auto commands = cmake::parse(std::string(text));
  if (!commands) return out;
  std::vector<std::string_view> lines;
  each_line(text, [&](int, std::string_view l) { lines.push_back(l); });
  std::map<std::string, std::vector<std::string>> choices;
  for (const auto& c : *commands) {
    auto base = [&](std::string name, Use use) {
      KnobSighting k;
      k.name = std::move(name);
      k.use = use;
      k.file = file;
      k.line = c.line;
      k.text =
          c.line >= 1 && static_cast<size_t>(c.line) <= lines.size() ? core::trim(lines[c.line - 1]) : std::string();
      return k;
    };
    const auto& a = c.args;
    if ((c.name == "option" || c.name == "cmake_dependent_option") && !a.empty()) {
      KnobSighting k = base(a[0].text, Use::cmake_option);
      k.default_value = a.size() > 2 && !a[2].text.empty() ? core::to_upper(a[2].text) : "OFF";
      k.has_default = true;
      k.true_value = "ON";
      out.push_back(std::move(k));
    } else if (c.name == "set" && a.size() >= 4) {
      for (size_t i = 1; i + 1 < a.size(); ++i) {
        if (a[i].kind != cmake::Arg::unquoted || a[i].text != "CACHE") continue;
        const std::string type = core::to_upper(a[i + 1].text);
        if (type != "STRING" && type != "BOOL") break;
        KnobSighting k = base(a[0].text, type == "BOOL" ? Use::cmake_option : Use::cmake_cache);
        for (size_t j = 1; j < i; ++j) k.default_value += (j > 1 ? ";" : "") + a[j].text;
        k.has_default = true;
        if (type == "BOOL") k.true_value = "ON";
        out.push_back(std::move(k));
        break;
      }
    } else if (c.name == "set_property" && a.size() >= 4 && core::to_upper(a[0].text) == "CACHE" &&
               core::to_upper(a[2].text) == "PROPERTY" && core::to_upper(a[3].text) == "STRINGS") {
      auto& list = choices[a[1].text];
      for (size_t j = 4; j < a.size(); ++j)
        for (const auto& v : cmake::list_items(a[j].text)) list.push_back(v);
    }
    for (const auto& arg : a)
      for (size_t at = arg.text.find("ENV{"); at != std::string::npos; at = arg.text.find("ENV{", at + 4)) {
        size_t close = arg.text.find('}', at);
        if (close != std::string::npos) out.push_back(base(arg.text.substr(at + 4, close - at - 4), Use::value));
      }
  }
  for (auto& k : out)
    if (k.use == Use::cmake_cache)
      if (auto c = choices.find(k.name); c != choices.end()) k.choices = c->second;
  // `set(CMAKE_CUDA_ARCHITECTURES $ENV{X})` or `${X}` (tiny-cuda-nn 6ee3546 CMakeLists.txt:142-147):
  // X is the project's architecture list, in CMake's spelling, whatever it is called.
  for (const auto& c : *commands) {
    if (c.name != "set" || c.args.size() < 2 || c.args[0].text != "CMAKE_CUDA_ARCHITECTURES") continue;
    const std::string& v = c.args[1].text;
    for (auto& k : out) {
      const bool env = k.use == Use::value && v.find("$ENV{" + k.name + "}") != std::string::npos;
      const bool var = k.use == Use::cmake_cache && v.find("${" + k.name + "}") != std::string::npos;
      if (!env && !var) continue;
      k.effect = "archs";
      k.effect_where = file + ":" + std::to_string(c.line);
      k.effect_text =
          c.line >= 1 && static_cast<size_t>(c.line) <= lines.size() ? core::trim(lines[c.line - 1]) : std::string();
      k.arch.reach = "cmake";
      k.arch.sep = ";";
      k.arch.form = ArchForm::numbers;
    }
  }
  return out;
}

std::vector<KnobSighting> read_pyproject(std::string_view text, const std::string& file) {
  std::vector<KnobSighting> out;
  auto parsed = toml::parse(text);
  if (!parsed) return out;  // not ours to judge; pip will say what is wrong with it
  const toml::table& t = parsed.table();
  // scikit-build-core: [tool.scikit-build] cmake.define = { X = "Y" }
  if (auto define = t["tool"]["scikit-build"]["cmake"]["define"].as_table())
    for (const auto& [k, v] : *define) {
      KnobSighting s;
      s.use = Use::cmake_cache;
      s.name = std::string(k.str());
      s.file = file;
      s.line = static_cast<int>(v.source().begin.line);
      s.default_value = v.value_or(std::string());
      if (auto b = v.value<bool>()) s.default_value = *b ? "ON" : "OFF";
      s.has_default = true;
      s.text = s.name + " = " + s.default_value;
      out.push_back(std::move(s));
    }
  return out;
}

std::string cuda_evidence(std::string_view text, const std::string& file) {
  std::string found;
  if (file.find("CMakeLists") != std::string::npos) {
    auto commands = cmake::parse(std::string(text));
    if (!commands) return found;
    for (const auto& c : *commands) {
      bool cuda = false;
      for (size_t i = 0; i < c.args.size() && !cuda; ++i) {
        const std::string& t = c.args[i].text;
        if (i > 0 && (c.name == "project" || c.name == "enable_language" || c.name == "check_language") &&
            core::to_upper(t) == "CUDA")
          cuda = true;
        if (c.name == "find_package" && i == 0 && t == "CUDAToolkit") cuda = true;
        if (t.size() > 3 && t.compare(t.size() - 3, 3, ".cu") == 0) cuda = true;
      }
      if (c.name == "enable_language" && !c.args.empty() && core::to_upper(c.args[0].text) == "CUDA") cuda = true;
      if (!cuda) continue;
      each_line(text, [&](int n, std::string_view raw) {
        if (n == c.line) found = file + ":" + std::to_string(n) + " " + core::trim(raw);
      });
      return found;
    }
    return found;
  }
  static const std::regex py(R"re(\bCUDAExtension\s*\(|\.cu["']|["']nvcc["']\s*:)re");
  each_line(text, [&](int n, std::string_view raw) {
    if (!found.empty()) return;
    const std::string line = strip_comment(raw);
    if (std::regex_search(line, py)) found = file + ":" + std::to_string(n) + " " + core::trim(raw);
  });
  return found;
}

std::string hardcoded_archs(std::string_view text, const std::string& file) {
  static const std::regex flags(R"re(arch=compute_\d+|["']-gencode["']|--generate-code)re");
  std::string found;
  each_line(text, [&](int n, std::string_view raw) {
    if (!found.empty()) return;
    const std::string line = strip_comment(raw);
    if (std::regex_search(line, flags)) found = file + ":" + std::to_string(n) + " " + core::trim(raw);
  });
  return found;
}

std::string cmake_arch_override(std::string_view text, const std::string& file) {
  static const std::regex property(R"re((^|[^A-Za-z0-9_])CUDA_ARCHITECTURES\b)re");
  static const std::regex plain_set(R"re(\bset\s*\(\s*CMAKE_CUDA_ARCHITECTURES\b)re", std::regex::icase);
  static const std::regex cache(R"re(\bCACHE\b)re");
  // if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES): a default, which kiln's -D replaces (LLNL/zero-rk
  // a14a65a0 cmake/gpu.cmake:7-9)
  static const std::regex unset_guard(R"re(^\s*if\s*\(\s*NOT\s+(DEFINED\s+)?CMAKE_CUDA_ARCHITECTURES\s*\))re",
                                      std::regex::icase);
  static const std::regex opens(R"re(^\s*if\s*\()re", std::regex::icase);
  static const std::regex closes(R"re(^\s*endif\s*\()re", std::regex::icase);
  std::string found;
  int depth = 0, guarded_from = 0;  // guarded_from: the depth inside the guard, 0 outside it
  each_line(text, [&](int n, std::string_view raw) {
    if (!found.empty()) return;
    const std::string line = strip_comment(raw);
    if (std::regex_search(line, opens)) {
      ++depth;
      if (!guarded_from && std::regex_search(line, unset_guard)) guarded_from = depth;
    } else if (std::regex_search(line, closes)) {
      if (depth == guarded_from) guarded_from = 0;
      --depth;
    }
    const bool set = std::regex_search(line, plain_set) && !std::regex_search(line, cache) && !guarded_from;
    if (std::regex_search(line, property) || set) found = file + ":" + std::to_string(n) + " " + core::trim(raw);
  });
  return found;
}

namespace {

// A path a CMake file names, relative to the project: from the current folder, or from the root
// (${PROJECT_SOURCE_DIR}, ${CMAKE_SOURCE_DIR}); "" for one kiln cannot place (another variable, an
// absolute path, one that leaves the project).
std::string project_path(const std::string& folder, std::string p) {
  bool root = false;
  for (const char* v : {"${CMAKE_CURRENT_SOURCE_DIR}/", "${CMAKE_CURRENT_LIST_DIR}/"})
    if (p.rfind(v, 0) == 0) p = p.substr(std::string(v).size());
  for (const char* v : {"${PROJECT_SOURCE_DIR}/", "${CMAKE_SOURCE_DIR}/"})
    if (p.rfind(v, 0) == 0) p = p.substr(std::string(v).size()), root = true;
  while (!p.empty() && p.back() == '/') p.pop_back();
  if (p.empty() || p.find("${") != std::string::npos || p[0] == '/' || p.find("..") != std::string::npos) return {};
  return root || folder.empty() ? p : folder + "/" + p;
}

// The file an include() reads: a .cmake path, or a module found in the folders the project puts
// on CMAKE_MODULE_PATH; "" when it is none of the project's.
std::string included_file(const io::Filesystem& fs, const std::string& dir, const std::string& folder,
                          const std::string& arg, const std::vector<std::string>& module_dirs) {
  if (arg.size() > 6 && arg.compare(arg.size() - 6, 6, ".cmake") == 0) {
    const std::string p = project_path(folder, arg);
    return !p.empty() && fs.exists(dir + "/" + p) ? p : std::string();
  }
  if (arg.find_first_of("/${") != std::string::npos) return {};
  for (const auto& m : module_dirs)
    if (fs.exists(dir + "/" + m + "/" + arg + ".cmake")) return m + "/" + arg + ".cmake";
  return {};
}

// A CMakeLists.txt, the folders it adds with a literal add_subdirectory() (a vendored library that
// declares the options: llama-cpp-python's vendor/llama.cpp) and the project's .cmake files it
// include()s (read in its folder: options are often declared there, as LLNL/zero-rk's
// cmake/gpu.cmake does ENABLE_GPU), at most 64 files.
void read_cmake_file(const io::Filesystem& fs, const std::string& dir, const std::string& folder,
                     const std::string& file, ProjectReading& r, int& budget, std::vector<CmakeFile>& files,
                     std::vector<std::string> module_dirs) {
  if (std::any_of(files.begin(), files.end(), [&](const CmakeFile& f) { return f.file == file; })) return;
  auto t = fs.read(dir + "/" + file);
  if (!t || --budget < 0) return;
  auto found = read_cmakelists(*t, file);
  r.sightings.insert(r.sightings.end(), found.begin(), found.end());
  if (r.cuda_evidence.empty()) r.cuda_evidence = cuda_evidence(*t, file);
  if (r.cmake_archs.empty()) r.cmake_archs = cmake_arch_override(*t, file);
  auto commands = cmake::parse(*t);
  if (!commands) {
    r.undecided.push_back({file, "", commands.error(), "", "", false});
    return;
  }
  files.push_back({file, *commands, *t});
  for (const auto& c : *commands) {
    const auto& a = c.args;
    if (c.name == "add_subdirectory" && !a.empty()) {
      const std::string sub = project_path(folder, a[0].text);
      if (!sub.empty()) read_cmake_file(fs, dir, sub, sub + "/CMakeLists.txt", r, budget, files, module_dirs);
    } else if (c.name == "include" && !a.empty()) {
      const std::string inc = included_file(fs, dir, folder, a[0].text, module_dirs);
      if (!inc.empty()) read_cmake_file(fs, dir, folder, inc, r, budget, files, module_dirs);
    } else if ((c.name == "list" && a.size() >= 3 && (a[0].text == "APPEND" || a[0].text == "PREPEND") &&
                a[1].text == "CMAKE_MODULE_PATH") ||
               (c.name == "set" && a.size() >= 2 && a[0].text == "CMAKE_MODULE_PATH")) {
      for (size_t i = c.name == "set" ? 1 : 2; i < a.size(); ++i)
        if (auto m = project_path(folder, a[i].text); !m.empty()) module_dirs.push_back(m);
    }
  }
}

}  // namespace

ProjectReading read_project(const io::Filesystem& fs, const std::string& dir, bool cmake_project,
                            const tl::expected<SetupPyReading, std::string>* setup) {
  ProjectReading r;
  auto add = [&](std::vector<KnobSighting> v) { r.sightings.insert(r.sightings.end(), v.begin(), v.end()); };
  const bool ast = setup && setup->has_value();
  if (auto t = fs.read(dir + "/setup.py")) {
    if (ast) {
      const SetupPyReading& s = **setup;
      if (!cmake_project) {
        add(s.sightings);
        r.ops = s.ops;
        r.undecided = s.undecided;
        r.hardcoded_archs = s.hardcoded_archs;
      }
      r.cuda_evidence = s.cuda_evidence;
      r.calls_cmake = s.calls_cmake;
      r.reader = fmt::format("Python's ast ({} file{})", s.files.size(), s.files.size() == 1 ? "" : "s");
    } else {
      if (!cmake_project) add(read_setup_py(*t));
      r.cuda_evidence = cuda_evidence(*t, "setup.py");
      if (!cmake_project) r.hardcoded_archs = hardcoded_archs(*t, "setup.py");
      r.reader = "line patterns" + (setup ? " (" + setup->error() + ")" : std::string());
    }
  }
  // pyproject's CMake defines and the CMake options reach CMake when CMake runs: kiln's own CMake
  // build, or a pip build that runs it (scikit-build-core, a setup.py that calls cmake).
  const bool pip_cmake = !cmake_project && (!r.calls_cmake.empty() || fs.exists(dir + "/CMakeLists.txt"));
  if (auto t = fs.read(dir + "/pyproject.toml"))
    if (cmake_project || pip_cmake) add(read_pyproject(*t));
  if (cmake_project || !r.calls_cmake.empty()) {
    int budget = 64;
    const size_t before = r.sightings.size();
    const std::string evidence = r.cuda_evidence;
    std::vector<CmakeFile> files;
    read_cmake_file(fs, dir, "", "CMakeLists.txt", r, budget, files, {});
    // Options by what their if() branches do (cmake_effects.hpp), across the files: an option of
    // the root decides branches of the folders it adds.
    // A STRING cache entry counts where it is compared with a literal (if(X STREQUAL "cuda")): the
    // literal whose branch compiles CUDA is its value.
    auto followed = [](const KnobSighting& s) {
      return (s.use == KnobSighting::Use::cmake_option || s.use == KnobSighting::Use::cmake_cache) && s.effect.empty();
    };
    std::vector<std::string> options;
    for (const auto& s : r.sightings)
      if (followed(s)) options.push_back(s.name);
    const auto effects = cmake_option_effects(files, options);
    for (auto& s : r.sightings) {
      auto e = effects.find(s.name);
      if (!followed(s) || e == effects.end()) continue;
      // A STRING entry's truth test says nothing of which value compiles CUDA; that it only sets how a
      // tool runs holds for every value (cutlass's CUTLASS_LIBRARY_HEURISTICS_GPU).
      if (s.use == KnobSighting::Use::cmake_cache && e->second.value.empty() && e->second.effect != "tool") continue;
      s.effect = e->second.effect;
      s.effect_value = e->second.value.empty() ? "ON" : e->second.value;
      s.want_match = e->second.want_on;
      s.effect_where = e->second.where;
      s.effect_text = e->second.text;
    }
    if (!evidence.empty()) r.cuda_evidence = evidence;
    if (!cmake_project)  // of a pip-driven CMake build, only CMake's cache entries are switches here
      r.sightings.erase(std::remove_if(r.sightings.begin() + static_cast<long>(before), r.sightings.end(),
                                       [](const KnobSighting& k) { return k.use == Use::value; }),
                        r.sightings.end());
  } else if (r.cuda_evidence.empty()) {
    if (auto t = fs.read(dir + "/CMakeLists.txt")) r.cuda_evidence = cuda_evidence(*t, "CMakeLists.txt");
  }
  return r;
}

}  // namespace kiln::read
