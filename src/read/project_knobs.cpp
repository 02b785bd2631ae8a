#include "read/project_knobs.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <regex>

#include "core/data_toml.hpp"
#include "core/name_table.hpp"
#include "core/text.hpp"
#include "core/torch_index.hpp"
#include "core/version.hpp"

namespace kiln::read {

namespace {

// The one spelling of each origin, as the plan's JSON and text show it.
constexpr core::NameTable<KnobOrigin, 4> kOriginNames{{{{KnobOrigin::none, ""},
                                                        {KnobOrigin::kiln, "kiln"},
                                                        {KnobOrigin::knob_option, "--knob"},
                                                        {KnobOrigin::environment, "environment"}}}};

}  // namespace

std::string_view to_string(KnobOrigin o) { return kOriginNames.name(o, ""); }

std::optional<KnobOrigin> knob_origin_from(std::string_view s) { return kOriginNames.find(s); }

namespace {

constexpr core::NameTable<KnobAction, 6> kActionNames{{{{KnobAction::on, "on"},
                                                        {KnobAction::off, "off"},
                                                        {KnobAction::jobs, "jobs"},
                                                        {KnobAction::threads, "threads"},
                                                        {KnobAction::targets, "targets"},
                                                        {KnobAction::leave, "leave"}}}};

}  // namespace

std::string_view to_string(KnobAction a) { return kActionNames.name(a, "leave"); }

std::optional<KnobAction> knob_action_from(std::string_view s) { return kActionNames.find(s); }
namespace {

using Use = KnobSighting::Use;

struct Role {
  std::string id, reason, spelling;
  KnobAction action = KnobAction::leave;
  std::vector<std::string> names, flags;
  // Effects this role takes whatever the name ("ext:on", "swallow:off", "select", "archs"), and names
  // that must also match for it (a tie between roles of the same effect, broken by name).
  std::vector<std::string> effects, when_named;
};

const std::vector<Role>& roles() {
  static const std::vector<Role> r = [] {
    std::vector<Role> out;
    const toml::table t = data::load_toml("project_knobs.toml");
    if (auto arr = t["role"].as_array())
      for (const auto& node : *arr) {
        const auto* tbl = node.as_table();
        if (!tbl) continue;
        Role role;
        role.id = (*tbl)["id"].value_or(std::string());
        // An action the table misspells leaves the switch alone (a test checks the table's actions).
        role.action = knob_action_from((*tbl)["action"].value_or(std::string("leave"))).value_or(KnobAction::leave);
        role.reason = (*tbl)["reason"].value_or(std::string());
        role.spelling = (*tbl)["spelling"].value_or(std::string());
        for (auto [key, list] : {std::pair{"names", &role.names}, std::pair{"flags", &role.flags},
                                 std::pair{"effects", &role.effects}, std::pair{"when_named", &role.when_named}})
          if (auto a = (*tbl)[key].as_array())
            for (const auto& v : *a) list->push_back(v.value_or(std::string()));
        out.push_back(std::move(role));
      }
    return out;
  }();
  return r;
}

const Role* find_role(const std::string& name, const std::string& flag) {
  for (const auto& r : roles()) {
    if (!flag.empty() && std::find(r.flags.begin(), r.flags.end(), flag) != r.flags.end()) return &r;
    for (const auto& n : r.names)
      if (glob_match(n, name)) return &r;
  }
  return nullptr;
}

const std::vector<std::pair<std::string, std::string>>& opposites() {
  static const std::vector<std::pair<std::string, std::string>> o = {
      {"TRUE", "FALSE"}, {"true", "false"}, {"True", "False"}, {"1", "0"},
      {"ON", "OFF"},     {"on", "off"},     {"yes", "no"},     {"YES", "NO"}};
  return o;
}

std::string opposite(const std::string& v) {
  for (const auto& [on, off] : opposites()) {
    if (v == on) return off;
    if (v == off) return on;
  }
  return {};
}

bool off_looking(const std::string& v) {
  if (v.empty()) return true;
  for (const auto& [on, off] : opposites())
    if (v == off) return true;
  return false;
}

// Effects that open or close a gate of the build (ext, cuda, swallow, select), as against those that
// leave the CUDA build as it is (rocm, subset, flags, metadata) and the architecture list (archs).
bool gating_effect(const std::string& e) { return e == "ext" || e == "cuda" || e == "swallow" || e == "select"; }

// Effects of a switch that kiln sets on or off: the table spells them with :on / :off.
bool switch_effect(const std::string& e) {
  return (gating_effect(e) && e != "select") || e == "backend" || e == "ninja";
}

// The effect a sighting's data flow shows, as the table spells it: "ext:on" (kiln turns the switch
// on for the extensions to be made), "ext:off" (off for them), "swallow:off", "select", "archs";
// "" when setup.py's flow said nothing.
std::string effect_key(const KnobSighting& s) {
  if (!switch_effect(s.effect)) return s.effect;
  // On or off as the switch reads: kiln wanting `== "0"` not to hold turns MMCV_WITH_OPS on.
  const bool on = s.effect_value.empty() ? s.want_match : s.want_match != off_looking(s.effect_value);
  return s.effect + (on ? ":on" : ":off");
}

bool has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// The role from what the switch does: the name's role when it agrees with the effect (the name
// breaks the tie), else the first role that takes the effect. Without an effect, the name's.
const Role* pick_role(const KnobSighting& s) {
  const Role* by_name = find_role(s.name, s.flag);
  const std::string key = effect_key(s);
  // What kiln sets itself (TORCH_CUDA_ARCH_LIST) stays kiln's whatever the project does with it.
  if (key.empty() || (by_name && (has(by_name->effects, key) || by_name->id == knob_roles::kKilnSets))) return by_name;
  // A value kiln sizes from the plan (DeepSpeed's DS_NVCC_THREADS, formatted into --threads=) keeps
  // that role over an effect that only says the value ends in a flag.
  if (by_name && !switch_effect(s.effect) && s.effect != "select" &&
      (by_name->action == KnobAction::jobs || by_name->action == KnobAction::threads))
    return by_name;
  for (const auto& r : roles())
    if (has(r.effects, key) &&
        (r.when_named.empty() ||
         std::any_of(r.when_named.begin(), r.when_named.end(), [&](const auto& n) { return glob_match(n, s.name); })))
      return &r;
  return by_name;
}

// The value that turns a switch on; empty when the text does not say. The literal a switch is
// compared with is its significant value whichever way the code branches (`== "TRUE"` and
// `not in ("1", "true")` both name the on value), unless the literal is itself an off value
// (`!= "0"`), whose opposite is then the on value.
std::string on_value(const KnobSighting& s) {
  switch (s.use) {
    case Use::compare:
      return off_looking(s.true_value) ? opposite(s.true_value) : s.true_value;
    case Use::cmake_option:
      return "ON";
    case Use::cmake_cache:
      for (const auto& c : s.choices)
        if (core::to_lower(c) == "cuda") return c;
      return {};
    default:
      return {};
  }
}

// The value that keeps a switch off: the project's default when it is not the on value, else the
// opposite of the on value.
std::string off_value(const KnobSighting& s) {
  if (s.use == Use::cmake_option) return "OFF";
  if (s.use != Use::compare) return {};
  const std::string on = on_value(s);
  if (s.has_default && !s.default_value.empty() && s.default_value != on) return s.default_value;
  return opposite(on);
}

// The planned targets in the spelling of the project's own default list ("80;90;100" -> "90").
std::string targets_like(const std::string& example, const std::vector<int>& sass) {
  static const std::regex numbers(R"re(^\d+(?:([;, ])\d+)*$)re");
  static const std::regex dotted(R"re(^\d+\.\d+(?:([;, ])\d+\.\d+)*$)re");
  std::smatch m;
  const bool num = std::regex_match(example, m, numbers);
  const bool dot = !num && std::regex_match(example, m, dotted);
  if ((!num && !dot) || sass.empty()) return {};
  const std::string sep = m[1].matched ? std::string(m[1]) : std::string(";");
  std::string out;
  for (int a : sass) out += (out.empty() ? "" : sep) + (num ? std::to_string(a) : fmt::format("{}.{}", a / 10, a % 10));
  return out;
}

// The planned targets in the spelling the project's own code parses (its split, int() of whole
// entries or split("."), a variant letter it reads), else in its default's, else the role's.
std::string arch_value(const KnobSighting& s, const KnobContext& ctx, const std::string& role_spelling) {
  ArchForm form = s.arch.form;
  std::string sep = s.arch.sep;
  if (form == ArchForm::unknown && !s.default_value.empty()) {
    const std::string like = targets_like(s.default_value, {90, 100});
    if (!like.empty()) form = like.find('.') != std::string::npos ? ArchForm::dotted : ArchForm::numbers;
    if (sep.empty() && like.size() > 3) sep = like.substr(like.find_first_of(";, "), 1);
  }
  if (form == ArchForm::unknown)
    form =
        s.arch.dot_dropped || arch_form_from(role_spelling) == ArchForm::dotted ? ArchForm::dotted : ArchForm::numbers;
  if (sep.empty()) sep = ";";
  std::string out;
  for (size_t i = 0; i < ctx.sass.size(); ++i) {
    const int a = ctx.sass[i];
    const std::string suffix = s.arch.suffix && i < ctx.sass_suffix.size() ? ctx.sass_suffix[i] : "";
    out += (out.empty() ? "" : sep) +
           (form == ArchForm::dotted ? fmt::format("{}.{}", a / 10, a % 10) : std::to_string(a)) + suffix;
  }
  return out;
}

// The value an effect asks for: the literal the gate compares with when kiln wants it matched
// (a bare truth test: 1), else the project's default when that does not match, else the
// literal's opposite; "" when only leaving the variable unset keeps it false. A backend picked
// by prefix ("cu") gets torch's CUDA in pip's spelling (cu130), what such projects' READMEs write.
std::string effect_value(const KnobSighting& s, const KnobContext& ctx) {
  if (s.effect == "select" && s.prefix && core::to_lower(s.effect_value) == "cu") {
    std::string digits;
    for (char c : ctx.torch_cuda)
      if (std::isdigit(static_cast<unsigned char>(c))) digits += c;
    return digits.empty() ? "cuda" : "cu" + digits;
  }
  if (s.effect == "select" || s.want_match) return s.effect_value.empty() ? "1" : s.effect_value;
  if (s.effect_value.empty()) return {};
  if (s.has_default && !s.default_value.empty() && core::to_lower(s.default_value) != core::to_lower(s.effect_value) &&
      !(s.prefix && core::to_lower(s.default_value).rfind(core::to_lower(s.effect_value), 0) == 0))
    return s.default_value;
  return opposite(s.effect_value);
}

// What an optional library switch would link, and whether the linker finds it here: kiln leaves the
// project's default either way (a build that links whatever the machine happens to have is not
// one the user asked for), and says how to ask.
std::string library_note(const KnobSighting& s, const KnobContext& ctx) {
  std::vector<std::string> libs;
  for (const auto& l : s.libraries) {
    const auto found = ctx.has_library ? ctx.has_library(l) : std::nullopt;
    libs.push_back("lib" + l + (found ? (*found ? " (found here)" : " (not found here)") : ""));
  }
  return fmt::format("; on, it links {}: --knob {}={} builds with it", fmt::join(libs, ", "), s.name,
                     s.effect_value.empty() ? "1" : s.effect_value);
}

// A switch whose branch only adds some architectures' nvcc code (FlashMLA's FLASH_MLA_DISABLE_SM100):
// that branch taken exactly when one of them is a planned target (the same major: sm_100f's code is
// sm_103's too), so the build compiles the planned targets and no others.
std::string arch_gate_value(const KnobSighting& s, const KnobContext& ctx, Knob& k) {
  if (!ctx.cuda) return {};
  std::vector<std::string> named;
  bool planned = false;
  for (int g : s.gate_archs) {
    named.push_back("sm_" + std::to_string(g));
    for (int a : ctx.sass) planned = planned || a / 10 == g / 10;
  }
  KnobSighting want = s;
  want.want_match = planned ? s.want_match : !s.want_match;
  k.gate_match = want.want_match;
  k.reason += fmt::format("; {} {}", fmt::join(named, ", "),
                          planned ? "is planned: its code stays in" : "is not planned: its code is left out");
  std::string v = effect_value(want, ctx);
  if (v.empty()) k.reason += "; kiln leaves it unset, which does that";
  return v;
}

// A switch whose effect setup.py's data flow shows: its value from that effect, its reason the
// role's with the gate's line. Returns the value kiln sets ("" none).
std::string decide_by_effect(const KnobSighting& s, const Role& role, const KnobContext& ctx, Knob& k) {
  k.effect = s.effect;
  k.gate_at = s.effect_where.empty() ? "" : s.effect_where + " " + s.effect_text;
  k.gate_value = s.effect_value;
  k.gate_match = s.effect == "select" || s.want_match;
  k.gate_prefix = s.prefix;
  k.gate_or_probe = s.or_probe;
  k.gate_before_cuda = s.before_cuda;
  k.reason = role.reason + (k.gate_at.empty() ? "" : " (" + k.gate_at + ")");
  if (s.effect == "library") k.reason += library_note(s, ctx);
  if (role.action == KnobAction::jobs) return std::to_string(ctx.jobs);
  // Extensions built at once multiply the planned jobs: one at a time, as kiln's job plan counts them.
  if (s.effect == "parallel") return "1";
  if (role.action == KnobAction::leave) return {};  // a ROCm-only read, a source filter, flags, metadata
  if (s.effect == "archs") {
    if (!ctx.cuda) return {};
    return arch_value(s, ctx, role.spelling);
  }
  if (s.effect == "archgate") return arch_gate_value(s, ctx, k);
  const bool turns_cuda_on = k.gate_match && s.effect != "swallow" && s.effect != "fatal";
  // The on value is known whether or not kiln sets it: a CUDA-less verdict names it.
  const std::string v = effect_value(s, ctx);
  if (!v.empty()) k.on_value = k.gate_match ? v : s.effect_value;
  if (turns_cuda_on && !ctx.cuda) {
    k.reason = "CUDA is off in this plan; left as it is";
    return {};
  }
  // Another backend's switch the project's default keeps off: nothing to set in a CUDA build.
  if (role.id == knob_roles::kOtherBackend && s.has_default && core::to_lower(v) == core::to_lower(s.default_value))
    return {};
  if (turns_cuda_on && ctx.torch_cpu_only &&
      (s.effect == "cuda" || s.effect == "select" || role.id == knob_roles::kCudaEnable)) {
    k.reason =
        "torch here is a CPU-only build (torch.version.cuda is None): cpp_extension cannot compile CUDA code "
        "against it; left as the project's default (its CPU code)";
    return {};
  }
  if (v.empty()) k.reason += "; kiln leaves it unset, which keeps it off";
  return v;
}

// The value the user or the environment gives a knob, which wins over kiln's.
void apply_choice(Knob& k, const std::string& value, const KnobContext& ctx) {
  if (auto o = ctx.overrides.find(k.name); o != ctx.overrides.end()) {
    k.value = o->second;
    k.origin = KnobOrigin::knob_option;
    k.reason = "given with --knob; kiln would set " + value + " (" + k.reason + ")";
  } else if (auto e = ctx.env ? ctx.env->get(k.name) : std::nullopt; e) {
    k.value = *e;
    k.origin = KnobOrigin::environment;
    k.reason = "already set in the environment, which wins; kiln would set " + value + " (" + k.reason + ")";
  } else if (ctx.no_knobs) {
    k.reason = "--no-knobs: left as the project's default; kiln would set " + value + " (" + k.reason + ")";
  } else {
    k.value = value;
    k.origin = KnobOrigin::kiln;
  }
}

// Whether a torch check holds here: nullopt when a version it compares is unknown.
std::optional<bool> torch_check_holds(const TorchCheck& c, const KnobContext& ctx) {
  for (const auto& cmp : c.all) {
    // "2.11.0+cu130": major 2, minor 11; torch's CUDA "13.0": cuda_major 13.
    using Cmp = TorchCheck::Cmp;
    const core::Version v =
        core::leading_version(cmp.part == Cmp::Part::cuda_major ? ctx.torch_cuda : ctx.torch_version);
    const size_t part = cmp.part == Cmp::Part::minor ? 1 : 0;
    if (v.parts.size() <= part) return std::nullopt;
    const int x = v.parts[part], y = cmp.value;
    bool ok = false;
    switch (cmp.op) {
      case Cmp::Op::eq:
        ok = x == y;
        break;
      case Cmp::Op::ne:
        ok = x != y;
        break;
      case Cmp::Op::lt:
        ok = x < y;
        break;
      case Cmp::Op::le:
        ok = x <= y;
        break;
      case Cmp::Op::gt:
        ok = x > y;
        break;
      case Cmp::Op::ge:
        ok = x >= y;
        break;
      case Cmp::Op::unknown:
        break;
    }
    if (!ok) return false;
  }
  return true;
}

// Why an op cannot build here for the planned targets, or "" when it can.
std::string op_blocker(const OpSwitch& op, const KnobContext& ctx) {
  if (op.cuda && !ctx.cuda) return "a CUDA op and CUDA is off in this plan";
  for (const auto& lib : op.libraries)
    if (ctx.has_library && ctx.has_library(lib) == std::optional<bool>(false))
      return fmt::format("its check ({}) needs lib{}.so, which the linker does not find here; install it", op.checks,
                         lib);
  if (op.cuda && op.min_cc > 0)
    for (int a : ctx.sass)
      if (a < op.min_cc)
        return fmt::format("it accepts compute capability {}.{} and above ({}); sm_{} is planned", op.min_cc / 10,
                           op.min_cc % 10, op.checks, a);
  for (const auto& c : op.torch_checks)
    if (auto holds = torch_check_holds(c, ctx); holds && *holds != c.need)
      return fmt::format("its check {} ({}) rules out the torch here ({}{})", c.where, c.text, ctx.torch_version,
                         ctx.torch_cuda.empty() ? "" : ", CUDA " + ctx.torch_cuda);
  for (const auto& u : op.open) {
    if (!u.module.empty() && u.required && ctx.has_module && ctx.has_module(u.module) == std::optional<bool>(false))
      return fmt::format(
          "its check {} ({}) needs the Python module {}, which the build's interpreter does not find; "
          "install it",
          u.where, u.text, u.module);
    if (!u.folder_var.empty() && ctx.folder_exists && ctx.folder_exists(u.folder_var) == std::optional<bool>(false))
      return fmt::format("its check reads {} ({}), which names no folder here; fix or unset it", u.folder_var, u.where);
  }
  return {};
}

// Whether kiln looked up what an op's open check needs and found it (a module, a folder that is set).
bool open_check_met(const Undecided& u, const KnobContext& ctx) {
  if (!u.module.empty()) return ctx.has_module && ctx.has_module(u.module) == std::optional<bool>(true);
  if (!u.folder_var.empty()) return ctx.folder_exists && ctx.folder_exists(u.folder_var) == std::optional<bool>(true);
  return false;
}

void decide_ops(const ProjectReading& reading, const KnobContext& ctx, KnobPlan& kp) {
  for (const auto& op : reading.ops) {
    auto same = std::find_if(kp.knobs.begin(), kp.knobs.end(), [&](const Knob& k) { return k.name == op.var; });
    if (same != kp.knobs.end()) kp.knobs.erase(same);  // a read of it elsewhere says less than its op
    Knob k;
    k.name = op.var;
    k.role = knob_roles::kOp;
    k.where = op.where;
    k.on_value = "1";
    const std::string blocker = op_blocker(op, ctx);
    k.reason = blocker.empty() ? fmt::format(
                                     "optional op {}: it can build here for the planned targets, so kiln pre-builds "
                                     "it (--knob {}=0 leaves it to be compiled when first used)",
                                     op.name, op.var)
                               : fmt::format("optional op {} left off: {}", op.name, blocker);
    apply_choice(k, blocker.empty() ? "1" : "0", ctx);
    // What kiln could not decide about an op that is on: named with file:line, for the user to check.
    if (k.value == "1") {
      for (const auto& c : op.torch_checks)
        if (!torch_check_holds(c, ctx))
          kp.undecided.push_back(
              fmt::format("{} {}: op {} compares torch's version or its CUDA's, which kiln does not know here", c.where,
                          c.text, op.name));
      for (const auto& u : op.open) {
        if (open_check_met(u, ctx)) continue;
        std::string why = u.why;
        if (!u.module.empty() && ctx.has_module && ctx.has_module(u.module) == std::optional<bool>(false))
          why = "imports " + u.module + ", which the build's interpreter does not find (the op may skip itself)";
        kp.undecided.push_back(fmt::format("{} {}: op {} {}", u.where, u.text, op.name, why));
      }
    }
    kp.knobs.push_back(std::move(k));
  }
}

}  // namespace

bool glob_match(std::string_view p, std::string_view n) {
  // Iterative '*' matching with one backtrack point: enough for name patterns.
  size_t i = 0, j = 0, star = std::string_view::npos, mark = 0;
  while (j < n.size()) {
    if (i < p.size() && p[i] == '*') {
      star = i++;
      mark = j;
    } else if (i < p.size() && p[i] == n[j]) {
      ++i, ++j;
    } else if (star != std::string_view::npos) {
      i = star + 1;
      j = ++mark;
    } else {
      return false;
    }
  }
  while (i < p.size() && p[i] == '*') ++i;
  return i == p.size();
}

namespace {

// Whether a value passes a gate read from setup.py's data flow (a bare truth test: any value).
bool gate_open(const Knob& k, const std::string& seen) {
  const bool matches = k.gate_value.empty() ? !seen.empty()
                       : k.gate_prefix      ? core::to_lower(seen).rfind(core::to_lower(k.gate_value), 0) == 0
                                            : core::to_lower(seen) == core::to_lower(k.gate_value);
  return matches == k.gate_match;
}

}  // namespace

std::string opposite_value(const std::string& v) { return opposite(v); }

bool default_opens_gate(const Knob& k) { return !k.effect.empty() && k.has_default && gate_open(k, k.default_value); }

std::optional<std::string> knob_role(const std::string& name, const std::string& flag) {
  if (const Role* r = find_role(name, flag)) return r->id;
  return std::nullopt;
}

namespace {

// A build opt-in that only adds an extension beside those the project builds anyway (made under no
// switch, or under one that is on in this plan) is an optional part, not the gate of the build:
// left at the project's default, and named. apex 6424da3b (setup.py:165-817): APEX_CPP_EXT and
// APEX_CUDA_EXT make the extensions its README installs; eighteen contrib switches each add one
// more, and with all of them on kiln's build needed an empty submodule (cudnn-frontend) and failed
// on the GPU host. One whose branch holds every extension (ColossalAI's BUILD_EXT) stays on. An
// opt-out compared with a literal is one too (AutoGPTQ 9f7d3707 setup.py:46, :189: DISABLE_QIGEN,
// "1" by default, keeps a C++ extension out beside the CUDA ones); so is a switch on by the
// project's default counted as on (BUILD_CUDA_EXT, "1").
void leave_optional_extensions(std::vector<Knob>& knobs, const std::vector<KnobSighting>& merged) {
  std::vector<std::string> on;  // switches on in this plan (set on, or on by default) that are not opt-ins themselves
  for (const auto& k : knobs)
    if (k.role != knob_roles::kBuildOptIn && ((!k.value.empty() && !k.on_value.empty() && k.value == k.on_value) ||
                                              (k.origin == KnobOrigin::none && default_opens_gate(k))))
      on.push_back(k.name);
  const Role* optional = nullptr;
  for (const auto& r : roles())
    if (r.id == knob_roles::kOptionalExtension) optional = &r;
  if (!optional) return;
  for (auto& k : knobs) {
    const bool opt_out = k.role == knob_roles::kCudaSkip && k.effect == "ext" && !k.gate_value.empty();
    if (k.role != knob_roles::kBuildOptIn && !opt_out) continue;
    auto s = std::find_if(merged.begin(), merged.end(), [&](const KnobSighting& m) { return m.name == k.name; });
    if (s == merged.end()) continue;
    std::vector<std::string> made_by;
    for (const auto& b : s->beside)
      if (b.empty() || std::find(on.begin(), on.end(), b) != on.end()) made_by.push_back(b.empty() ? "no switch" : b);
    if (made_by.empty()) continue;
    k.role = knob_roles::kOptionalExtension;
    // Its value in this build is the project's default: on for gsplat's BUILD_EXPERIMENTAL ("1"), off
    // for apex's contrib switches and for AutoGPTQ's DISABLE_QIGEN ("1", which leaves QIGen out).
    const std::string builds = !k.proposed.empty() ? k.proposed : k.gate_match ? k.on_value : "";
    const std::string off = opposite(builds);
    const std::string left =
        default_opens_gate(k)
            ? fmt::format("{} (the project builds others with {}); on by default ({}={}), so it is built{}",
                          optional->reason, fmt::join(made_by, ", "), k.name, k.default_value,
                          off.empty() ? "" : fmt::format("; --knob {}={} leaves it out", k.name, off))
            : fmt::format("{} (the project builds others with {}); off by default{}{}", optional->reason,
                          fmt::join(made_by, ", "),
                          k.has_default ? fmt::format(" ({}={})", k.name, k.default_value) : "",
                          builds.empty() ? "" : fmt::format("; --knob {}={} builds it", k.name, builds));
    // The user's own value stays, named as theirs; kiln's choice follows it.
    k.reason = k.origin == KnobOrigin::environment ? "already set in the environment, which wins; kiln would leave it "
                                                     "unset: " +
                                                         left
               : k.origin == KnobOrigin::knob_option ? "given with --knob; kiln would leave it unset: " + left
                                                     : left;
    if (k.origin == KnobOrigin::kiln) k.value.clear(), k.origin = KnobOrigin::none;
    k.proposed.clear();
    if (!builds.empty()) k.on_value = builds;  // "on": the extension is built
  }
}

// One entry per name: the sighting that says most (a comparison or a CMake declaration beats a
// read); the GPU probes go to `probes`.
std::vector<KnobSighting> merge_sightings(const std::vector<KnobSighting>& sightings,
                                          std::vector<std::string>& probes) {
  std::vector<KnobSighting> merged;
  for (const auto& s : sightings) {
    if (s.use == Use::probe) {
      probes.push_back(fmt::format("{}:{} {}", s.file, s.line, s.text));
      continue;
    }
    auto it = std::find_if(merged.begin(), merged.end(), [&](const KnobSighting& m) { return m.name == s.name; });
    if (it == merged.end())
      merged.push_back(s);
    else if ((it->use == Use::value && s.use != Use::value && (it->effect.empty() || !s.effect.empty())) ||
             (it->effect.empty() && !s.effect.empty()) ||
             (!it->effect.empty() && !gating_effect(it->effect) && it->effect != "archs" && gating_effect(s.effect)))
      *it = s;  // a comparison beats a read, a read whose effect kiln followed beats both, and a gate
                // beats an effect that leaves the build as it is (mmcv's FORCE_CUDA: flags in one
                // branch, its CUDA gate in another)
    else if (!it->has_default && s.has_default && it->use == s.use)
      it->default_value = s.default_value, it->has_default = true;
  }
  return merged;
}

}  // namespace

KnobPlan decide_knobs(const ProjectReading& reading, const KnobContext& ctx) {
  KnobPlan kp;
  kp.torch_cpu_only = ctx.torch_cpu_only;
  kp.cuda_evidence = reading.cuda_evidence;
  kp.hardcoded_archs = reading.hardcoded_archs;
  kp.cmake_archs = reading.cmake_archs;
  const std::vector<KnobSighting> merged = merge_sightings(reading.sightings, kp.probes);

  for (const auto& s : merged) {
    Knob k;
    k.name = s.name;
    k.where = fmt::format("{}:{}", s.file, s.line);
    k.cmake = s.use == Use::cmake_option || s.use == Use::cmake_cache;
    k.flag = s.flag;
    k.default_value = s.default_value;
    k.has_default = s.has_default;
    const Role* role = pick_role(s);
    std::string value;
    if (role && !s.effect.empty() && role->id != knob_roles::kKilnSets) {
      k.role = role->id;
      value = decide_by_effect(s, *role, ctx, k);
      if (s.has_default && !value.empty() && value == s.default_value) k.reason += " (the project's default already)";
    } else if (!role) {
      // Reads of values (paths, versions) are not switches. Of a CMake project's many options,
      // only those that speak of CUDA or GPUs can be gates worth a word.
      const bool cmake_gate =
          k.cmake && (s.name.find("CUDA") != std::string::npos || s.name.find("GPU") != std::string::npos);
      if (s.use != Use::compare && !cmake_gate) continue;
      k.role = knob_roles::kUnknown;
      k.on_value = on_value(s);
      k.reason = s.flag.empty() ? "a switch kiln cannot classify; left as it is"
                                : "a switch (setup.py " + s.flag + ") kiln cannot classify; left as it is";
    } else {
      k.role = role->id;
      k.reason = role->reason;
      const KnobAction a = role->action;
      if (a == KnobAction::on) {
        k.on_value = on_value(s);
        if (!ctx.cuda)
          k.reason = "CUDA is off in this plan; left as it is";
        else if (ctx.torch_cpu_only && role->id == knob_roles::kCudaEnable)
          k.reason =
              "torch here is a CPU-only build (torch.version.cuda is None): cpp_extension cannot compile CUDA code "
              "against it; left as the project's default (its CPU code)";
        else if (k.on_value.empty())
          k.reason = "a " + role->id + " switch whose 'on' value kiln cannot read; left as it is";
        else
          value = k.on_value;
      } else if (a == KnobAction::off) {
        k.on_value = on_value(s);
        value = off_value(s);
        if (value.empty()) k.reason = "a " + role->id + " switch whose 'off' value kiln cannot read; left as it is";
      } else if (a == KnobAction::jobs) {
        value = std::to_string(ctx.jobs);
      } else if (a == KnobAction::threads) {
        if (ctx.cuda) value = std::to_string(std::max(1, ctx.targets));
      } else if (a == KnobAction::targets) {
        if (ctx.cuda) value = targets_like(s.default_value, ctx.sass);
        if (ctx.cuda && value.empty() && !role->spelling.empty())
          value = targets_like(role->spelling == "dotted" ? "9.0" : "90", ctx.sass);
        if (ctx.cuda && value.empty())
          k.reason =
              "the project's own architecture list, in a spelling kiln cannot read; left as it is (it may override "
              "the planned targets)";
      }
      if (s.has_default && !value.empty() && value == s.default_value && a != KnobAction::jobs &&
          a != KnobAction::threads)
        k.reason += " (the project's default already)";
    }
    k.proposed = value;
    if (auto o = ctx.overrides.find(k.name); o != ctx.overrides.end()) {
      k.value = o->second;
      k.origin = KnobOrigin::knob_option;
      k.reason = "given with --knob";
    } else if (auto e = ctx.env ? ctx.env->get(k.name) : std::nullopt; e && !k.cmake) {
      k.value = *e;
      k.origin = KnobOrigin::environment;
      k.reason =
          "already set in the environment, which wins" + (value.empty() ? std::string() : "; kiln would set " + value);
    } else if (!value.empty() && ctx.no_knobs) {
      k.reason = "--no-knobs: left as the project's default; kiln would set " + value;
    } else if (!value.empty()) {
      k.value = value;
      k.origin = KnobOrigin::kiln;
    }
    kp.knobs.push_back(std::move(k));
  }
  leave_optional_extensions(kp.knobs, merged);
  decide_ops(reading, ctx, kp);
  for (const auto& u : reading.undecided)
    kp.undecided.push_back(u.where + (u.text.empty() ? "" : " " + u.text) + ": " + u.why);
  kp.reader = reading.reader;
  for (const auto& [name, v] : ctx.overrides) {
    // By name, not [&]: clang 14 cannot capture a structured binding (the fuzz build uses clang).
    if (std::any_of(kp.knobs.begin(), kp.knobs.end(), [&n = name](const Knob& k) { return k.name == n; })) continue;
    Knob k;
    k.name = name;
    k.value = v;
    k.origin = KnobOrigin::knob_option;
    k.role = knob_role(name).value_or("unknown");
    k.reason = "given with --knob (kiln did not see the project read it)";
    kp.knobs.push_back(std::move(k));
  }
  return kp;
}

namespace {

// The value a knob had in the build and where it came from.
std::pair<std::string, std::string> seen_value(const Knob& k, const io::Environment& env) {
  if (k.sets() || k.origin == KnobOrigin::environment)
    return {k.value, k.origin == KnobOrigin::kiln          ? "set by kiln"
                     : k.origin == KnobOrigin::knob_option ? "from --knob"
                                                           : "from the environment"};
  if (auto e = env.get(k.name); e && !k.cmake) return {*e, "from the environment"};
  return {k.has_default ? k.default_value : "", k.has_default ? "the project's default" : "unset"};
}

// Why kiln left a switch it would turn on (--no-knobs, CUDA off in the plan, ...), as the plan said.
std::string left_because(const Knob& k, bool would_set) {
  if (k.origin != KnobOrigin::none || !would_set) return "";
  return k.reason.empty() ? " (kiln sets it unless --no-knobs)" : " (kiln left it: " + k.reason + ")";
}

// One false gate of a knob whose effect kiln followed, or "" when it was open.
std::string effect_gate_reason(const Knob& k, const io::Environment& env) {
  auto [seen, how] = seen_value(k, env);
  const std::string fix = k.proposed.empty() ? (k.gate_match ? k.gate_value : "") : k.proposed;
  if (k.effect == "swallow") {
    if (gate_open(k, seen)) return {};
    return fmt::format(
        "{} was '{}' ({}, {}): the project swallows a failed build of its extension ({}), so the compile may "
        "have failed and been skipped; --knob {}={} makes it fail loudly with the compiler's error",
        k.name, seen, how, k.where, k.gate_at, k.name, fix.empty() ? "<off>" : fix);
  }
  if (gate_open(k, seen)) return {};
  // A CMake option's CUDA branch compiles CUDA code, no extension of cpp_extension's.
  const std::string what = (k.effect == "cuda" && k.cmake) || k.effect == "backend" ? "compiles its CUDA code"
                           : k.effect == "cuda"   ? "compiles its CUDA extension (not the C++ one)"
                           : k.effect == "select" ? "picks its CUDA backend"
                                                  : "makes its extensions";
  const std::string knob = fix.empty() ? "unset " + k.name : "--knob " + k.name + "=" + fix;
  return fmt::format("{} was '{}' ({}, {}): the project {} only {} ({}); {}{}", k.cmake ? "-D" + k.name : k.name, seen,
                     how, k.where, what, fix.empty() ? "with it unset" : "with " + k.name + "=" + fix, k.gate_at, knob,
                     left_because(k, !fix.empty()));
}

// A gate kiln knows by the switch's role alone (a CMake option, a name in the table).
std::string role_gate_reason(const Knob& k, const KnobPlan& kp, const io::Environment& env,
                             const BuildMachine& machine) {
  auto [seen, how] = seen_value(k, env);
  const bool on = !k.on_value.empty() && core::to_lower(seen) == core::to_lower(k.on_value);
  const std::string where = k.cmake ? "-D" + k.name : k.name;
  if (k.role == knob_roles::kCudaEnable && !on && kp.torch_cpu_only && k.origin == KnobOrigin::none)
    return fmt::format(
        "{} was '{}' ({}, {}): kiln did not set {}={} because torch here is a CPU-only build (torch.version.cuda "
        "is None), against which cpp_extension cannot compile CUDA code; install a CUDA build of torch ({}), or "
        "build the CPU code alone with --profile cpu",
        where, seen, how, k.where, k.name, k.on_value.empty() ? "<its on value>" : k.on_value,
        core::cuda_torch_install(machine.nvcc_version));
  if (k.role == knob_roles::kCudaEnable && !on)
    return fmt::format("{} was '{}' ({}, {}): the CUDA code is compiled only with {}={}; --knob {}={}{}", where, seen,
                       how, k.where, k.name, k.on_value.empty() ? "<its on value>" : k.on_value, k.name,
                       k.on_value.empty() ? "<its on value>" : k.on_value, left_because(k, true));
  if (k.role == knob_roles::kCudaSkip && on)
    return fmt::format("{} was '{}' ({}, {}): it skips the CUDA build; unset it", where, seen, how, k.where);
  return {};
}

}  // namespace

std::string cuda_gate_reason(const KnobPlan& kp, const io::Environment& env, const BuildMachine& machine) {
  std::vector<std::string> parts;
  for (const auto& k : kp.knobs) {
    // A CUDA switch left off for a CPU-only torch is explained by that torch, whatever its effect.
    const bool cpu_torch = kp.torch_cpu_only && k.role == knob_roles::kCudaEnable && k.origin == KnobOrigin::none;
    // `torch.cuda.is_available() or FORCE_CUDA`: with the GPU kiln sees here, the switch was not needed.
    if (k.gate_or_probe && !kp.torch_cpu_only && machine.gpu_seen == std::optional<bool>(true)) continue;
    std::string part = !cpu_torch && (gating_effect(k.effect) || (k.effect == "backend" && k.gate_before_cuda))
                           ? effect_gate_reason(k, env)
                       : k.role == knob_roles::kCudaEnable || k.role == knob_roles::kCudaSkip
                           ? role_gate_reason(k, kp, env, machine)
                           : std::string();
    if (!part.empty()) parts.push_back(std::move(part));
  }
  // The GPU probe was false only where torch saw no GPU: never blamed on a machine whose GPU kiln saw.
  for (const auto& p : kp.probes) {
    if (kp.torch_cpu_only)
      parts.push_back("the project compiles CUDA only where torch sees a GPU (" + p +
                      "), which a CPU-only torch never does: install a CUDA build of torch (" +
                      core::cuda_torch_install(machine.nvcc_version) + ")");
    else if (machine.gpu_seen != std::optional<bool>(true))
      parts.push_back("the project compiles CUDA only where torch sees a GPU (" + p + "), and " +
                      (machine.gpu_seen ? std::string("this machine has none") : std::string("kiln cannot tell")) +
                      "; build on a machine with a GPU, or set the project's force switch if it has one");
  }
  if (parts.empty() && !kp.probes.empty() && machine.gpu_seen == std::optional<bool>(true))
    parts.push_back("the GPU probe (" + kp.probes.front() + ") was true here (" +
                    (machine.gpu_name.empty() ? std::string("a GPU") : machine.gpu_name) +
                    " is on this machine) and kiln found no switch that was off; read the log for what the build "
                    "skipped");
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

std::string extension_gate_reason(const KnobPlan& kp, const io::Environment& env) {
  std::vector<std::string> parts, unset;
  for (const auto& k : kp.knobs) {
    if (k.effect == "ext") {
      if (auto part = effect_gate_reason(k, env); !part.empty()) parts.push_back(std::move(part));
    } else if (k.role == knob_roles::kCppEnable) {
      auto [seen, how] = seen_value(k, env);
      if (!k.on_value.empty() && core::to_lower(seen) != core::to_lower(k.on_value))
        parts.push_back(fmt::format("{} was '{}' ({}, {}): the C++ code is compiled only with {}={}; --knob {}={}",
                                    k.name, seen, how, k.where, k.name, k.on_value, k.name, k.on_value));
    } else if (k.origin == KnobOrigin::none && (k.role == knob_roles::kUnknown || k.gate()) &&
               seen_value(k, env).first.empty()) {
      unset.push_back(k.name + (k.where.empty() ? "" : " (" + k.where + ")"));
    }
  }
  // No gate kiln followed was closed: the switches the project reads that nothing set are the
  // likely ones (a switch whose effect kiln could not read).
  if (parts.empty() && !unset.empty()) {
    std::string names;
    for (const auto& u : unset) names += (names.empty() ? "" : ", ") + u;
    parts.push_back(fmt::format(
        "the project reads {}, left unset: if one of them turns the extension on, set it with --knob NAME=VALUE",
        names));
  }
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

}  // namespace kiln::read
