#pragma once
// What kiln does with each knob a project's build files read (project_knobs_read.hpp): set it so the
// planned targets are compiled from source, keep it off, size it from the plan, or leave it, each
// with its reason, by the roles in data/project_knobs.toml. The user's --knob and the environment
// already set win; --no-knobs sets nothing. A switch in no role is reported, not guessed.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/environment.hpp"
#include "read/project_knobs_read.hpp"

namespace kiln::read {

// Who set a knob's value. Serialised only through to_string (plan JSON "origin", null for none).
enum class KnobOrigin {
  none,         // left as the project's default
  kiln,         // kiln decided it
  knob_option,  // the user's --knob
  environment,  // already set in the environment, which wins
};
std::string_view to_string(KnobOrigin o);                        // "", "kiln", "--knob", "environment"
std::optional<KnobOrigin> knob_origin_from(std::string_view s);  // to_string's inverse
inline constexpr KnobOrigin kKnobOrigins[] = {KnobOrigin::none, KnobOrigin::kiln, KnobOrigin::knob_option,
                                              KnobOrigin::environment};

// Role ids are data: data/project_knobs.toml names them and the plan prints them. The few that C++
// decides on are named here once (a test checks each is a role of the table); "op" and "unknown" are
// kiln's own, for an op-builder's op and a switch in no role.
namespace knob_roles {
inline constexpr std::string_view kForceBuild = "force-build", kCudaEnable = "cuda-enable", kCudaSkip = "cuda-skip",
                                  kCppEnable = "cpp-enable", kUnrelated = "unrelated", kKilnSets = "kiln-sets",
                                  kArchList = "arch-list", kBuildOptIn = "build-opt-in",
                                  kOptionalExtension = "optional-extension", kOtherBackend = "other-backend",
                                  kOptionalLibrary = "optional-library", kPackaging = "packaging";
inline constexpr std::string_view kFromTable[] = {kForceBuild,        kCudaEnable,   kCudaSkip,        kCppEnable,
                                                  kUnrelated,         kKilnSets,     kArchList,        kBuildOptIn,
                                                  kOptionalExtension, kOtherBackend, kOptionalLibrary, kPackaging};
inline constexpr std::string_view kOp = "op", kUnknown = "unknown";
}  // namespace knob_roles

// What kiln does with a switch of a role: a role's `action` in data/project_knobs.toml (its header
// says what each does). Read from the table through knob_action_from only.
enum class KnobAction { on, off, jobs, threads, targets, leave };
std::string_view to_string(KnobAction a);
std::optional<KnobAction> knob_action_from(std::string_view s);
inline constexpr KnobAction kKnobActions[] = {KnobAction::on,      KnobAction::off,     KnobAction::jobs,
                                              KnobAction::threads, KnobAction::targets, KnobAction::leave};

struct Knob {
  std::string name;
  std::string role;   // a role id from data/project_knobs.toml, or "unknown"
  std::string value;  // what the build gets; empty with origin none when nothing is set
  KnobOrigin origin = KnobOrigin::none;
  std::string reason;
  std::string where;     // setup.py:43
  std::string on_value;  // the value that turns a gate (enable/skip/force-build) true, when known
  std::string default_value;
  bool has_default = false;
  bool cmake = false;  // a CMake cache entry (-D), not an environment variable
  std::string flag;    // setup.py flag it becomes
  // What the switch controls, from setup.py's data flow (KnobSighting::effect): the gate kiln read
  // it from, the value it compares with and whether kiln wants that value matched.
  std::string effect;
  std::string gate_at;  // "setup.py:13 if not SKIP_CUDA_BUILD:"
  std::string gate_value;
  bool gate_match = false;
  bool gate_prefix = false;
  bool gate_or_probe = false;     // `torch.cuda.is_available() or <this>`: open where torch sees a GPU
  bool gate_before_cuda = false;  // effect "backend": on, it takes its arm instead of the CUDA one
  std::string proposed;           // the value kiln decided, whoever set the value the build gets

  bool sets() const { return origin == KnobOrigin::kiln || origin == KnobOrigin::knob_option; }
  bool gate() const {
    using namespace knob_roles;
    return role == kForceBuild || role == kCudaEnable || role == kCudaSkip || role == kCppEnable ||
           (effect == "ext" && role != kOptionalExtension) || effect == "cuda" || effect == "select";
  }
};

struct KnobContext {
  bool cuda = true;       // the plan compiles CUDA code
  bool no_knobs = false;  // --no-knobs
  int jobs = 1;
  int targets = 1;                               // number of planned targets
  std::vector<int> sass;                         // planned SASS architectures (90, 100)
  std::vector<std::string> sass_suffix;          // each one's variant ("", "a", "f"), when known
  std::map<std::string, std::string> overrides;  // --knob NAME=VALUE
  const io::Environment* env = nullptr;          // what is already set wins
  // Whether the linker finds lib<name>.so here (an op's is_compatible checks); nullopt: cannot tell.
  std::function<std::optional<bool>(const std::string& name)> has_library;
  // Whether the build's interpreter finds a Python module an op's check imports (triton), without
  // importing it; nullopt: cannot tell.
  std::function<std::optional<bool>(const std::string& module)> has_module;
  // Whether a folder variable an op's check reads (CUTLASS_PATH) names a folder here; nullopt when
  // it is unset (the project may look elsewhere).
  std::function<std::optional<bool>(const std::string& var)> folder_exists;
  // The torch the build uses ("2.11.0+cu130") and its CUDA ("13.0"); "" when unknown: an op's
  // torch-version checks are then named, not decided.
  std::string torch_version, torch_cuda;
  // torch's version.py read, with no CUDA (torch.version.cuda None): cpp_extension cannot compile
  // CUDA code against it, so the project's CUDA switch is left as it is.
  bool torch_cpu_only = false;
};

struct KnobPlan {
  std::vector<Knob> knobs;          // in the order the project reads them; one per name
  std::vector<std::string> probes;  // "setup.py:18 if torch.cuda.is_available():"
  std::string cuda_evidence;
  std::string hardcoded_archs;         // setup.py's own -gencode flags (see project_knobs_read.hpp)
  std::string cmake_archs;             // CMakeLists.txt's own CUDA_ARCHITECTURES (see project_knobs_read.hpp)
  std::vector<std::string> undecided;  // "setup.py:154 <text>: why kiln cannot read it statically"
  std::string reader;                  // how setup.py was read (project_knobs_read.hpp)
  bool torch_cpu_only = false;         // the build's torch is a CPU build: CUDA switches were left
};

// The role a variable name (or setup.py flag) has in data/project_knobs.toml, if any.
std::optional<std::string> knob_role(const std::string& name, const std::string& flag = "");
bool glob_match(std::string_view pattern, std::string_view name);  // '*' matches any run

// The other spelling of a switch value ("1" <-> "0", "ON" <-> "OFF", "true" <-> "false"), "" if none.
std::string opposite_value(const std::string& v);

// Whether the project's own default passes the gate kiln followed for a knob: an optional extension
// left at its default is then built (gsplat's BUILD_EXPERIMENTAL, "1" unless set).
bool default_opens_gate(const Knob& k);

// An op-builder project's ops (role knob_roles::kOp): each one that can build here for the planned targets is
// turned on (its BUILD_VAR set to 1), the others set to 0 with why (a library the linker does not
// find, an architecture below what the op accepts); --knob and the environment win.
KnobPlan decide_knobs(const ProjectReading& reading, const KnobContext& ctx);

// What kiln knows about the machine the build ran on, so that a reason never contradicts it.
struct BuildMachine {
  std::optional<bool> gpu_seen;  // a GPU the driver lists (nvidia-smi); nullopt when kiln cannot tell
  std::string gpu_name;          // its name, for the message
  std::string nvcc_version;      // the nvcc the build used ("12.4.131"): the CUDA torch to install
};

// Why a CUDA project built no CUDA code: the gates that were false in this build, each with the
// value the build saw, the gate's line and the --knob that opens it. A GPU probe is named only
// when the build's machine has no GPU (or a CPU-only torch). Empty when kiln knows no false gate.
std::string cuda_gate_reason(const KnobPlan& kp, const io::Environment& env, const BuildMachine& machine = {});

// Why a project with C/C++/CUDA sources made no extension at all (ext_modules empty): the switches
// that decide whether any extension is made and were off in this build, each with the value seen and
// the --knob that turns it on; else the switches it reads that nothing set. Empty when it reads none.
std::string extension_gate_reason(const KnobPlan& kp, const io::Environment& env);

}  // namespace kiln::read
