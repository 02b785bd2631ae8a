#pragma once
// Reading a project's build files for the switches that steer its build: environment variables
// setup.py compares or reads, environment variables turned into setup.py flags, CMake options and
// cache entries, and the GPU probe that gates CUDA on "torch sees a GPU". Read as text, never run:
// planning must not execute a project's code. What each one means is decided elsewhere
// (project_knobs.hpp, data/project_knobs.toml).
#include <string>
#include <string_view>
#include <vector>

#include <tl/expected.hpp>

#include "io/fs.hpp"

namespace kiln::read {

// How a project's code reads the entries of its architecture list: int() of each ("90"), or
// split(".") ("9.0"); unknown when the reader could not tell.
enum class ArchForm { unknown, numbers, dotted };
ArchForm arch_form_from(std::string_view word);  // "numbers", "dotted", else unknown

struct KnobSighting {
  enum class Use {
    compare,       // os.getenv("X", "FALSE") == "TRUE", .lower() in ("1", "true"): a switch
    value,         // os.getenv("X") or "4", os.environ["X"], $ENV{X}: a value read
    cmake_option,  // option(X "..." OFF)
    cmake_cache,   // set(X "cpu" CACHE STRING ...), with STRINGS choices when declared
    probe,         // torch.cuda.is_available(): CUDA only where torch sees a GPU; no name
  };
  Use use = Use::compare;
  std::string name;           // variable; empty for a probe
  std::string file;           // setup.py, CMakeLists.txt, pyproject.toml
  int line = 0;               // 1-based
  std::string text;           // the line, trimmed
  std::string default_value;  // what the project assumes when it is unset ("" when none is written)
  bool has_default = false;
  std::string true_value;            // compare: the value that makes the switch true
  bool negated = false;              // compare with != / not in: true for every value but true_value
  std::string flag;                  // setup.py flag the variable becomes (--cuda_ext), if any
  std::vector<std::string> choices;  // cmake_cache: the STRINGS property
  // What the switch controls, read from the data flow of setup.py (data/read_setup.py's Effects),
  // not from its name: "ext" (whether extensions are made or handed to setup()), "cuda" (CUDA or
  // C++ extension), "swallow" (whether a failed build is swallowed), "select" (a backend picked
  // among literals), "archs" (a list that becomes -gencode / CUDA_ARCHITECTURES), "backend" (it
  // takes another backend's arm of the chain that builds CUDA's), "unreached" (read only where a
  // CUDA build never goes), "library" (it links optional libraries), "path" (a folder put on the
  // include or library path), "jobs" (a job count: -j), "parallel" (build_ext's parallel: extensions
  // built at once), "ninja" (it turns Ninja off), "archgate"
  // (its branch only adds one architecture's nvcc code: gate_archs), or those data/project_knobs.toml
  // lists (rocm, subset, flags, metadata, packaging); "" when none was followed.
  std::string effect;
  bool want_match = false;   // kiln wants the value to match effect_value (else not to)
  std::string effect_value;  // the literal the gate compares with (select: the CUDA backend's)
  bool prefix = false;       // the gate is value.startswith(effect_value)
  bool or_probe = false;     // the gate is `torch.cuda.is_available() or <this>`: open where torch sees a GPU
  std::string effect_where;  // the gate's file:line, and its text
  std::string effect_text;
  // For an "ext" switch kiln turns on: the switches that decide the extensions made outside its
  // branch ("" for one made under none); empty when its branch holds every extension.
  std::vector<std::string> beside;
  bool before_cuda = false;            // "backend": its arm comes before the CUDA arm (taking it skips CUDA)
  std::vector<std::string> libraries;  // "library": what it links (metis)
  // "archgate": the architectures (90, 100) whose code the branch adds; want_match says whether that
  // branch is taken when the value matches effect_value, and kiln takes it only for planned ones.
  std::vector<int> gate_archs;
  struct ArchSpelling {
    std::string reach;  // nvcc, cmake or torch
    std::string sep;    // ";", "," or " " (what its code splits on), "" unknown
    ArchForm form = ArchForm::unknown;
    bool dot_dropped = false;  // its code removes "." itself: both spellings read
    bool suffix = false;       // its code reads a variant letter (9.0a)
  } arch;
};

// A pre-built op of an op-builder project (DeepSpeed's pattern): a class with BUILD_VAR.
// A comparison of torch's version in an op's is_compatible: every `all` entry holding is what the
// op needs (`need` true) or what rules it out (`need` false).
struct TorchCheck {
  struct Cmp {
    enum class Part { major, minor, cuda_major } part = Part::minor;     // of torch's version, or of its CUDA's
    enum class Op { eq, ne, lt, le, gt, ge, unknown } op = Op::unknown;  // Python's ast Eq, NotEq, Lt, LtE, Gt, GtE
    int value = 0;
    // From the reader's words (data/read_setup.py): a part it does not name reads as the minor, an
    // operator it does not name never holds.
    static Cmp from(std::string_view part, std::string_view op, int value);
  };
  std::vector<Cmp> all;
  bool need = true;
  std::string where, text;
};

struct Undecided {
  std::string where, text, why;
  // An op check's need kiln can look up (an op's `open` entries): a Python module it imports
  // (`required`: is_compatible fails without it) or a folder variable it reads (CUTLASS_PATH).
  std::string module, folder_var;
  bool required = false;
};

struct OpSwitch {
  std::string name;                      // fused_adam
  std::string var;                       // DS_BUILD_FUSED_ADAM
  std::string where;                     // op_builder/fused_adam.py:12 (the BUILD_VAR line)
  std::string checks;                    // where its is_compatible is, or ""
  bool cuda = false;                     // its class chain is a CUDA builder
  std::vector<std::string> libraries;    // linked libraries its is_compatible checks for (aio)
  int min_cc = 0;                        // the lowest compute capability it accepts (70), 0 when it does not say
  std::vector<TorchCheck> torch_checks;  // torch version comparisons its is_compatible makes
  std::vector<Undecided> open;           // other checks (a folder variable, an import), named only
};

// A project's own parser of TORCH_CUDA_ARCH_LIST (DeepSpeed's op_builder/builder.py): the value is
// split and parts of each entry go through int(), which fails on 9.0a or 10.0f.
struct ArchParser {
  std::string var;                 // TORCH_CUDA_ARCH_LIST
  std::string read;                // op_builder/builder.py:714, where it is read
  std::vector<std::string> sites;  // op_builder/builder.py:742, each int() of a part
  std::string text;                // the last site's line
  bool plus_ok = false;            // it cuts "+PTX" off before int() (part.split('+')[0])
  // Every int() cuts the variant letters off first or is guarded (t.isdigit() and int(t)): 90a is read.
  bool suffix_ok = false;
};

// What data/read_setup.py found (setup_py_ast.hpp runs it).
struct SetupPyReading {
  std::vector<KnobSighting> sightings;  // probes included (Use::probe)
  std::vector<OpSwitch> ops;
  std::vector<std::string> extensions;  // "op_builder/builder.py:829 CUDAExtension"
  std::vector<Undecided> undecided;
  std::vector<ArchParser> arch_parsers;
  std::vector<Undecided> build_options;  // setup.cfg's [build_ext]/[build] options that change the build
  std::vector<std::string> files;        // setup.py and the modules followed
  std::string cuda_evidence, hardcoded_archs, calls_cmake;
  // torch versions setup.py checks in code and stops on (an assert, an if that raises): where
  // ("setup.py:36") and the specifier the version must meet (">=2.5.1,<=2.12.1").
  struct TorchCheck {
    std::string where, specifier;
  };
  std::vector<TorchCheck> torch_checks;
};

struct ProjectReading {
  std::vector<KnobSighting> sightings;  // in file order; a name may appear more than once
  std::string cuda_evidence;         // where the project shows it has CUDA code ("setup.py:136 CUDAExtension"), or ""
  std::string hardcoded_archs;       // where setup.py writes its own -gencode / arch=compute_XX flags, or ""
  std::string cmake_archs;           // where CMakeLists.txt sets its own CUDA_ARCHITECTURES, or ""
  std::vector<OpSwitch> ops;         // an op-builder project's optional ops (setup_py_ast.hpp)
  std::vector<Undecided> undecided;  // what could not be read statically, with file:line
  std::string calls_cmake;           // where setup.py runs CMake itself, or ""
  std::string reader;                // how setup.py was read: "Python's ast (3 files)", "line patterns (why)"
};

std::vector<KnobSighting> read_setup_py(std::string_view text, const std::string& file = "setup.py");
std::vector<KnobSighting> read_cmakelists(std::string_view text, const std::string& file = "CMakeLists.txt");
// [tool.scikit-build] cmake.define / cmake.args entries (-DX=Y) and [tool.*.env] tables.
std::vector<KnobSighting> read_pyproject(std::string_view text, const std::string& file = "pyproject.toml");
// The first line that shows CUDA code will be compiled: CUDAExtension / .cu sources in setup.py,
// LANGUAGES CUDA / enable_language(CUDA) / .cu in CMakeLists.txt.
std::string cuda_evidence(std::string_view text, const std::string& file);
// The first line that hard-codes nvcc architecture flags (arch=compute_90, -gencode, --generate-code),
// which torch passes to nvcc beside TORCH_CUDA_ARCH_LIST's: "setup.py:99 cc_flag.append(...)".
std::string hardcoded_archs(std::string_view text, const std::string& file);

// The first line of a CMakeLists.txt that sets architectures of its own, which beat the
// -DCMAKE_CUDA_ARCHITECTURES kiln passes: a CUDA_ARCHITECTURES target property
// (set_target_properties(k PROPERTIES CUDA_ARCHITECTURES 75-real)) or a plain
// set(CMAKE_CUDA_ARCHITECTURES ...), whose normal variable hides the cache entry.
std::string cmake_arch_override(std::string_view text, const std::string& file);

// The files that drive the build kiln runs: setup.py (and the modules it imports, through
// `setup`, the ast reading of setup_py_ast.hpp; without one, or when it failed, line patterns) and
// pyproject.toml for a Python build (`cmake_project` false), CMakeLists.txt (with the folders it
// adds) and pyproject.toml's CMake defines for a CMake project and for a pip build that runs CMake.
// CUDA evidence comes from whichever of setup.py and CMakeLists.txt shows it first.
ProjectReading read_project(const io::Filesystem& fs, const std::string& dir, bool cmake_project,
                            const tl::expected<SetupPyReading, std::string>* setup = nullptr);

}  // namespace kiln::read
