#include "read/checkout_options.hpp"

#include "core/text.hpp"
#include <fmt/format.h>
#include <sys/utsname.h>

#include <algorithm>
#include <set>

namespace kiln::read {

using cmake::Truth;
using cmake::Value;

Platform host_platform() {
  Platform p;
  struct utsname u {};
  if (::uname(&u) == 0) {
    p.system_name = u.sysname;
    p.processor = u.machine;
  }
  return p;
}

const DeclaredOption* CheckoutOptions::find(const std::string& name) const {
  for (const auto& o : options)
    if (o.name == name) return &o;
  return nullptr;
}

namespace {

// Variables setup.py passes to CMake from the environment (tools/setup_helpers/cmake.py: every
// BUILD_*, USE_*, CMAKE_* and a short list of others).
bool forwarded_by_setup_py(const std::string& name) {
  static const std::set<std::string> extra = {"BLAS",
                                              "BUILDING_WITH_TORCH_LIBS",
                                              "CUDA_NVCC_EXECUTABLE",
                                              "CUDNN_LIBRARY",
                                              "CUDNN_INCLUDE_DIR",
                                              "EXPERIMENTAL_SINGLE_THREAD_POOL",
                                              "INSTALL_TEST",
                                              "JAVA_HOME",
                                              "MKL_THREADING",
                                              "MKLDNN_THREADING",
                                              "MSVC_Z7_OVERRIDE",
                                              "ONNX_ML",
                                              "ONNX_NAMESPACE",
                                              "ATEN_THREADING",
                                              "WERROR"};
  return name.rfind("USE_", 0) == 0 || name.rfind("BUILD_", 0) == 0 || name.rfind("CMAKE_", 0) == 0 ||
         extra.count(name) > 0;
}

std::string describe(const std::vector<cmake::Arg>& args) {
  std::string s;
  for (const auto& a : args) {
    if (!s.empty() && a.text != ")" && s.back() != '(') s += ' ';
    s += a.kind == cmake::Arg::quoted ? "\"" + a.text + "\"" : a.text;
  }
  return s;
}

bool is_identifier(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

struct Frame {
  enum Kind { branch, loop, definition } kind = branch;
  std::string name;          // the opening command
  std::string cond;          // its condition as written
  Truth prior = Truth::no;   // some earlier branch held
  Truth taken = Truth::yes;  // the current branch runs
  std::string branch_text;   // how to name the current branch
};

class Walker {
public:
  Walker(const io::Filesystem& fs, const std::string& dir, const Platform& pl,
         const std::map<std::string, Preset>& presets, const EnvLookup& env)
      : fs_(fs), dir_(dir), platform_(pl), presets_(presets), env_(env) {}

  CheckoutOptions run() {
    if (!fs_.exists(dir_ + "/CMakeLists.txt")) {
      out_.warnings.push_back(dir_ + "/CMakeLists.txt not found");
      return std::move(out_);
    }
    walk("CMakeLists.txt", 0);
    return std::move(out_);
  }

private:
  const io::Filesystem& fs_;
  std::string dir_;
  Platform platform_;
  const std::map<std::string, Preset>& presets_;
  const EnvLookup& env_;
  std::map<std::string, Value> vars_;
  std::map<std::string, std::string> set_at_;  // where a variable was last set: "file:line"
  std::vector<Frame> frames_;
  std::string current_file_;
  CheckoutOptions out_;

  Value builtin(const std::string& name) const {
    if (name == "CMAKE_SYSTEM_NAME" || name == "CMAKE_HOST_SYSTEM_NAME") return Value::of(platform_.system_name);
    if (name == "CMAKE_SYSTEM_PROCESSOR" || name == "CMAKE_HOST_SYSTEM_PROCESSOR")
      return Value::of(platform_.processor);
    if (name == "CMAKE_SOURCE_DIR" || name == "PROJECT_SOURCE_DIR" || name == "CMAKE_CURRENT_SOURCE_DIR")
      return Value::of(dir_);
    if (name == "CMAKE_CURRENT_LIST_DIR") return Value::of(core::dir_name(dir_ + "/" + current_file_));
    if (name == "CMAKE_SIZEOF_VOID_P") return Value::of("8");
    const bool linux_ = platform_.system_name == "Linux";
    const bool darwin = platform_.system_name == "Darwin";
    const bool windows = platform_.system_name == "Windows";
    if (name == "UNIX") return !windows ? Value::of("1") : Value::none();
    if (name == "LINUX" || name == "CMAKE_HOST_LINUX") return linux_ ? Value::of("1") : Value::none();
    if (name == "APPLE" || name == "CMAKE_HOST_APPLE") return darwin ? Value::of("1") : Value::none();
    if (name == "WIN32" || name == "CMAKE_HOST_WIN32" || name == "MSVC")
      return windows ? Value::dunno() : Value::none();
    static const std::set<std::string> off_here = {"ANDROID", "IOS",        "MINGW", "CYGWIN",
                                                   "MSYS",    "EMSCRIPTEN", "XCODE", "CMAKE_CROSSCOMPILING"};
    if (off_here.count(name) && (linux_ || darwin)) return Value::none();
    return Value::dunno();  // compilers, generator, paths: decided when CMake runs
  }

  Value lookup(const std::string& name) const {
    if (name.rfind("ENV{", 0) == 0 && name.back() == '}') {
      auto v = env_ ? env_(name.substr(4, name.size() - 5)) : std::nullopt;
      return v ? Value::of(*v) : Value::none();
    }
    if (auto it = vars_.find(name); it != vars_.end()) return it->second;
    if (auto it = presets_.find(name); it != presets_.end()) return Value::of(it->second.on ? "ON" : "OFF");
    if (forwarded_by_setup_py(name) && env_)
      if (auto v = env_(name)) return Value::of(*v);
    if (name.rfind("CMAKE_", 0) == 0 || name == "UNIX" || name == "LINUX" || name == "APPLE" || name == "WIN32" ||
        name == "MSVC" || name == "ANDROID" || name == "IOS" || name == "MINGW" || name == "CYGWIN" || name == "MSYS" ||
        name == "EMSCRIPTEN" || name == "XCODE" || name == "PROJECT_SOURCE_DIR")
      return builtin(name);
    return Value::none();
  }

  cmake::Lookup lookup_fn() const {
    return [this](const std::string& n) { return lookup(n); };
  }

  Truth state() const {
    Truth t = Truth::yes;
    for (const auto& f : frames_) {
      if (f.taken == Truth::no) return Truth::no;
      if (f.taken == Truth::unknown) t = Truth::unknown;
    }
    return t;
  }
  std::string guard_text(Truth which) const {
    std::string g;
    for (const auto& f : frames_)
      if (f.taken == which) g += (g.empty() ? "" : " and ") + f.branch_text;
    return g;
  }

  void walk(const std::string& rel, int depth) {
    const auto text = fs_.read(dir_ + "/" + rel);
    if (!text) {
      out_.warnings.push_back(rel + ": cannot be read");
      return;
    }
    auto cmds = cmake::parse(*text);
    if (!cmds) {
      out_.warnings.push_back(rel + ": " + cmds.error());
      return;
    }
    out_.files.push_back(rel);
    const std::string saved_file = current_file_;
    current_file_ = rel;
    const size_t base = frames_.size();
    for (const auto& c : *cmds) command(c, depth);
    if (frames_.size() > base) frames_.resize(base);  // an unbalanced file ends its own blocks
    current_file_ = saved_file;
  }

  cmake::Condition condition(const cmake::Command& c) {
    std::vector<std::string> unknown;
    auto toks = cmake::expand_args(c.args, lookup_fn(), unknown);
    auto cond = cmake::evaluate(toks, lookup_fn());
    for (auto& u : unknown) cond.unknown.push_back(u);
    if (!unknown.empty() && cond.truth != Truth::no) cond.truth = Truth::unknown;
    return cond;
  }

  void command(const cmake::Command& c, int depth) {
    const std::string& n = c.name;
    // Block structure first: it applies whether or not the block runs.
    if (n == "function" || n == "macro") {
      frames_.push_back(
          {Frame::definition, n, describe(c.args), Truth::no, Truth::no, n + "(" + describe(c.args) + ")"});
      return;
    }
    if (n == "endfunction" || n == "endmacro" || n == "endforeach" || n == "endwhile" || n == "endif" ||
        n == "endblock") {
      if (frames_.size() > 0) frames_.pop_back();
      return;
    }
    if (n == "foreach" || n == "while" || n == "block") {
      // Loop bodies may run any number of times: kiln does not run them, it only records options in them.
      const Truth outer = state();
      frames_.push_back({Frame::loop, n, describe(c.args), Truth::no, outer == Truth::no ? Truth::no : Truth::unknown,
                         "inside " + n + "(" + describe(c.args) + ")"});
      return;
    }
    if (n == "if") {
      Truth t = state() == Truth::no ? Truth::no : condition(c).truth;
      frames_.push_back({Frame::branch, n, describe(c.args), t, t, "if(" + describe(c.args) + ")"});
      return;
    }
    if (n == "elseif" || n == "else") {
      if (frames_.empty() || frames_.back().kind != Frame::branch) return;
      Frame& f = frames_.back();
      // The enclosing blocks decide first: evaluate with this frame set aside.
      Frame saved = f;
      frames_.pop_back();
      const Truth outer = state();
      Truth cond = Truth::yes;
      if (n == "elseif" && outer != Truth::no) cond = condition(c).truth;
      frames_.push_back(saved);
      Frame& g = frames_.back();
      auto t_not = [](Truth a) { return a == Truth::unknown ? a : a == Truth::yes ? Truth::no : Truth::yes; };
      auto t_and = [](Truth a, Truth b) {
        if (a == Truth::no || b == Truth::no) return Truth::no;
        return a == Truth::yes && b == Truth::yes ? Truth::yes : Truth::unknown;
      };
      auto t_or = [](Truth a, Truth b) {
        if (a == Truth::yes || b == Truth::yes) return Truth::yes;
        return a == Truth::no && b == Truth::no ? Truth::no : Truth::unknown;
      };
      g.taken = outer == Truth::no ? Truth::no : t_and(t_not(g.prior), cond);
      g.prior = t_or(g.prior, cond);
      g.branch_text =
          n == "else" ? "else of if(" + g.cond + ")" : "elseif(" + describe(c.args) + ") of if(" + g.cond + ")";
      return;
    }
    const Truth st = state();
    if (st == Truth::no && n != "option" && n != "cmake_dependent_option") return;
    // Options inside a function or macro are declared when it is called, which kiln does not follow.
    for (const auto& f : frames_)
      if (f.kind == Frame::definition) return;
    if (n == "option")
      declare(c, false, st);
    else if (n == "cmake_dependent_option")
      declare(c, true, st);
    else if (n == "set")
      set(c, st);
    else if (n == "caffe2_update_option" && c.args.size() >= 2) {
      // PyTorch's macro (cmake/public/utils.cmake): set(VAR VALUE CACHE BOOL "" FORCE).
      cmake::Command forced = c;
      forced.args.resize(2);
      forced.args.push_back({"CACHE", cmake::Arg::unquoted});
      forced.args.push_back({"BOOL", cmake::Arg::unquoted});
      forced.args.push_back({"", cmake::Arg::quoted});
      forced.args.push_back({"FORCE", cmake::Arg::unquoted});
      set(forced, st);
    } else if (n == "unset" && st == Truth::yes && !c.args.empty())
      vars_.erase(c.args[0].text);
    else if (n == "include")
      include(c, depth);
  }

  void include(const cmake::Command& c, int depth) {
    if (c.args.empty() || depth >= 8) return;
    std::vector<std::string> unknown;
    auto path = cmake::expand(c.args[0].text, lookup_fn(), unknown);
    if (!path) return;
    // include(ModuleName): one of CMake's own modules, not the checkout's.
    if (path->find('/') == std::string::npos && path->find(".cmake") == std::string::npos) return;
    std::string rel = *path;
    if (rel.rfind(dir_ + "/", 0) == 0) rel = rel.substr(dir_.size() + 1);
    if (!rel.empty() && rel[0] == '/') return;  // outside the checkout
    if (!fs_.exists(dir_ + "/" + rel)) {
      const bool optional =
          std::any_of(c.args.begin(), c.args.end(), [](const cmake::Arg& a) { return a.text == "OPTIONAL"; });
      if (!optional)
        out_.warnings.push_back(
            fmt::format("{}:{}: include({}) not found in the checkout", current_file_, c.line, rel));
      return;
    }
    walk(rel, depth + 1);
  }

  std::string arg_value(const cmake::Command& c, size_t i, std::vector<std::string>& unknown, bool& known) const {
    if (i >= c.args.size()) return {};
    auto v = cmake::expand(c.args[i].text, lookup_fn(), unknown);
    if (!v) {
      known = false;
      return c.args[i].text;
    }
    return *v;
  }

  void set(const cmake::Command& c, Truth st) {
    if (c.args.empty()) return;
    std::vector<std::string> unknown;
    bool known = true;
    const std::string name = arg_value(c, 0, unknown, known);
    if (!known || name.empty()) return;
    size_t end = c.args.size();
    bool cache = false, force = false;
    for (size_t i = 1; i < c.args.size(); ++i) {
      if (c.args[i].kind != cmake::Arg::unquoted) continue;
      if (c.args[i].text == "CACHE") {
        cache = true;
        end = std::min(end, i);
      } else if (c.args[i].text == "PARENT_SCOPE") {
        end = std::min(end, i);
      } else if (cache && c.args[i].text == "FORCE") {
        force = true;
      }
    }
    std::vector<cmake::Arg> value_args(c.args.begin() + 1, c.args.begin() + static_cast<long>(end));
    auto toks = cmake::expand_args(value_args, lookup_fn(), unknown);
    std::string value;
    bool value_known = true;
    for (const auto& t : toks) {
      if (t.unknown) value_known = false;
      value += (value.empty() ? "" : ";") + t.text;
    }
    auto opt = option_index(name);
    if (st == Truth::unknown) {
      if (opt && out_.options[*opt].active)
        out_.options[*opt].reason +=
            fmt::format("{}{}:{} may set it to {} under {}", out_.options[*opt].reason.empty() ? "" : "; ",
                        current_file_, c.line, value, guard_text(Truth::unknown));
      else
        vars_[name] = Value::dunno();
      return;
    }
    // A cache set without FORCE leaves a value the user (or an option) already put in the cache.
    if (cache && !force && (presets_.count(name) || opt)) return;
    if (!value_known) {
      vars_[name] = Value::dunno();
      return;
    }
    if (value_args.empty() && !cache) {
      vars_.erase(name);
      return;
    }
    vars_[name] = Value::of(value);
    set_at_[name] = fmt::format("{}:{}", current_file_, c.line);
    if (opt && out_.options[*opt].active) {
      auto& o = out_.options[*opt];
      const bool on = cmake::value_truth(value);
      if (on != o.on) {
        o.on = on;
        o.origin = {OptionSource::checkout, {}};
        std::string where = guard_text(Truth::yes);
        o.reason =
            fmt::format("{}:{} sets it to {}{}", current_file_, c.line, value, where.empty() ? "" : " under " + where);
      }
    }
  }

  std::optional<size_t> option_index(const std::string& name) const {
    for (size_t i = 0; i < out_.options.size(); ++i)
      if (out_.options[i].name == name) return i;
    return std::nullopt;
  }

  // The values behind a condition that failed: " (USE_DISTRIBUTED=OFF, WIN32 unset)".
  std::string explain(const std::string& element) const {
    std::vector<std::string> unknown;
    auto e = cmake::expand(element, lookup_fn(), unknown);
    if (!e) return {};
    std::string out;
    std::set<std::string> seen;
    std::string cur;
    for (char ch : *e + " ") {
      if (ch != ' ' && ch != '(' && ch != ')') {
        cur += ch;
        continue;
      }
      if (!cur.empty() && is_identifier(cur) && !cmake::constant(cur) && seen.insert(cur).second && cur != "AND" &&
          cur != "OR" && cur != "NOT" && cur != "DEFINED") {
        Value v = lookup(cur);
        out += (out.empty() ? "" : ", ") + (v.state == Value::set ? cur + "=" + v.value : cur + " unset");
      }
      cur.clear();
    }
    std::string shown = *e != element ? "; here: " + *e : "";
    return out.empty() ? shown : shown + " (" + out + ")";
  }

  void declare(const cmake::Command& c, bool dependent, Truth st) {
    if (c.args.empty() || (dependent && c.args.size() < 5)) return;
    std::vector<std::string> unknown;
    bool known = true;
    DeclaredOption o;
    o.name = arg_value(c, 0, unknown, known);
    if (!known || !is_identifier(o.name)) return;
    o.help = c.args.size() > 1 ? c.args[1].text : "";
    o.dependent = dependent;
    o.default_text = c.args.size() > 2 ? c.args[2].text : "OFF";
    o.file = current_file_;
    o.line = c.line;
    if (dependent) {
      o.depends = c.args[3].text;
      o.force = c.args[4].text;
    }
    auto existing = option_index(o.name);
    if (existing && (out_.options[*existing].active || st == Truth::no))
      return;  // the first declaration that runs wins

    const Preset* preset = nullptr;
    if (auto it = presets_.find(o.name); it != presets_.end()) preset = &it->second;
    if (st == Truth::no) {
      o.active = false;
      o.on = preset ? preset->on : false;
      o.origin = preset ? preset->origin : OptionOrigin{OptionSource::not_declared, {}};
      o.reason = fmt::format("declared at {}:{} only under {}, which does not hold here", o.file, o.line,
                             guard_text(Truth::no));
      out_.options.push_back(std::move(o));
      return;
    }
    bool default_known = true;
    const std::string def = arg_value(c, 2, o.unknown, default_known);
    o.default_on = c.args.size() > 2 ? default_known && cmake::value_truth(def) : false;
    o.on = preset ? preset->on : o.default_on;
    o.origin = preset ? preset->origin : OptionOrigin{};
    o.reason = preset ? preset->reason : "";
    // option() leaves a variable the checkout already set (a cache FORCE, or a normal variable
    // under CMP0077) as it is.
    if (auto it = vars_.find(o.name); !preset && it != vars_.end() && it->second.state == Value::set) {
      o.on = cmake::value_truth(it->second.value);
      o.origin = {OptionSource::checkout, {}};
      o.reason = fmt::format("{} sets it to {} before this declaration", set_at_[o.name], it->second.value);
    }
    if (!default_known)
      o.reason = fmt::format("its default {} is not known before CMake runs; read as OFF", o.default_text);
    if (dependent) {
      std::string failed;
      auto cond = cmake::evaluate_depends(o.depends, lookup_fn(), &failed);
      for (auto& u : cond.unknown) o.unknown.push_back(u);
      if (cond.truth == Truth::no) {
        bool force_known = true;
        const std::string f = arg_value(c, 4, o.unknown, force_known);
        o.on = force_known && cmake::value_truth(f);
        o.origin = {OptionSource::dependency, {}};
        const std::string trimmed = failed;
        std::string why;
        if (is_identifier(trimmed)) {
          Value v = lookup(trimmed);
          why = v.state == Value::set ? fmt::format("needs {}, which is off", trimmed)
                                      : fmt::format("needs {}, which is not set on this platform", trimmed);
        } else {
          why = fmt::format("needs \"{}\", which does not hold here{}", trimmed, explain(trimmed));
        }
        if (preset && preset->on != o.on)
          why += fmt::format("; CMake overrides {}={} ({})", o.name, preset->on ? 1 : 0, to_string(preset->origin));
        o.reason = why;
      } else if (cond.truth == Truth::unknown) {
        std::string names;
        for (const auto& u : cond.unknown) names += (names.empty() ? "" : ", ") + u;
        o.reason +=
            fmt::format("{}condition \"{}\" reads {}, which kiln cannot know before CMake runs; assumed to hold",
                        o.reason.empty() ? "" : "; ", o.depends, names);
      }
    }
    if (st == Truth::unknown) {
      o.guard = guard_text(Truth::unknown);
      o.reason += fmt::format("{}declared under {}, which kiln cannot decide", o.reason.empty() ? "" : "; ", o.guard);
    }
    vars_[o.name] = Value::of(o.on ? "ON" : "OFF");
    if (existing)
      out_.options[*existing] = std::move(o);
    else
      out_.options.push_back(std::move(o));
  }
};

}  // namespace

CheckoutOptions read_checkout_options(const io::Filesystem& fs, const std::string& dir, const Platform& platform,
                                      const std::map<std::string, Preset>& presets, const EnvLookup& env) {
  return Walker(fs, dir, platform, presets, env).run();
}

}  // namespace kiln::read
