# kiln's reader of a project's setup.py and the project's own modules it imports: parsed with
# Python's ast module, never imported or run. Embedded in kiln (cmake/embed_data.cmake) and run by
# the project's interpreter as `python -I -S -c <this> DIR`; prints one JSON object that kiln's C++
# side (src/read/setup_py_ast.cpp) decides on. What cannot be read statically is listed under
# "undecided" with file:line, never guessed. Written for Python 3.8+ (ast.Constant, no ast.unparse).
# One class per concern: the files (Project), environment reads (EnvReads), where names are read and
# functions called (Index), what an if's branches do to the extensions (Branches), code only a ROCm
# torch reaches (RocmGuards), an architecture list's flow to the compiler (ArchFlow), what each read
# controls (Effects, deciding from those four), the project's parsers of an architecture list
# (ArchParsers), what the build makes (BuildFacts), op builders (OpBuilders), setup.cfg (SetupCfg) and
# the switches that only package the results (Packaging, after Effects);
# Reader runs them in order.
import ast
import json
import os
import re
import signal
import sys

MAX_FILES = 300  # modules followed, at most
MAX_DEPTH = 2  # setup.py is 0, what it imports 1, what those import 2; switches are read to depth 1
MAX_BYTES = 2000000  # a bigger file is not a build script
TRUTH_WRAPPERS = {"int", "bool", "strtobool", "str2bool", "float"}
CASE_METHODS = {"lower", "upper", "strip", "casefold"}
# setuptools' own build / build_ext options (setup.cfg) that change what or how the build compiles.
CFG_BUILD_OPTIONS = {
    "parallel": "setuptools builds %(value)s extensions at once, each with its own MAX_JOBS compile jobs: "
                "up to that many times the planned jobs run together",
    "inplace": "the built extensions are also copied into the source tree, where an import of the project "
               "finds them before the installed ones",
    "debug": "extensions are compiled with debug information (a bigger, slower build)",
    "force": "every extension is rebuilt each time, whatever is up to date: incremental builds recompile all",
    "define": "defines %(value)s for every extension's compiles",
    "undef": "undefines %(value)s for every extension's compiles",
    "include_dirs": "adds %(value)s to every extension's include path",
    "libraries": "links %(value)s into every extension",
    "library_dirs": "adds %(value)s to every extension's library path",
    "compiler": "asks for compiler type %(value)s",
    "build_temp": "object files go to %(value)s instead of setuptools' build folder",
    "plat_name": "builds for platform %(value)s",
}
EXT_CALLS = ("CUDAExtension", "CppExtension", "Extension", "Pybind11Extension", "CMakeExtension", "SYCLExtension")


def dotted(node):
    """'os.environ.get' for an attribute chain of names, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def const_str(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, int, bool)):
        v = node.value
        return ("1" if v else "0") if isinstance(v, bool) else str(v)
    return None


class Module:
    def __init__(self, path, rel, tree, lines):
        self.path, self.rel, self.tree, self.lines = path, rel, tree, lines
        self.nodes = list(ast.walk(tree))  # walked once: every scan below reads this list
        self.parent = {}
        self.compares = {}  # VAR -> [Compare nodes with VAR on the left]
        for n in self.nodes:
            for c in ast.iter_child_nodes(n):
                self.parent[c] = n
            if isinstance(n, ast.Compare) and isinstance(n.left, ast.Name):
                self.compares.setdefault(n.left.id, []).append(n)
        # Module-level NAME = "constant": what f-strings and defaults refer to.
        self.consts = {}
        for st in tree.body:
            if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
                v = const_str(st.value)
                if v is not None:
                    self.consts[st.targets[0].id] = v

    def text(self, line):
        return self.lines[line - 1].strip() if 0 < line <= len(self.lines) else ""

    def where(self, node):
        return "%s:%d" % (self.rel, node.lineno)


def enclosing_function(node, m):
    up = m.parent.get(node)
    while up is not None and not isinstance(up, (ast.FunctionDef, ast.AsyncFunctionDef)):
        up = m.parent.get(up)
    return up


def environ_key(target):
    """KEY of an assignment target os.environ["KEY"], else None."""
    if isinstance(target, ast.Subscript) and dotted(target.value) in ("os.environ", "environ"):
        return const_str(target.slice.value if isinstance(target.slice, ast.Index) else target.slice)
    return None


def under_test_of(m, node, key):
    """Whether node sits under an if (or conditional expression) whose test names the string key:
    `if os.getenv("KEY") is None:`, code that runs only where the variable is unset or checked."""
    up = m.parent.get(node)
    while up is not None:
        if isinstance(up, (ast.If, ast.IfExp, ast.While)) and any(
                isinstance(x, ast.Constant) and x.value == key for x in ast.walk(up.test)):
            return True
        up = m.parent.get(up)
    return False


def call_name(node):
    """f for f(...) and x.f(...), else None."""
    if not isinstance(node, ast.Call):
        return None
    return node.func.id if isinstance(node.func, ast.Name) else node.func.attr if isinstance(node.func, ast.Attribute) else None


class Project:
    """The files read: setup.py and the project's own modules it imports (a path under its folder),
    and what every other concern shares: the modules, their functions by name, the JSON out."""

    def __init__(self, root):
        self.root = root
        self.modules = []
        self.seen = set()
        self.by_path = {}
        self.fns = {}  # function name -> [(module, FunctionDef)], filled once every file is loaded
        self.out = {"version": 1, "files": [], "sightings": [], "probes": [], "ops": [], "extensions": [],
                    "cuda_evidence": "", "hardcoded_archs": "", "calls_cmake": "", "undecided": [],
                    "arch_parsers": [], "build_options": [], "torch_checks": []}

    def undecided(self, m, node, why):
        self.out["undecided"].append({"where": m.where(node), "text": m.text(node.lineno), "why": why})

    def index_functions(self):
        for m in self.modules:
            for n in m.nodes:
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    self.fns.setdefault(n.name, []).append((m, n))

    def load(self, path, depth=0):
        path = os.path.normpath(path)
        if path in self.by_path:  # reached again, maybe nearer setup.py than the first time
            self.by_path[path].depth = min(self.by_path[path].depth, depth)
            return None
        if depth > MAX_DEPTH or path in self.seen or len(self.seen) >= MAX_FILES or not os.path.isfile(path):
            return None
        self.seen.add(path)
        if os.path.getsize(path) > MAX_BYTES:
            return None
        with open(path, "rb") as f:
            data = f.read()
        rel = os.path.relpath(path, self.root)
        try:
            tree = ast.parse(data, filename=rel)
        except (SyntaxError, ValueError) as e:
            self.out["undecided"].append({"where": "%s:%s" % (rel, getattr(e, "lineno", 0) or 0), "text": "",
                                          "why": "not Python this interpreter parses (%s)" % e.__class__.__name__})
            return None
        m = Module(path, rel, tree, data.decode("utf-8", "replace").splitlines())
        m.depth = depth  # 0: setup.py, 1: a module setup.py imports, 2: one those import, ...
        self.modules.append(m)
        self.by_path[path] = m
        self.out["files"].append(rel)
        for node in m.nodes:
            if isinstance(node, ast.Import):
                for a in node.names:
                    self.follow(a.name, m, 0, depth + 1)
            elif isinstance(node, ast.ImportFrom):
                self.follow(node.module or "", m, node.level, depth + 1, [a.name for a in node.names])
        return m

    def follow(self, name, m, level, depth, names=()):
        """A module of the project itself: read it too. A package is read whole, since op-builder
        packages find their modules by listing the folder (pkgutil)."""
        base = self.root if level == 0 else os.path.dirname(m.path)
        for _ in range(max(0, level - 1)):
            base = os.path.dirname(base)
        parts = [p for p in name.split(".") if p]
        for i in range(len(parts)):
            target = os.path.join(base, *parts[: i + 1])
            if os.path.isdir(target) and os.path.isfile(os.path.join(target, "__init__.py")):
                if depth > 1:  # only the packages setup.py imports are read whole (pkgutil listings)
                    self.load(os.path.join(target, "__init__.py"), depth)
                    continue
                for f in sorted(os.listdir(target)):
                    if f.endswith(".py"):
                        self.load(os.path.join(target, f), depth)
            elif os.path.isfile(target + ".py"):
                self.load(target + ".py", depth)
        if not parts and level:
            for n in names:
                if os.path.isfile(os.path.join(base, n + ".py")):
                    self.load(os.path.join(base, n + ".py"), depth)


class EnvReads:
    """The environment reads (os.environ.get, os.getenv, os.environ[...], 'X' in os.environ, the
    project's own helpers around them) and the comparison each one is made into: the sightings."""

    def __init__(self, project):
        self.p = project
        self.helpers = {}  # function name -> (key param index, default param index or None, default text)
        self.indirect = None  # (default, true value, where) of a read whose name is a variable (a table of names)
        self.reads = []  # (module, read node, sighting): where each sighting's value starts, for Effects
        self.computed = []  # (module, read node, sighting) of each read whose default is computed

    def name_computed(self):
        """A computed default kiln cannot read matters only where the switch is left to it: not for one
        whose effect kiln sets itself (a job count) or that leaves the CUDA build as it is."""
        for m, node, s in self.computed:
            if s.get("effect") not in SETTLED_EFFECTS:
                self.p.undecided(m, node, "the default of %s is computed; kiln cannot read it statically" % s["name"])

    def find_helpers(self):
        """def f(key, default=...): return os.environ.get(key) or default, and the like: a call of
        f("X", d) is a read of X."""
        for m in self.p.modules:
            for fn in m.nodes:
                if not isinstance(fn, ast.FunctionDef):
                    continue
                params = [a.arg for a in fn.args.args]
                for node in ast.walk(fn):
                    read = self.env_read(node, m, helpers=False)
                    if not read or not isinstance(read[0], ast.Name) or read[0].id not in params:
                        continue
                    key_i = params.index(read[0].id)
                    dflt_i, dflt = None, None
                    if isinstance(read[1], ast.Name) and read[1].id in params:
                        dflt_i = params.index(read[1].id)
                    # `or default` after the read
                    up = m.parent.get(node)
                    if isinstance(up, ast.BoolOp) and isinstance(up.op, ast.Or) and len(up.values) == 2:
                        o = up.values[1]
                        if isinstance(o, ast.Name) and o.id in params:
                            dflt_i = params.index(o.id)
                    if dflt_i is not None:
                        k = len(params) - len(fn.args.defaults)
                        if dflt_i >= k:
                            dflt = const_str(fn.args.defaults[dflt_i - k])
                    self.helpers[fn.name] = (key_i, dflt_i, dflt)
                    break

    def env_read(self, node, m, helpers=True):
        """(key node, default node or None, kind) when node reads the environment."""
        if isinstance(node, ast.Call):
            f = dotted(node.func) or ""
            if f in ("os.getenv", "os.environ.get", "environ.get", "getenv") and node.args:
                d = node.args[1] if len(node.args) > 1 else None
                for kw in node.keywords:
                    if kw.arg == "default":
                        d = kw.value
                return node.args[0], d, "call"
            short = f.rsplit(".", 1)[-1]
            if helpers and short in self.helpers:
                key_i, dflt_i, dflt = self.helpers[short]
                if len(node.args) > key_i:
                    d = node.args[dflt_i] if dflt_i is not None and len(node.args) > dflt_i else None
                    return node.args[key_i], d if d is not None else (ast.Constant(dflt) if dflt is not None else None), "helper"
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and dotted(node.value) in ("os.environ", "environ"):
            key = node.slice.value if isinstance(node.slice, ast.Index) else node.slice  # 3.8 wraps it
            return key, None, "index"
        return None

    def key_names(self, key, m, node):
        """The variable names a key expression can be: a literal, an f-string of module constants, or
        a loop variable over a literal list. None when it cannot be read."""
        s = const_str(key)
        if s is not None:
            return [s]
        if isinstance(key, ast.JoinedStr):
            out = ""
            for v in key.values:
                if isinstance(v, ast.Constant):
                    out += str(v.value)
                elif isinstance(v, ast.FormattedValue) and isinstance(v.value, ast.Name) and v.value.id in m.consts:
                    out += m.consts[v.value.id]
                else:
                    return None
            return [out]
        if isinstance(key, ast.Name):
            if key.id in m.consts:
                return [m.consts[key.id]]
            up = m.parent.get(node)
            while up is not None:
                if isinstance(up, ast.For) and isinstance(up.target, ast.Name) and up.target.id == key.id and isinstance(up.iter, (ast.List, ast.Tuple)):
                    names = [const_str(e) for e in up.iter.elts]
                    if all(names):
                        return names
                up = m.parent.get(up)
        return None

    def default_text(self, d, m):
        if d is None:
            return None, True
        s = const_str(d)
        if s is not None:
            return s, True
        if isinstance(d, ast.Constant) and d.value is None:
            return "", True
        if isinstance(d, ast.Name) and d.id in m.consts:
            return m.consts[d.id], True
        return None, False

    def use_of(self, node, m):
        """How the value read at node is used: ("compare", true value, negated, default, at) or
        ("value", ..., default, None); `at` is the compared value, whose line is where the comparison
        is when the read spans lines (detectron2: os.getenv(\n "FORCE_CUDA", "0"\n) == "1")."""
        cur, default, truthy = node, None, False
        while True:
            p = m.parent.get(cur)
            if isinstance(p, ast.Call) and p.args and p.args[0] is cur and (dotted(p.func) or "").rsplit(".", 1)[-1] in TRUTH_WRAPPERS:
                truthy = True
                cur = p
                continue
            if isinstance(p, ast.Attribute) and p.attr in CASE_METHODS and isinstance(m.parent.get(p), ast.Call):
                cur = m.parent[p]
                continue
            if isinstance(p, ast.BoolOp) and isinstance(p.op, ast.Or) and p.values[0] is cur and len(p.values) == 2 and const_str(p.values[1]) is not None:
                default = const_str(p.values[1])
                cur = p
                continue
            if isinstance(p, ast.Compare) and len(p.ops) == 1:
                other = p.comparators[0] if p.left is cur else p.left
                op = p.ops[0]
                if isinstance(op, (ast.Eq, ast.NotEq)):
                    v = const_str(other)
                    if v is not None:
                        return ("compare", v, isinstance(op, ast.NotEq), default, other)
                if isinstance(op, (ast.In, ast.NotIn)) and p.left is cur and isinstance(other, (ast.Tuple, ast.List, ast.Set)):
                    vals = [const_str(e) for e in other.elts if const_str(e) is not None]
                    if vals:
                        return ("compare", vals[0], isinstance(op, ast.NotIn), default, other)
            if truthy or isinstance(p, (ast.If, ast.While, ast.IfExp)) and getattr(p, "test", None) is cur:
                return ("compare", "1", isinstance(p, ast.UnaryOp) and isinstance(p.op, ast.Not), default, None)
            if isinstance(p, ast.UnaryOp) and isinstance(p.op, ast.Not):
                return ("compare", "1", True, default, None)
            # VAR = <read>; later `VAR == "1"` in the same module
            if isinstance(p, ast.Assign) and len(p.targets) == 1 and isinstance(p.targets[0], ast.Name):
                var = p.targets[0].id
                for n in m.compares.get(var, []):
                    if len(n.ops) == 1 and isinstance(n.ops[0], (ast.Eq, ast.NotEq)):
                        v = const_str(n.comparators[0])
                        if v is not None:
                            return ("compare", v, isinstance(n.ops[0], ast.NotEq), default, None)
            return ("value", None, False, default, None)

    def scan(self, m):
        for node in m.nodes:
            if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn)) \
                    and dotted(node.comparators[0]) in ("os.environ", "environ") and const_str(node.left) is not None:
                s = self.sight(m, node, const_str(node.left), "compare", "1", isinstance(node.ops[0], ast.NotIn), None, False)
                self.reads.append((m, node, s))
                continue
            r = self.env_read(node, m)
            if not r:
                continue
            key, d, kind = r
            up = m.parent.get(node)
            if kind == "index" and isinstance(up, (ast.Assign, ast.AugAssign)) and node in getattr(up, "targets", [getattr(up, "target", None)]):
                continue  # os.environ["X"] = ...: the project sets it for itself
            use, true_value, negated, or_default, at = self.use_of(node, m)
            dflt, known = self.default_text(d, m)
            if or_default is not None:
                dflt, known = or_default, True
            names = self.key_names(key, m, node)
            if names is None:
                fn = enclosing_function(node, m)
                if fn is not None and fn.name in self.helpers:
                    continue  # the helper itself; its calls are the reads
                if isinstance(key, ast.Name):
                    if use == "compare" and self.indirect is None:
                        self.indirect = (dflt, true_value, m.where(node))
                    continue
                self.p.undecided(m, node, "an environment read whose name kiln cannot read statically")
                continue
            for n in names:
                s = self.sight(m, node, n, use, true_value, negated, dflt, d is not None and known or or_default is not None,
                               at=at)
                self.reads.append((m, node, s))
                if not known and d is not None and n == names[0]:
                    self.computed.append((m, node, s))

    def sight(self, m, node, name, use, true_value, negated, dflt, has_default, flag="", at=None):
        line = max(node.lineno, at.lineno) if at is not None else node.lineno  # the comparison's line
        text = " ".join(m.text(i) for i in range(node.lineno, line + 1))  # the read's lines up to it
        s = {"name": name, "file": m.rel, "line": line, "text": text, "use": use, "true_value": true_value or "",
             "negated": bool(negated), "default": dflt or "", "has_default": bool(has_default), "flag": flag}
        self.p.out["sightings"].append(s)
        return s

    def scan_flags(self, m):
        for node in m.nodes:
            if isinstance(node, ast.Dict):
                self.flag_table(m, node)

    def flag_table(self, m, node):
        """{"APEX_CPP_EXT": "--cpp_ext", ...}: variables turned into setup.py flags."""
        for k, v in zip(node.keys, node.values):
            ks, vs = const_str(k) if k is not None else None, const_str(v)
            if ks and vs and vs.startswith("--") and ks.replace("_", "").isalnum() and ks.isupper():
                self.sight(m, k, ks, "compare", "", False, None, False, vs)

ARCH_MARKERS = ("arch=compute_", "compute_", "sm_", "-gencode", "--generate-code", "CUDA_ARCHITECTURES", "CUDA_ARCH_LIST",
                "CUDAARCHS")
SEPARATORS = (";", ",", " ")
# nvcc's -arch=sm_35 / --gpu-architecture=compute_80 with the architecture written in (torch-points3d/
# torch-points-kernels 40153193 setup.py:44 "-arch=sm_35": nothing CUDA 13 builds).
ARCH_FLAG = re.compile(r"^(-arch|--gpu-architecture)[= ]?(sm|compute|lto)_[0-9]")
EXITS = {"exit", "_exit", "quit"}
# The architecture of an nvcc code string: arch=compute_90a,code=sm_90a, sm_100f.
GENCODE_ARCH = re.compile(r"(?:compute|sm|lto)_([0-9]{2,3})[a-z]?\b")
# torch's own tests for a ROCm build: code behind one of them (and an `and` with one) runs only there.
ROCM_PROBES = {"torch.version.hip", "version.hip", "IS_HIP_EXTENSION", "cpp_extension.IS_HIP_EXTENSION"}
SOURCE_SUFFIXES = (".cu", ".cpp", ".cc", ".cxx", ".c")
# setup() keywords that only describe the package: a value that ends there builds nothing.
METADATA_KEYWORDS = {"version", "name", "description", "long_description", "author", "author_email", "url",
                     "license", "classifiers", "keywords"}
JOB_FLAGS = ("-j", "-j ", "-j=", "--parallel", "--parallel ", "--parallel=", "--jobs=", "--jobs")  # a job count follows
PATH_FLAGS = ("-I", "-L", "-isystem", "-isystem ")  # a folder follows
PATH_KEYWORDS = {"include_dirs", "library_dirs", "runtime_library_dirs"}
JOB_KEYWORDS = {"max_workers", "processes", "n_jobs", "num_workers"}
METADATA_KEYWORDS |= {"install_requires", "extras_require", "setup_requires", "package_data", "data_files"}
# Effects whose switch the project's default does not decide for a CUDA build: kiln sets it (jobs), or
# it leaves the CUDA build as it is.
SETTLED_EFFECTS = {"jobs", "parallel", "path", "flags", "metadata", "subset", "rocm", "unreached", "library", "ninja", "packaging"}
MESSAGES = {"print", "warn", "warning", "info", "debug", "error", "log", "write", "RuntimeError", "ValueError",
            "EnvironmentError", "Exception"}


def a_message(m, n):
    """Whether a string is printed, logged or raised rather than handed to a compiler."""
    up = m.parent.get(n)
    while up is not None and not isinstance(up, ast.stmt):
        if call_name(up) in MESSAGES:
            return True
        up = m.parent.get(up)
    return isinstance(up, ast.Raise)


class Index:
    """Where the project's names are read and its functions called, indexed once: what Effects and
    ArchFlow follow a value through."""

    def __init__(self, project):
        self.p = project
        self.loads = {}  # module rel -> {name: [Name loads]}
        self.calls = None  # function name -> [(module, Call)]

    def name_loads(self, m, name):
        if m.rel not in self.loads:
            idx = {}
            for n in m.nodes:
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                    idx.setdefault(n.id, []).append(n)
            self.loads[m.rel] = idx
        return self.loads[m.rel].get(name, [])

    def calls_of(self, name):
        if self.calls is None:
            self.calls = {}
            for m in self.p.modules:
                if m.depth <= 1:
                    for n in m.nodes:
                        f = call_name(n)
                        if f:
                            self.calls.setdefault(f, []).append((m, n))
        return self.calls.get(name, [])

    def uses(self, m, stmt, name):
        """Where a name assigned at stmt is read: in its function, or for a module-level name, in the
        module and in the project's modules that import it by name."""
        fn = enclosing_function(stmt, m)
        if fn is not None:
            return [(m, n) for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
        out = [(m, n) for n in self.name_loads(m, name)]
        for m2 in self.p.modules:
            if m2 is not m and m2.depth <= 1 and any(isinstance(x, ast.ImportFrom) and any(a.name == name and not a.asname for a in x.names)
                                                     for x in m2.tree.body):
                out += [(m2, n) for n in self.name_loads(m2, name)]
        return out

    def unique(self, name):
        """Whether one function of the project has this name: a value returned by one of several
        methods of that name (each accelerator's device_count) is not followed into every call."""
        return len(self.p.fns.get(name, [])) == 1


class Branches:
    """What setup() gets as ext_modules, and what the branches of an `if` (or a conditional
    expression) do with it: create the extensions or empty the list ("ext"), pick CUDAExtension over
    CppExtension ("cuda"), re-raise or swallow an error in an except handler ("swallow"), or make no
    extension and only add or pick a compiler flag."""

    def __init__(self, project):
        self.p = project
        self.ext_vars, self.ext_fns = set(), set()
        self.cuda_names = {"CUDAExtension"}
        self.before_cuda = {}  # id(if) of another backend's arm -> whether it comes before the CUDA arm
        self.early_exits = set()  # id(if) whose branch leaves the function: the rest of it is the other branch
        self.gate_archs = {}  # id(if) whose branch only adds these architectures' nvcc code -> the numbers

    def find_ext_targets(self, first):
        """The names and functions whose value setup() gets as ext_modules."""
        for node in first.nodes:
            if call_name(node) == "setup":
                for kw in node.keywords:
                    if kw.arg == "ext_modules":
                        if isinstance(kw.value, ast.Name):
                            self.ext_vars.add(kw.value.id)
                        elif call_name(kw.value):
                            self.ext_fns.add(call_name(kw.value))
        for m in self.p.modules:
            for node in m.nodes:
                if isinstance(node, ast.ImportFrom):
                    for a in node.names:
                        if a.name == "CUDAExtension" and a.asname:
                            self.cuda_names.add(a.asname)
        flows = [(m, n) for m in self.p.modules if m.depth <= 1 for n in m.nodes
                 if isinstance(n, ast.Assign) and call_name(n.value) or isinstance(n, ast.Return) and n.value is not None]
        for _ in range(3):
            for m, node in flows:
                if isinstance(node, ast.Assign):
                    if any(isinstance(t, ast.Name) and t.id in self.ext_vars for t in node.targets):
                        self.ext_fns.add(call_name(node.value))
                    continue
                fn = enclosing_function(node, m)
                if fn is not None and fn.name in self.ext_fns:
                    if isinstance(node.value, ast.Name):
                        self.ext_vars.add(node.value.id)
                    elif call_name(node.value):
                        self.ext_fns.add(call_name(node.value))

    def produces(self, nodes):
        """"cuda" when the code makes a CUDA extension, "ext" when it makes or adds an extension,
        else None."""
        kind = None
        for st in nodes:
            for n in ast.walk(st):
                k = None
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                    k = "cuda" if n.id in self.cuda_names else \
                        "ext" if n.id.endswith("Extension") and not n.id.startswith("Build") else None
                elif isinstance(n, ast.Call):
                    f = call_name(n) or ""
                    target = n.func.value if isinstance(n.func, ast.Attribute) else None
                    if f in self.cuda_names:
                        k = "cuda"
                    elif f.endswith("Extension") and not f.startswith("Build"):
                        k = "ext"
                    elif f in ("append", "extend", "insert") and isinstance(target, ast.Name) and target.id in self.ext_vars:
                        k = "ext"
                    elif isinstance(n.func, ast.Name) and f in self.ext_fns:
                        k = "ext"
                elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name) and n.target.id in self.ext_vars:
                    k = "ext"
                elif isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value.endswith(".cu"):
                    k = "cuda"
                if k == "cuda":
                    return "cuda"
                kind = kind or k
        return kind

    def empties(self, m, stmts):
        """Whether the code ends with no extension: return [] (or the list while still empty),
        ext_modules = [], sys.exit()."""
        for st in stmts:
            if isinstance(st, ast.Return):
                v = st.value
                if v is None or isinstance(v, (ast.List, ast.Tuple)) and not v.elts:
                    return True
                if isinstance(v, ast.Name) and v.id in self.ext_vars and self.still_empty(m, st, v.id):
                    return True
            if isinstance(st, ast.Assign) and isinstance(st.value, ast.List) and not st.value.elts \
                    and any(isinstance(t, ast.Name) and t.id in self.ext_vars for t in st.targets):
                return True
            if isinstance(st, ast.Expr) and call_name(st.value) in EXITS:
                return True
        return False

    def still_empty(self, m, at, name):
        fn = enclosing_function(at, m)
        for n in ast.walk(fn) if fn is not None else []:
            if getattr(n, "lineno", at.lineno) >= at.lineno:
                continue
            if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in n.targets) \
                    and not (isinstance(n.value, ast.List) and not n.value.elts):
                return False
            if call_name(n) in ("append", "extend") and isinstance(n.func.value, ast.Name) and n.func.value.id == name:
                return False
        return True

    def rest_of_block(self, m, st):
        """The statements after st in its block, and after the blocks around it up to its function."""
        out, cur = [], st
        while True:
            up = m.parent.get(cur)
            if up is None or isinstance(up, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
                if up is not None:
                    out += self.after(up, cur)
                return out
            out += self.after(up, cur)
            cur = up

    @staticmethod
    def after(parent, child):
        for field in ("body", "orelse", "finalbody", "handlers"):
            block = getattr(parent, field, None)
            if isinstance(block, list) and child in block:
                return block[block.index(child) + 1:]
        return []

    def in_handler(self, m, node):
        up = m.parent.get(node)
        while up is not None and not isinstance(up, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if isinstance(up, ast.ExceptHandler):
                return True
            up = m.parent.get(up)
        return False

    def chain(self, m, st):
        """The arms of the if/elif chain the `if` st is one arm of: [(its if, or None for the else, body)]."""
        top = st
        while isinstance(m.parent.get(top), ast.If) and m.parent[top].orelse == [top]:
            top = m.parent[top]
        arms, cur = [], top
        while True:
            arms.append((cur, cur.body))
            if len(cur.orelse) == 1 and isinstance(cur.orelse[0], ast.If):
                cur = cur.orelse[0]
                continue
            if cur.orelse:
                arms.append((None, cur.orelse))
            return arms

    def backend_arm(self, m, st):
        """For an arm of a chain of three or more arms that each make the extension their own way, one
        of them CUDA's (mmcv a8073c74 setup.py:232-455: DIOPI, CUDA, MLU, MPS, NPU, MUSA, then CPU): when
        st's arm makes a non-CUDA extension, st picks another backend. Whether it comes before the CUDA
        arm (taking it skips CUDA) or after (a CUDA build never reaches it); None for another shape."""
        arms = self.chain(m, st)
        if len(arms) < 3:
            return None
        kinds = [self.produces(b) for _, b in arms]
        mine = next((i for i, (a, _) in enumerate(arms) if a is st), None)
        if "cuda" not in kinds or sum(1 for k in kinds if k) < 3 or mine is None or kinds[mine] != "ext":
            return None
        return mine < kinds.index("cuda")

    @staticmethod
    def turns_off_ninja(stmts):
        """Whether the code hands torch's BuildExtension use_ninja=False (pytorch3d 9381c401 setup.py:160-164)."""
        return any(isinstance(n, ast.keyword) and n.arg == "use_ninja" and isinstance(n.value, ast.Constant)
                   and n.value.value is False for st in stmts for n in ast.walk(st))

    def libraries_of(self, m, st):
        """The libraries the branches of the if st add to a list handed to a call's libraries= keyword
        (pytorch_sparse 91feaa5e setup.py:56-58 `if WITH_METIS: libraries += ['metis']`), else []."""
        if not isinstance(st, ast.If):
            return []
        scope = enclosing_function(st, m) or m.tree
        lists = {kw.value.id for n in ast.walk(scope) if isinstance(n, ast.Call) for kw in n.keywords
                 if kw.arg == "libraries" and isinstance(kw.value, ast.Name)}
        out = []
        for n in (x for b in st.body + st.orelse for x in ast.walk(b)):
            added = n.value if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name) and n.target.id in lists \
                else n.args[0] if call_name(n) in ("append", "extend") and n.args and isinstance(n.func.value, ast.Name) \
                and n.func.value.id in lists else None
            if added is not None:
                out += [const_str(e) for e in (added.elts if isinstance(added, (ast.List, ast.Tuple)) else [added])
                        if const_str(e)]
        return out

    def site_effect(self, m, st):
        """(effect, test value under which it happens) for the if/conditional expression st."""
        body, orelse = ([st.body], [st.orelse]) if isinstance(st, ast.IfExp) else (st.body, st.orelse)
        if isinstance(st, ast.If) and self.in_handler(m, st):
            rb = any(isinstance(n, ast.Raise) for b in body for n in ast.walk(b))
            re_ = any(isinstance(n, ast.Raise) for b in orelse for n in ast.walk(b))
            if rb != re_:
                return "swallow", not rb
        if isinstance(st, ast.If):
            before = self.backend_arm(m, st)
            if before is not None:
                self.before_cuda[id(st)] = before
                return "backend", True
        pb, pe = self.produces(body), self.produces(orelse)
        if pb == "cuda" and pe == "ext" or pe == "cuda" and pb == "ext":
            return "cuda", pb == "cuda"
        if pb and not pe:
            return "ext", True
        if pe and not pb:
            return "ext", False
        if isinstance(st, ast.If) and self.empties(m, body) and not self.empties(m, orelse) and self.produces(self.rest_of_block(m, st)):
            self.early_exits.add(id(st))
            return "ext", False
        # `if not BUILD_EXPERIMENTAL: return [gsplat_ext]` before more extensions (gsplat 90d7b4b3 setup.py:237):
        # the rest of the function is the branch the test avoids.
        if isinstance(st, ast.If) and not pb and not pe and body and isinstance(body[-1], ast.Return) \
                and self.produces(self.rest_of_block(m, st)):
            self.early_exits.add(id(st))
            return "ext", False
        if self.turns_off_ninja(body) != self.turns_off_ninja(orelse):
            return "ninja", self.turns_off_ninja(body)
        ab, ae = self.archs_added(m, body), self.archs_added(m, orelse)
        if bool(ab) != bool(ae) and not self.arch_text(m, orelse if ab else body):
            self.gate_archs[id(st)] = sorted(ab or ae)
            return "archgate", bool(ab)
        return None

    @staticmethod
    def arch_text(m, stmts):
        """Whether the statements write any architecture text (a list's own -gencode f-string)."""
        return any(isinstance(n, ast.Constant) and isinstance(n.value, str) and any(k in n.value for k in ARCH_MARKERS)
                   for st in stmts for n in ast.walk(st))

    def archs_added(self, m, stmts):
        """The architectures whose nvcc code the statements add, when they add nothing else: FlashMLA
        9241ae3e setup.py:42-45 `if not DISABLE_SM100: arch_flags.extend(["-gencode",
        "arch=compute_100f,code=sm_100f"])`. Empty for anything more (an extension, another flag)."""
        archs = set()
        if self.produces(stmts) or self.flag_in(m, stmts) is not None:
            return archs
        for st in stmts:
            for n in ast.walk(st):
                if isinstance(n, ast.Constant) and isinstance(n.value, str) and not a_message(m, n):
                    archs.update(int(x) for x in GENCODE_ARCH.findall(n.value))
        return archs

    def makes_extension(self, st):
        """Whether a simple statement creates an extension object or adds one to the list setup()
        gets (stricter than produces: a list of .cu source names makes none)."""
        for n in ast.walk(st):
            if isinstance(n, ast.Call):
                f = call_name(n) or ""
                target = n.func.value if isinstance(n.func, ast.Attribute) else None
                if f in self.cuda_names or f.endswith("Extension") and not f.startswith("Build"):
                    return True
                if f in ("append", "extend", "insert") and isinstance(target, ast.Name) and target.id in self.ext_vars:
                    return True
        return False

    def flag_in(self, m, stmts):
        """The first compiler flag (a string starting with -, not an architecture, not a message) the
        code adds or returns."""
        for st in stmts:
            for n in ast.walk(st):
                if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value.startswith("-") \
                        and len(n.value) > 1 and not any(k in n.value for k in ARCH_MARKERS) \
                        and not a_message(m, n):
                    return n
        return None

    def flags_only(self, m, st):
        """(module, flag) when the branches of the if/conditional st make no extension and no CUDA
        choice but add or pick a compiler flag: the value tunes how the code compiles, not whether."""
        branches = [st.body, st.orelse] if isinstance(st, ast.If) else [[st.body], [st.orelse]]
        if any(self.produces(b) for b in branches):
            return None
        flag = self.flag_in(m, branches[0]) or self.flag_in(m, branches[1])
        return (m, flag) if flag is not None else None


class RocmGuards:
    """Code only a ROCm build of torch reaches: behind torch.version.hip, IS_HIP_EXTENSION or a name
    the project assigns one of them, in an `if`'s body or an `and` beside it."""

    def __init__(self):
        self.rocm_names = {}  # module rel -> names assigned a ROCm probe (IS_ROCM = torch.version.hip is not None)

    def rocm_probe(self, m, e):
        """Whether e holds only in a ROCm build of torch: torch.version.hip (also `is not None`, bool()),
        IS_HIP_EXTENSION, or a module-level name the project assigns one of them."""
        if isinstance(e, ast.Compare) and len(e.ops) == 1 and isinstance(e.ops[0], ast.IsNot) \
                and isinstance(e.comparators[0], ast.Constant) and e.comparators[0].value is None:
            e = e.left
        if isinstance(e, ast.Call) and call_name(e) == "bool" and len(e.args) == 1:
            e = e.args[0]
        d = dotted(e)
        if d is None:
            return False
        if d in ROCM_PROBES or d.rsplit(".", 1)[-1] == "IS_HIP_EXTENSION":
            return True
        if m.rel not in self.rocm_names:
            self.rocm_names[m.rel] = {st.targets[0].id for st in m.tree.body if isinstance(st, ast.Assign)
                                      and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name)
                                      and self.rocm_probe(m, st.value)}
        return d in self.rocm_names[m.rel]

    def requires_rocm(self, m, test):
        """The probe in test that must hold for it to: the test itself, or one term of an `and`."""
        if self.rocm_probe(m, test):
            return test
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
            return next((v for v in test.values if self.rocm_probe(m, v)), None)
        return None

    def rocm_guard(self, m, node):
        """The ROCm probe a read depends on in its function: an `and` beside it, or an if whose body
        it is in. None when a CUDA build reaches it."""
        cur, p = node, m.parent.get(node)
        while p is not None and not isinstance(p, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
            if isinstance(p, ast.BoolOp) and isinstance(p.op, ast.And):
                probe = next((v for v in p.values if v is not cur and self.rocm_probe(m, v)), None)
                if probe is not None:
                    return probe
            if isinstance(p, (ast.If, ast.While)) and cur in p.body or isinstance(p, ast.IfExp) and cur is p.body:
                probe = self.requires_rocm(m, p.test)
                if probe is not None:
                    return probe
            cur, p = p, m.parent.get(p)
        return None


class ArchFlow:
    """An architecture list followed from a value through its scope and the project's functions: the
    names it becomes, how its code splits and converts it (the spelling it parses), whether it
    reaches an nvcc or CMake architecture flag, and so whether an architecture string is driven by
    the project's own list or hard-coded."""

    def __init__(self, project, index):
        self.p, self.index = project, index
        self.arch_names = {}  # (module rel, id(scope)) -> names computed from an arch list
        self.arch_ids = set()  # ids of expressions computed from an arch list
        self.scope_nodes = {}  # (module rel, id(scope)) -> its nodes a value flows through
        self.names_cache = {}  # id(expression) -> the names it reads

    def arch_flow(self, m, start, found):
        """The value from start through its scope and the project's functions it is handed to: the
        names it becomes, how its code splits and converts it, and whether it reaches an nvcc or
        CMake architecture flag."""
        spell = found["spelling"]
        # A name that holds the value is the list too: a test of it (`if wanted:`) decides what the
        # list drives, its else the fallback the list replaces.
        todo = [(m, enclosing_function(start, m) or m.tree, [start], {start.id} if isinstance(start, ast.Name) else set())]
        done = set()
        while todo:
            m, scope, starts, names = todo.pop()
            key = (m.rel, id(scope), frozenset(names), tuple(id(x) for x in starts))
            if key in done or len(done) > 20:
                continue
            done.add(key)
            walked = self.flow_nodes(m, scope)
            holds = set()  # the expressions that contain a start: the start and what is around it
            for x in starts:
                while x is not None and x is not scope:
                    holds.add(id(x))
                    x = m.parent.get(x)

            def mentions(expr):
                return id(expr) in holds or not names.isdisjoint(self.names_in(expr))

            for _ in range(8):
                before = len(names)
                for n in walked:
                    if isinstance(n, ast.Assign) and mentions(n.value):
                        for t in n.targets:
                            names.update(x.id for x in ast.walk(t) if isinstance(x, ast.Name))
                    elif isinstance(n, (ast.AugAssign, ast.AnnAssign)) and n.value is not None and mentions(n.value):
                        names.update(x.id for x in ast.walk(n.target) if isinstance(x, ast.Name))
                    elif isinstance(n, (ast.For, ast.comprehension)) and mentions(n.iter):
                        names.update(x.id for x in ast.walk(n.target) if isinstance(x, ast.Name))
                    elif call_name(n) in ("add", "append", "extend", "update", "insert") and isinstance(n.func, ast.Attribute) \
                            and any(mentions(a) for a in n.args) and dotted(n.func.value):
                        names.add(dotted(n.func.value))  # self.archs.add(entry): the collection holds it now
                if len(names) == before:
                    break
            self.arch_names.setdefault((m.rel, id(scope)), set()).update(names)
            held = {x for x in names if x.startswith("self.")}
            cls = m.parent.get(scope) if isinstance(scope, ast.FunctionDef) else None
            if held and isinstance(cls, ast.ClassDef):  # another method of the class reads self.archs
                for fn2 in cls.body:
                    if isinstance(fn2, ast.FunctionDef) and fn2 is not scope:
                        todo.append((m, fn2, [], set(held)))
            for n in walked:
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and mentions(n.func.value):
                    a = [const_str(x) for x in n.args]
                    if n.func.attr == "split" and a and a[0] is not None:
                        (spell["seps"] if a[0] in SEPARATORS else spell["parts"]).append(a[0])
                    if n.func.attr == "replace" and len(a) == 2 and a[0] in SEPARATORS and a[1] in SEPARATORS:
                        spell["seps"].append(a[0])
                    if n.func.attr == "replace" and len(a) == 2 and a[0] == ".":
                        spell["dot_dropped"] = True
                    if n.func.attr == "isalpha" or n.func.attr in ("rstrip", "strip", "endswith") and a and "a" in (a[0] or ""):
                        spell["suffix"] = True  # 9.0a: the variant letter is read, not fed to int()
                if isinstance(n, ast.Call) and call_name(n) == "int" and isinstance(n.func, ast.Name) and n.args \
                        and isinstance(n.args[0], ast.Name) and n.args[0].id in names:
                    spell["int_whole"] = True  # int(x) of a whole entry: no dots, no suffix
                if isinstance(n, ast.Call) and call_name(n) == "float" and isinstance(n.func, ast.Name) and n.args \
                        and isinstance(n.args[0], ast.Name) and n.args[0].id in names:
                    spell["float_whole"] = True  # float(x) of a whole entry: "8.6", a major and minor with a dot
                if isinstance(n, (ast.JoinedStr, ast.BinOp)) and mentions(n) and not self.inside_string(m, n) \
                        and not a_message(m, n):
                    texts = [x.value for x in ast.walk(n) if isinstance(x, ast.Constant) and isinstance(x.value, str)]
                    if any(k in t for t in texts for k in ARCH_MARKERS):
                        found["archs"].append((m, n, "cmake" if any("ARCHITECTURES" in t for t in texts) else "nvcc"))
                        self.arch_ids.add(id(n))
                callee = call_name(n) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) else None
                if callee in self.p.fns and any(mentions(x) for x in n.args):
                    for m2, fn2 in self.p.fns[callee]:
                        params = [x.arg for x in fn2.args.args]
                        given = {params[i] for i, x in enumerate(n.args) if i < len(params) and mentions(x)}
                        if given:
                            todo.append((m2, fn2, [], given))
                if isinstance(n, ast.Return) and n.value is not None and mentions(n.value) \
                        and isinstance(scope, ast.FunctionDef) and self.index.unique(scope.name):
                    for m2, call in self.index.calls_of(scope.name):
                        self.arch_ids.add(id(call))  # archs(): the project's list, wherever it is called
                        todo.append((m2, enclosing_function(call, m2) or m2.tree, [call], set()))

    def names_in(self, expr):
        """The names (and dotted attributes: self.archs) an expression reads, found once per node."""
        got = self.names_cache.get(id(expr))
        if got is None:
            got = frozenset(x.id if isinstance(x, ast.Name) else dotted(x) for x in ast.walk(expr)
                            if isinstance(x, ast.Name) or isinstance(x, ast.Attribute) and dotted(x))
            self.names_cache[id(expr)] = got
        return got

    def flow_nodes(self, m, scope):
        """The nodes of a scope a value can flow through or into, listed once per scope."""
        key = (m.rel, id(scope))
        if key not in self.scope_nodes:
            every = m.nodes if scope is m.tree else ast.walk(scope)
            self.scope_nodes[key] = [n for n in every if isinstance(n, (
                ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For, ast.comprehension, ast.Call, ast.JoinedStr, ast.BinOp, ast.Return))]
        return self.scope_nodes[key]

    @staticmethod
    def inside_string(m, n):
        up = m.parent.get(n)
        return isinstance(up, (ast.JoinedStr, ast.BinOp, ast.FormattedValue))

    def arch_controlled(self, m, node):
        """Whether the string at node is built from, or sits under a test or loop of, a value the
        project reads from the environment (its own architecture list): a line that kiln's setting
        of that variable drives, not one hard-coded."""
        cur = node
        while cur is not None:
            if id(cur) in self.arch_ids:
                return True
            up = m.parent.get(cur)
            test = up.test if isinstance(up, (ast.If, ast.While, ast.IfExp)) else up.iter if isinstance(up, (ast.For, ast.comprehension)) else None
            if test is not None and test is not cur:
                names = self.arch_names.get((m.rel, id(enclosing_function(up, m) or m.tree)), set())
                if any(isinstance(x, ast.Name) and x.id in names or id(x) in self.arch_ids for x in ast.walk(test)):
                    return True
            cur = up
        return False


# Calls that only copy, move or write files: a value that ends in one is packaging, not the build.
FILE_CALLS = {"copy", "copy2", "copyfile", "copytree", "copy_file", "copy_tree", "move", "makedirs", "mkdir", "mkpath",
              "rmtree", "remove", "unlink", "symlink", "write", "write_text", "write_bytes", "writelines", "chmod"}
# Calls whose result is computed from their arguments alone (paths, listings, text, containers): the
# value goes on through them.
PURE_CALLS = {"join", "basename", "dirname", "relpath", "abspath", "realpath", "normpath", "expanduser", "splitext",
              "exists", "isdir", "isfile", "islink", "getsize", "glob", "iglob", "listdir", "walk", "sorted", "len",
              "str", "list", "set", "tuple", "dict", "format", "split", "rsplit", "replace", "strip", "lstrip",
              "rstrip", "lower", "upper", "startswith", "endswith", "get", "items", "keys", "values", "encode",
              "decode", "isinstance", "any", "all", "min", "max", "enumerate", "zip", "range", "open", "Path", "find",
              "getenv"}
MUTATORS = {"append", "extend", "add", "insert", "update", "setdefault"}


class Packaging:
    """A value that reaches only what packages the build's results, never the build: file copies
    (shutil.copy2, copytree, copy_file), package_data / data_files and setup()'s other metadata
    (a version string), messages; and tests whose branches, with the rest of the function an early
    return skips, do only those things. Torch-FL 1adbc974 setup.py:557 FLAGOS_SKIP_CUDA_ASSETS
    returns early from a function that only copies .so files and, :851, drops runtime wheels from
    install_requires; :559 FLAGOS_CUDA_ASSETS_DIR is the folder copied from; :748 FLAGOS_WHEEL_LOCAL
    ends in the version. Anything else it reaches (an extension, ext_modules, a compile argument,
    a command, an exit or raise, a call of unknown effect) makes it no packaging switch."""

    def __init__(self, project, index, branches, effects):
        self.p, self.index, self.branches, self.effects = project, index, branches, effects
        self.names, self.fns = {}, {}  # memo and cycle guard: (packaging only, reaches packaging); in progress: yes, no
        self.hits = 0  # the packaging reached: file copies and setup() metadata (a message alone is none)

    def value_ok(self, m, node, depth=0):
        """Whether the value of the expression node reaches only packaging."""
        if depth > 12:
            return False
        cur = node
        while True:
            p = m.parent.get(cur)
            if p is None:
                return False
            if isinstance(p, ast.Call) and cur is not p.func:
                f = call_name(p) or ""
                d = dotted(p.func) or ""
                target = p.func.value if isinstance(p.func, ast.Attribute) else None
                if f in FILE_CALLS or d.startswith("shutil."):
                    self.hits += 1
                    return True
                if f in MESSAGES:
                    return True
                if f in MUTATORS and target is not None and cur in p.args:
                    return self.target_ok(m, p, target, depth)  # the list holds it now
                if f in PURE_CALLS or f in TRUTH_WRAPPERS or d.startswith(("os.path.", "glob.")):
                    cur = p
                    continue
                if isinstance(p.func, ast.Name) and self.index.unique(f) and cur in p.args:
                    m2, fn = self.p.fns[f][0]
                    params = [a.arg for a in fn.args.args]
                    i = p.args.index(cur)
                    return i < len(params) and self.name_ok(m2, fn.body[0], params[i], depth + 1)
                return False
            if isinstance(p, ast.Attribute) and p.value is cur:
                c = m.parent.get(p)
                if isinstance(c, ast.Call) and c.func is p and (p.attr in PURE_CALLS or p.attr in CASE_METHODS):
                    cur = c
                    continue
                return isinstance(c, ast.Call) and c.func is p and p.attr in MUTATORS  # what it adds is checked there
            if isinstance(p, ast.keyword):
                c = m.parent.get(p)
                if p.arg in METADATA_KEYWORDS and self.effects.to_setup(m, c):
                    self.hits += 1
                    return True
                return call_name(c) in MESSAGES
            if isinstance(p, (ast.FormattedValue, ast.JoinedStr, ast.BinOp, ast.Compare, ast.BoolOp, ast.UnaryOp,
                              ast.List, ast.Tuple, ast.Set, ast.Dict, ast.Subscript, ast.Starred, ast.IfExp,
                              ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp, ast.comprehension)):
                cur = p
                continue
            if isinstance(p, (ast.If, ast.While)) and p.test is cur:
                return self.site_ok(m, p, depth + 1)
            if isinstance(p, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and p.value is cur:
                return all(self.target_ok(m, p, t, depth) for t in (p.targets if isinstance(p, ast.Assign) else [p.target]))
            if isinstance(p, ast.For) and p.iter is cur:
                return self.target_ok(m, p, p.target, depth)
            if isinstance(p, ast.withitem) and p.context_expr is cur:
                return p.optional_vars is None or self.target_ok(m, m.parent.get(p), p.optional_vars, depth)
            if isinstance(p, ast.Return) and p.value is cur:
                fn = enclosing_function(p, m)
                if fn is None or not self.index.unique(fn.name):
                    return False
                calls = self.index.calls_of(fn.name)
                return bool(calls) and all(self.value_ok(m2, c, depth + 1) for m2, c in calls)
            return isinstance(p, ast.Expr)  # a value dropped (a call already checked)

    def target_ok(self, m, stmt, t, depth):
        if isinstance(t, ast.Name):
            return self.name_ok(m, stmt, t.id, depth + 1)
        if isinstance(t, (ast.Tuple, ast.List)):
            return all(self.target_ok(m, stmt, e, depth) for e in t.elts)
        if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):  # table[key] = value: the table
            return self.name_ok(m, stmt, t.value.id, depth + 1)
        return False  # os.environ[...], self.x: read elsewhere

    def name_ok(self, m, stmt, name, depth):
        fn = enclosing_function(stmt, m)
        key = (m.rel, id(fn), name)
        return self.memo(self.names, key, lambda: depth <= 12 and all(
            self.value_ok(m2, u, depth) for m2, u in self.index.uses(m, stmt, name)))

    def memo(self, table, key, compute):
        """compute() once per key; what it reached counts again wherever the key is met again."""
        if key not in table:
            table[key] = (True, False)  # a use that leads back here adds nothing
            before = self.hits
            ok = compute()
            table[key] = (ok, self.hits > before)
            return ok
        ok, hit = table[key]
        self.hits += hit
        return ok

    def site_ok(self, m, st, depth):
        """Whether what an if decides does only packaging: its branches, and the rest of its function
        when a branch leaves it (`if SKIP == "1": return`)."""
        stmts = st.body + st.orelse
        if any(b and isinstance(b[-1], (ast.Return, ast.Continue, ast.Break)) for b in (st.body, st.orelse)):
            stmts = stmts + self.branches.rest_of_block(m, st)
        return self.block_ok(m, stmts, depth)

    def block_ok(self, m, stmts, depth):
        if self.branches.produces(stmts) or self.branches.flag_in(m, stmts) is not None:
            return False
        for st in stmts:
            for n in ast.walk(st):
                if isinstance(n, (ast.Raise, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda,
                                  ast.Yield, ast.Global, ast.Nonlocal)):
                    return False
                if isinstance(n, ast.Call) and not self.call_ok(n, depth):
                    return False
                if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and n.value is not None:
                    if not all(self.target_ok(m, n, t, depth) for t in (n.targets if isinstance(n, ast.Assign) else [n.target])):
                        return False
                if isinstance(n, ast.For) and not self.target_ok(m, n, n.target, depth):
                    return False
                if isinstance(n, ast.withitem) and n.optional_vars is not None \
                        and not self.target_ok(m, m.parent.get(n), n.optional_vars, depth):
                    return False
                if call_name(n) in MUTATORS and isinstance(n.func, ast.Attribute) \
                        and not self.target_ok(m, n, n.func.value, depth):
                    return False
                if isinstance(n, ast.Return) and n.value is not None and not self.value_ok(m, n.value, depth + 1):
                    return False
        return True

    def call_ok(self, call, depth):
        """Whether a call does nothing but packaging: a message, a file copy, a computation from its
        arguments, or a function of the project that does only those."""
        f = call_name(call) or ""
        d = dotted(call.func) or ""
        if f in FILE_CALLS or d.startswith("shutil."):
            self.hits += 1
            return True
        if f in MESSAGES or f in PURE_CALLS or f in MUTATORS or f in TRUTH_WRAPPERS \
                or f in CASE_METHODS or d.startswith(("shutil.", "os.path.", "glob.")):
            return True
        if not isinstance(call.func, ast.Name) or not self.index.unique(f) or depth > 12:
            return False
        m2, fn = self.p.fns[f][0]
        return self.memo(self.fns, id(fn), lambda: self.block_ok(m2, fn.body, depth + 1))

    def mark(self, reads):
        """Gives effect "packaging" to each switch every read of which reaches only packaging (one that
        another effect already explains keeps it: xformers' version read is "metadata")."""
        unread = set()
        marked = []
        for m, node, s in reads:
            if s.get("effect"):
                unread.add(s["name"])
                continue
            self.hits = 0
            if self.value_ok(m, node) and self.hits:
                marked.append((m, node, s))
            else:
                unread.add(s["name"])
        for m, node, s in marked:
            if s["name"] not in unread:
                Effects.set_effect(s, "packaging", False, "", False, (m, node))


class Effects:
    """What each environment read controls, followed through the data flow and never guessed from
    the variable's name: from the read, through wrappers, comparisons, `not`, assignments, returns
    and the project's functions, to the test of an `if` whose branches decide the extensions
    (Branches: "ext", "cuda", "swallow"); a value compared with several literals, one of them
    CUDA's ("select"); a value that becomes -gencode, CMAKE_CUDA_ARCHITECTURES or
    TORCH_CUDA_ARCH_LIST ("archs", with the spelling its code parses: ArchFlow). And what leaves the
    CUDA build as it is: a read only a ROCm build reaches ("rocm": RocmGuards), a value that filters
    the source list ("subset"), one that only adds or picks compiler flags ("flags"), one that ends
    in setup()'s metadata ("metadata"). Each sighting gets its effect, the value kiln should give it
    and the line of the gate."""

    def __init__(self, project, reads, index, branches, rocm, archs):
        self.p, self.reads, self.index = project, reads, index
        self.branches, self.rocm, self.archs = branches, rocm, archs
        self.ext_sites = []  # (sighting, module, if) of each switch whose branch makes extensions

    def follow(self, m, node, state, found, depth=0, seen=None):
        """Climbs from node (a read, or a use of a name that holds its value) to what it controls.
        state: (kind, pol, value, prefix): kind "value" or "bool"; for "bool" the expression is
        true exactly when (the variable matches value) == pol (prefix: starts with it)."""
        seen = set() if seen is None else seen
        if id(node) in seen or depth > 6:
            return
        seen.add(id(node))
        kind, pol, tv, prefix = state
        cur = node
        while True:
            p = m.parent.get(cur)
            if p is None:
                return
            if kind == "list" and self.sink(m, cur, p, state, found, depth, seen):
                return  # a list that holds the value: only where it goes counts
            if isinstance(p, ast.Call) and isinstance(p.func, ast.Name) and p.func.id == "str" and p.args and p.args[0] is cur:
                cur = p  # str(n): the same value, as text
                continue
            if isinstance(p, ast.Call) and p.args and p.args[0] is cur and (dotted(p.func) or "").rsplit(".", 1)[-1] in TRUTH_WRAPPERS:
                if call_name(p) in ("int", "float"):
                    tv = tv or "1"  # int("0") is false: a truth test of it is one of "1"
                elif call_name(p) != "str":
                    kind, tv = "bool", tv or "1"
                cur = p
                continue
            if isinstance(p, ast.Attribute) and p.attr in CASE_METHODS and isinstance(m.parent.get(p), ast.Call):
                cur = m.parent[p]
                continue
            if isinstance(p, ast.Attribute) and p.attr == "startswith" and kind == "value":
                c = m.parent.get(p)
                lit = const_str(c.args[0]) if isinstance(c, ast.Call) and c.args else None
                if lit is None:
                    return
                kind, pol, tv, prefix, cur = "bool", True, lit, True, c
                found["literals"].add((lit, True))
                found["lit_at"].setdefault(lit, (m, c))
                continue
            if isinstance(p, ast.BoolOp) and isinstance(p.op, ast.Or) and p.values[0] is cur and kind == "value" \
                    and len(p.values) == 2 and const_str(p.values[1]) is not None:
                cur = p
                continue
            if isinstance(p, ast.Compare) and len(p.ops) == 1 and kind == "value":
                other = p.comparators[0] if p.left is cur else p.left
                op = p.ops[0]
                lits = [const_str(other)] if isinstance(op, (ast.Eq, ast.NotEq)) else \
                    [const_str(e) for e in other.elts] if isinstance(op, (ast.In, ast.NotIn)) and p.left is cur \
                    and isinstance(other, (ast.Tuple, ast.List, ast.Set)) else []
                lits = [x for x in lits if x is not None]
                if not lits:
                    if self.source_filter(m, p) is not None:
                        found["filters"].append((m, p))
                    return
                for x in lits:
                    found["literals"].add((x, False))
                    found["lit_at"].setdefault(x, (m, p))
                kind, pol, tv, cur = "bool", isinstance(op, (ast.Eq, ast.In)), lits[0], p
                continue
            if isinstance(p, ast.UnaryOp) and isinstance(p.op, ast.Not):
                kind, pol, cur = "bool", not pol, p
                continue
            if isinstance(p, ast.BoolOp):
                if isinstance(p.op, ast.Or) and any((dotted(x.func) or "").endswith("cuda.is_available")
                                                    for v in p.values if v is not cur for x in ast.walk(v)
                                                    if isinstance(x, ast.Call)):
                    found["or_probe"] = True  # `torch.cuda.is_available() or FORCE_CUDA`: not needed where a GPU is
                kind, cur = "bool", p
                continue
            if isinstance(p, ast.IfExp) and p.test is cur and all(
                    isinstance(x, ast.Constant) and isinstance(x.value, bool) for x in (p.body, p.orelse)) \
                    and p.body.value != p.orelse.value:
                # `True if <test> else False` is the test (pytorch_sparse 91feaa5e setup.py:34 WITH_METIS)
                kind, pol, cur = "bool", pol if p.body.value else not pol, p
                continue
            if isinstance(p, (ast.If, ast.While, ast.IfExp)) and p.test is cur:
                found["sites"].append((m, p, pol, tv or "", prefix, tv is None))  # "", True: a bare truth test
                return
            if (kind != "bool" or isinstance(p, ast.FormattedValue)) and self.sink(m, cur, p, (kind, pol, tv, prefix),
                                                                                  found, depth, seen):
                return
            if isinstance(p, ast.Assign) and p.value is cur:
                for t in p.targets:
                    if isinstance(t, ast.Name):
                        for m2, use in self.index.uses(m, p, t.id):
                            if kind == "value":
                                found["holders"].add(id(use))  # a name holding the value itself
                            self.follow(m2, use, (kind, pol, tv, prefix), found, depth + 1, seen)
                    elif isinstance(t, ast.Subscript) and dotted(t.value) in ("os.environ", "environ") and kind == "value":
                        key = const_str(t.slice.value if isinstance(t.slice, ast.Index) else t.slice) or ""
                        if "ARCH" in key:
                            found["archs"].append((m, p, "torch"))
                    elif isinstance(t, ast.Attribute) and t.attr == "parallel" and kind == "value" and self.in_build_ext(m, p):
                        found["parallel"].append((m, p))  # self.parallel = n: setuptools builds n extensions at once
                if kind == "value":
                    found["values"].append((m, p))
                return
            if isinstance(p, ast.keyword) and p.value is cur and p.arg in METADATA_KEYWORDS \
                    and self.to_setup(m, m.parent.get(p)):
                found["metadata"].append((m, p.value))
                return
            if isinstance(p, ast.Return) and p.value is cur:
                fn = enclosing_function(p, m)
                if fn is not None and self.index.unique(fn.name):
                    for m2, call in self.index.calls_of(fn.name):
                        self.follow(m2, call, (kind, pol, tv, prefix), found, depth + 1, seen)
                return
            if kind == "value":
                found["values"].append((m, cur))
            return

    @staticmethod
    def in_build_ext(m, node):
        """Whether node is in a method of a class derived from setuptools' build_ext or torch's
        BuildExtension (SageAttention d1a57a54 setup.py:243-249 BuildExtensionSeparateDir)."""
        up = m.parent.get(node)
        while up is not None and not isinstance(up, ast.ClassDef):
            up = m.parent.get(up)
        return up is not None and any(("build_ext" in (dotted(b) or "") or (dotted(b) or "").endswith("BuildExtension"))
                                      for b in up.bases)

    def to_setup(self, m, call):
        """Whether a call's keywords are setup()'s: setup(...) itself, or dict(...) returned by a
        function whose result setup(**...) takes (Torch-FL 1adbc974 setup.py:752, :859)."""
        if call_name(call) in ("setup", "setuptools.setup"):
            return True
        up = m.parent.get(call)
        fn = enclosing_function(call, m)
        if call_name(call) != "dict" or not isinstance(up, ast.Return) or fn is None or not self.index.unique(fn.name):
            return False
        calls = self.index.calls_of(fn.name)
        return bool(calls) and all(isinstance(m2.parent.get(c), ast.keyword) and m2.parent[c].arg is None
                                   and call_name(m2.parent.get(m2.parent[c])) in ("setup", "setuptools.setup")
                                   for m2, c in calls)

    def sink(self, m, cur, p, state, found, depth, seen):
        """Where a value ends that is no test: a string it is formatted into (a -j job count, an -I
        folder, another flag), a list element after "-j", a list it is appended to (followed as the
        list: to include_dirs=, setup()'s keywords), a keyword of a call (include_dirs=, max_workers=).
        True when the value ends here."""
        if isinstance(p, ast.FormattedValue) or isinstance(p, ast.BinOp) and isinstance(p.op, ast.Add) \
                and p.right is cur and isinstance(p.left, ast.Constant) and isinstance(p.left.value, str):
            text = m.parent.get(p) if isinstance(p, ast.FormattedValue) else p
            if not isinstance(text, (ast.JoinedStr, ast.BinOp)) or a_message(m, text):
                return isinstance(text, ast.JoinedStr)
            before = ""
            for v in (text.values if isinstance(text, ast.JoinedStr) else [text.left, text.right]):
                if v is p or v is cur:
                    break
                before += v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else "\0"
            before = before.rsplit("\0", 1)[-1]
            if before.endswith(JOB_FLAGS):
                found["jobs"].append((m, text))
            elif before.endswith(PATH_FLAGS):
                found["paths"].append((m, text))
            elif before.startswith("-") and not any(k in before for k in ARCH_MARKERS):
                found["flag_strings"].append((m, text))
            elif isinstance(text, ast.JoinedStr) and state[0] == "value":
                self.follow(m, text, state, found, depth + 1, seen)  # f"{version}+{local}": still the value
            return True
        if isinstance(p, (ast.List, ast.Tuple)) and cur in p.elts:
            i = p.elts.index(cur)
            if i and const_str(p.elts[i - 1]) in JOB_FLAGS:  # ["cmake", "--build", d, "-j", str(n)]
                found["jobs"].append((m, p))
                return True
            if state[0] == "value":
                self.follow(m, p, ("list",) + tuple(state[1:]), found, depth + 1, seen)
            return True
        target = None
        if isinstance(p, ast.Call) and cur in p.args and call_name(p) in ("append", "extend", "insert") \
                and isinstance(p.func.value, ast.Name):
            target = p.func.value.id
        elif isinstance(p, ast.AugAssign) and p.value is cur and isinstance(p.target, ast.Name):
            target = p.target.id
        if target is not None:  # the list holds it now: where the list goes
            for m2, use in self.index.uses(m, p, target):
                self.follow(m2, use, ("list",) + tuple(state[1:]), found, depth + 1, seen)
            return True
        if isinstance(p, ast.keyword) and p.value is cur:
            if p.arg in PATH_KEYWORDS:
                found["paths"].append((m, p.value))
                return True
            if p.arg in JOB_KEYWORDS and state[0] == "value":
                found["jobs"].append((m, p.value))
                return True
        if state[0] == "list" and not isinstance(p, (ast.Assign, ast.Return, ast.keyword)):
            return True  # a list read some other way: nothing more to say of the value
        return False

    def source_filter(self, m, cmp):
        """The comprehension whose `if` the comparison is, when it filters a list of source files
        ([f for f in sources_cu if pattern in f]): the value picks which sources compile."""
        cur, p = cmp, m.parent.get(cmp)
        while isinstance(p, (ast.BoolOp, ast.UnaryOp)):
            cur, p = p, m.parent.get(p)
        if not isinstance(p, ast.comprehension) or cur not in p.ifs or not isinstance(p.iter, ast.Name):
            return None
        scope = enclosing_function(p, m) or m.tree
        for n in ast.walk(scope):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target] if isinstance(n, ast.AugAssign) else []
            if any(isinstance(t, ast.Name) and t.id == p.iter.id for t in targets):
                if any(isinstance(x, ast.Constant) and isinstance(x.value, str) and x.value.endswith(SOURCE_SUFFIXES)
                       for x in ast.walk(n.value)):
                    return p
        return None

    def run(self, first):
        self.branches.find_ext_targets(first)
        literals = {}  # variable -> literals its value is compared with, across its reads
        lit_at = {}  # (variable, literal) -> where it is compared first
        results = []
        for m, node, s in self.reads.reads:
            probe = self.rocm.rocm_guard(m, node)
            if probe is not None:  # only a ROCm build reaches it: nothing of the CUDA build's
                self.set_effect(s, "rocm", False, "", False, (m, probe))
                continue
            found = {"sites": [], "values": [], "archs": [], "literals": set(), "lit_at": {}, "or_probe": False,
                     "filters": [], "metadata": [], "holders": set(), "jobs": [], "paths": [], "flag_strings": [], "parallel": [],
                     "spelling": {"seps": [], "parts": [], "dot_dropped": False, "suffix": False, "int_whole": False,
                                  "float_whole": False}}
            if isinstance(node, ast.Compare):  # 'X' in os.environ: a truth test of its presence
                self.follow(m, node, ("bool", isinstance(node.ops[0], ast.In), None, False), found)
            else:
                self.follow(m, node, ("value", True, None, False), found)
            # Also where the value is tested too: an architecture list is often checked for being set
            # before it is parsed (fused-ssim's `if cuda_archs_env:`, NATTEN's `CUDA_ARCH != ""`).
            if not found["archs"]:
                for vm, vnode in found["values"][:4]:
                    self.archs.arch_flow(vm, vnode, found)
            literals.setdefault(s["name"], set()).update(found["literals"])
            for lit, at in found["lit_at"].items():
                lit_at.setdefault((s["name"], lit), at)
            results.append((s, found))
        for s, found in results:
            self.decide(s, found, literals.get(s["name"], set()), lit_at)
        self.mark_decided_by_arch_list()
        self.mark_beside()
        self.mark_unreached(results)
        Packaging(self.p, self.index, self.branches, self).mark(self.reads.reads)

    def mark_decided_by_arch_list(self):
        """Names an `if` on TORCH_CUDA_ARCH_LIST (the list kiln sets) assigns in its branches hold what
        that list decides: an architecture flag built from them is the list's, not hard-coded
        (tgale96/grouped_gemm ebeae0bb setup.py:12-28: device_capability is "" once the list is set,
        and `if device_capability:` adds --generate-code=arch=compute_{device_capability})."""
        for m, node, s in self.reads.reads:
            if s["name"] != "TORCH_CUDA_ARCH_LIST":
                continue
            cur, up = node, m.parent.get(node)
            while up is not None and not isinstance(up, ast.stmt):
                cur, up = up, m.parent.get(up)
            if isinstance(up, ast.If) and up.test is cur:
                scope = enclosing_function(up, m) or m.tree
                self.archs.arch_names.setdefault((m.rel, id(scope)), set()).update(
                    t.id for st in up.body + up.orelse for n in ast.walk(st) if isinstance(n, ast.Assign)
                    for t in n.targets if isinstance(t, ast.Name))

    def mark_unreached(self, results):
        """Reads a CUDA build never reaches: in another backend's arm of a chain that builds CUDA's
        (mmcv a8073c74 setup.py:245 DIPU_ROOT in the DIOPI arm), or under a test of a backend choice
        kiln sets to CUDA's value that needs another value (Torch-FL 1adbc974 setup.py:335-339:
        FLAGOS_METAX_BOXING under `if ACCELERATOR == "metax":`)."""
        picks = {}  # id(a Name that holds a backend choice) -> (the CUDA value kiln sets, by prefix)
        for s, found in results:
            if s.get("effect") == "select":
                for h in found["holders"]:
                    picks[h] = (s["effect_value"].lower(), s["prefix"])
        for m, node, s in self.reads.reads:
            if s.get("effect") not in ("select", "rocm", "backend"):
                at = self.unreached_by(m, node, picks)
                if at is not None:
                    self.set_effect(s, "unreached", False, "", False, (m, at))

    def unreached_by(self, m, node, picks):
        """The `if` in node's function whose branch holding node a CUDA build does not take, or None."""
        cur, up = node, m.parent.get(node)
        while up is not None and not isinstance(up, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
            if isinstance(up, ast.If) and any(cur is x for x in up.body) and (
                    self.test_value(up.test, picks) is False or self.branches.backend_arm(m, up) is not None):
                return up
            if isinstance(up, ast.If) and any(cur is x for x in up.orelse) and self.test_value(up.test, picks) is True:
                return up
            cur, up = up, m.parent.get(up)
        return None

    def test_value(self, t, picks):
        """A test's truth where the backend choices hold kiln's CUDA values; None when it depends on more."""
        if isinstance(t, ast.BoolOp):
            vals = [self.test_value(v, picks) for v in t.values]
            if isinstance(t.op, ast.And):
                return False if False in vals else True if all(v is True for v in vals) else None
            return True if True in vals else False if all(v is False for v in vals) else None
        if isinstance(t, ast.UnaryOp) and isinstance(t.op, ast.Not):
            v = self.test_value(t.operand, picks)
            return None if v is None else not v
        if not (isinstance(t, ast.Compare) and len(t.ops) == 1 and id(t.left) in picks):
            return None
        value, prefix = picks[id(t.left)]
        op, other = t.ops[0], t.comparators[0]
        lits = [const_str(other)] if isinstance(op, (ast.Eq, ast.NotEq)) else [const_str(e) for e in other.elts] \
            if isinstance(op, (ast.In, ast.NotIn)) and isinstance(other, (ast.Tuple, ast.List, ast.Set)) else [None]
        if None in lits:
            return None
        hit = any(x.lower() == value or prefix and x.lower().startswith(value) for x in lits)
        return hit if isinstance(op, (ast.Eq, ast.In)) else not hit

    def mark_beside(self):
        """For each switch whose branch makes extensions, the switches that decide the extensions
        made outside that branch ("" for those made under none): one that only adds an extension
        beside others the project builds anyway (apex's contrib switches beside APEX_CPP_EXT and
        APEX_CUDA_EXT) is told from one without which nothing is built (ColossalAI's BUILD_EXT,
        whose branch holds every extension). kiln decides which of the two it is
        (src/read/project_knobs.cpp); a statement in a function counts where the function is called."""
        if not self.ext_sites:
            return
        made = [(m, st) for m in self.p.modules if m.depth <= 1 for st in ast.walk(m.tree)
                if isinstance(st, ast.stmt) and not hasattr(st, "body") and self.branches.makes_extension(st)]
        for s, m, site in self.ext_sites:
            names = set()
            for pm, st in made:
                if pm is m and self.controls(m, st, site):
                    continue
                where = self.run_from(pm, st)
                if where is None or any(wm is m and self.inside(wm, w, site) for wm, w in where):
                    continue
                for wm, w in where:
                    under = {s2["name"] for s2, m2, site2 in self.ext_sites if m2 is wm and self.inside(wm, w, site2)}
                    if s["name"] in under:
                        break
                    names.update(under or {""})
            if names:
                s["beside"] = sorted(names)

    def run_from(self, m, node, depth=0):
        """The places node runs from: itself outside any function, else its function's calls (None
        when unknown: a function of several definitions, never called by name, or too deep)."""
        fn = enclosing_function(node, m)
        if fn is None:
            return [(m, node)]
        if depth > 3 or not self.index.unique(fn.name):
            return None
        calls = self.index.calls_of(fn.name)
        out = []
        for m2, c in calls:
            w = self.run_from(m2, c, depth + 1)
            if w is None:
                return None
            out += w
        return out or None

    @staticmethod
    def inside(m, node, st):
        while node is not None:
            if node is st:
                return True
            node = m.parent.get(node)
        return False

    def controls(self, m, node, site):
        """Whether the if `site` decides whether node runs: node is in it, or after it where its
        branch leaves the function (`if not X: return [...]`)."""
        if self.inside(m, node, site):
            return True
        return id(site) in self.branches.early_exits and any(self.inside(m, node, st)
                                                              for st in self.branches.rest_of_block(m, site))

    def decide(self, s, found, literals, lit_at):
        cudaish = sorted((v, pre) for v, pre in literals if v.lower() == "cuda" or pre and v.lower() == "cu")
        if len({v.lower() for v, _ in literals}) >= 2 and cudaish:
            v, pre = cudaish[0]
            self.set_effect(s, "select", True, v, pre, lit_at.get((s["name"], v)))
            return
        best = None
        nonempty_opens = False  # the best gate opens for any non-empty value: a list of targets opens it
        for m, st, pol, tv, prefix, bare in found["sites"]:
            eff = self.branches.site_effect(m, st)
            if eff is None:
                continue
            effect, when = eff
            on_match = when == pol
            want = not on_match if effect in ("swallow", "backend", "ninja") else on_match
            rank = {"swallow": 0, "cuda": 1, "backend": 1, "ext": 2, "ninja": 3, "archgate": 3}[effect]
            if best is None or rank < best[0]:
                best = (rank, effect, want, tv, prefix, (m, st))
                nonempty_opens = effect != "swallow" and (want if bare else tv == "" and not want)
        if found["archs"] and (best is None or nonempty_opens or best[1] == "archgate"):
            best = None  # its own architecture list: the planned targets both fill it and open the gate
        libs = [x for m, st, *_ in found["sites"] for x in self.branches.libraries_of(m, st)]
        if best:
            self.set_effect(s, best[1], best[2], best[3], best[4], best[5])
            s["or_probe"] = found["or_probe"]
            if best[1] == "backend":
                s["before_cuda"] = self.branches.before_cuda.get(id(best[5][1]), False)
            if best[1] == "ext":  # an opt-out too (AutoGPTQ's DISABLE_QIGEN): what it decides may be one part
                self.ext_sites.append((s, best[5][0], best[5][1]))
            if best[1] == "archgate":  # want: the branch with the architectures taken; kiln decides by the plan
                s["gate_archs"] = self.branches.gate_archs[id(best[5][1])]
                self.archs.arch_ids.add(id(best[5][1]))  # its -gencode lines are this switch's to set
        elif found["archs"]:
            m, n, reach = found["archs"][0]
            sp = found["spelling"]
            seps = sp["seps"]
            form = "dotted" if "." in sp["parts"] or sp["float_whole"] else "numbers" if sp["int_whole"] else ""
            self.set_effect(s, "archs", True, "", False, (m, n))
            s["arch"] = {"reach": reach, "sep": ";" if ";" in seps else seps[0] if seps else "", "form": form,
                         "dot_dropped": sp["dot_dropped"], "suffix": bool(sp["suffix"]) and (form == "dotted" or not sp["int_whole"])}
        elif found["filters"]:
            self.set_effect(s, "subset", False, "", False, found["filters"][0])
        elif found["parallel"]:
            self.set_effect(s, "parallel", False, "", False, found["parallel"][0])
        elif found["jobs"]:
            self.set_effect(s, "jobs", False, "", False, found["jobs"][0])
        elif found["paths"] and not found["sites"]:
            self.set_effect(s, "path", False, "", False, found["paths"][0])
        elif libs and all(self.branches.libraries_of(m, st) or self.branches.flags_only(m, st) for m, st, *_ in found["sites"]):
            m, st, pol, tv = next(x[:4] for x in found["sites"] if self.branches.libraries_of(x[0], x[1]))
            self.set_effect(s, "library", pol, tv or "1", False, (m, st))
            s["libraries"] = sorted(set(libs))
        elif (found["sites"] or found["flag_strings"]) and all(self.branches.flags_only(m, st) for m, st, *_ in found["sites"]):
            self.set_effect(s, "flags", False, "", False, self.branches.flags_only(*found["sites"][0][:2])
                            if found["sites"] else found["flag_strings"][0])
        elif found["metadata"] and not found["sites"]:
            self.set_effect(s, "metadata", False, "", False, found["metadata"][0])

    @staticmethod
    def set_effect(s, effect, want, value, prefix, at):
        s["effect"] = effect
        s["want_match"] = bool(want)
        s["effect_value"] = value or ""
        s["prefix"] = bool(prefix)
        if at is not None:
            m, node = at
            s["effect_where"] = m.where(node)
            s["effect_text"] = m.text(node.lineno)


class ArchParsers:
    """The project's own reading of an architecture list: where its entries go through int()."""

    def __init__(self, project, reads):
        self.p, self.reads = project, reads

    def scan(self):
        """Code that reads an architecture list (TORCH_CUDA_ARCH_LIST, a project's own *_CUDA_ARCHS)
        and converts parts of its entries with int() (DeepSpeed's op builders): such a parser fails
        on 9.0a / 10.0f, so kiln must pass it plain entries. The value is followed by name through
        assignments, loops, comprehensions and lambdas given it (sorted(ccs, key=lambda cc: ...)),
        into the project's functions it is passed to (a helper that receives the list), and out of
        a function that returns it (TransformerEngine's cuda_archs(), build_tools/utils.py:275)."""
        found = {}  # var -> {"read", "sites": [(m, node, safe)], "plus_ok"}
        sources = {}  # name of a project function that returns the list -> var
        env_reads = {}  # module -> [(node, (var, where))]: the environment reads, found once
        for m in self.p.modules:
            if m.depth <= 1:
                env_reads[m.rel] = [(n, v) for n in m.nodes for v in [self.arch_var(n, m, {})] if v]
        for _ in range(3):  # a function returning the list makes its calls reads too
            before = len(sources)
            for m in self.p.modules:
                if m.depth > 1:
                    continue
                scopes = {}  # the innermost function (or the module) of each read
                calls = [(n, sources[f]) for n in m.nodes if isinstance(n, ast.Call)
                         for f in [n.func.id if isinstance(n.func, ast.Name) else n.func.attr if isinstance(n.func, ast.Attribute) else None]
                         if f in sources] if sources else []
                for n, v in env_reads[m.rel] + calls:
                    scope = enclosing_function(n, m) or m.tree
                    scopes.setdefault(id(scope), (scope, {}))[1].setdefault(v[0], []).append((n, v[1]))
                for scope, reads in scopes.values():
                    self.arch_scope(m, scope, reads, found, sources)
            if len(sources) == before:
                break
        for var, f in found.items():
            if not f["sites"] or f["read"] is None:
                continue
            unsafe = [x for x in f["sites"] if not x[2]]
            kept = unsafe or f["sites"]
            home = kept[0][0].rel  # the file where the value is first converted: its last site is shown
            sites = sorted(kept, key=lambda x: (x[0].rel, x[1].lineno))
            uniq = []
            for x in sites:
                if x[0].where(x[1]) not in [u[0].where(u[1]) for u in uniq]:
                    uniq.append(x)
            last = [x for x in uniq if x[0].rel == home][-1]
            self.p.out["arch_parsers"].append({"var": var, "read": f["read"], "sites": [x[0].where(x[1]) for x in uniq],
                                             "text": last[0].text(last[1].lineno), "plus_ok": f["plus_ok"],
                                             "suffix_ok": not unsafe})

    def arch_var(self, node, m, sources):
        """(variable, where it is read) when node reads an architecture list: an environment read,
        or a call of a project function that returns one; else None."""
        r = self.reads.env_read(node, m)
        if r:
            names = self.reads.key_names(r[0], m, node) or []
            if names and (names[0] in ("TORCH_CUDA_ARCH_LIST", "CUDA_ARCHS", "CUDAARCHS")
                          or names[0].endswith(("_CUDA_ARCHS", "_CUDA_ARCH_LIST"))):
                return names[0], m.where(node)
            return None
        if isinstance(node, ast.Call):
            name = node.func.id if isinstance(node.func, ast.Name) else node.func.attr if isinstance(node.func, ast.Attribute) else None
            return sources.get(name)
        return None

    def arch_scope(self, m, scope, reads, found, sources):
        walked = list(ast.walk(scope))
        for var, nodes in reads.items():
            f = found.setdefault(var, {"read": None, "sites": [], "plus_ok": False, "seen": set()})
            had = len(f["sites"])
            returns = self.follow_list(m, scope, walked, set(id(n) for n, _ in nodes), set(), f, 0)
            first = min(nodes, key=lambda x: x[0].lineno)[1]
            if len(f["sites"]) > had and f["read"] is None:
                f["read"] = first  # the read whose value reaches an int()
            if returns and isinstance(scope, ast.FunctionDef):
                sources.setdefault(scope.name, (var, first))

    def follow_list(self, m, scope, walked, read_ids, tainted, f, depth):
        """Follows the list from read_ids / tainted names through scope, records each int()/float()
        of it in f, and into the project's functions it is passed to. True when scope returns it."""
        def mentions(expr):
            return any(id(x) in read_ids or isinstance(x, ast.Name) and x.id in tainted for x in ast.walk(expr))

        def names(target):
            return [x.id for x in ast.walk(target) if isinstance(x, ast.Name)]

        for _ in range(8):  # to a fixed point; names only grow
            before = len(tainted)
            for n in walked:
                if isinstance(n, ast.Assign) and mentions(n.value):
                    for t in n.targets:
                        tainted.update(names(t))
                elif isinstance(n, (ast.AugAssign, ast.AnnAssign)) and n.value is not None and mentions(n.value):
                    tainted.update(names(n.target))
                elif isinstance(n, (ast.For, ast.comprehension)) and mentions(n.iter):
                    tainted.update(names(n.target))
                elif isinstance(n, ast.Call) and any(mentions(a) for a in n.args):
                    for a in list(n.args) + [k.value for k in n.keywords]:
                        if isinstance(a, ast.Lambda):
                            tainted.update(x.arg for x in a.args.args)
            if len(tainted) == before:
                break
        for n in walked:
            if not isinstance(n, ast.Call):
                continue
            if isinstance(n.func, ast.Name) and n.func.id in ("int", "float") and n.args and mentions(n.args[0]):
                safe = False
                for x in ast.walk(n.args[0]):
                    if isinstance(x, ast.Call) and isinstance(x.func, ast.Attribute) and x.args and const_str(x.args[0]) is not None:
                        cut = const_str(x.args[0])
                        if x.func.attr in ("split", "rstrip", "replace") and cut in ("+", "+PTX"):
                            f["plus_ok"] = True  # int(part.split('+')[0]): "+PTX" is cut off first
                        if x.func.attr in ("rstrip", "strip") and "a" in cut:
                            safe = True  # int(t.rstrip("af")): the variant letters are cut off first
                cur, up = n, m.parent.get(n)  # t.isdigit() and int(t) >= 90: not reached for 90a
                while isinstance(up, (ast.Compare, ast.BinOp, ast.UnaryOp)):
                    cur, up = up, m.parent.get(up)
                if isinstance(up, ast.BoolOp) and isinstance(up.op, ast.And):
                    for v in up.values[: up.values.index(cur) if cur in up.values else 0]:
                        if isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr in ("isdigit", "isnumeric", "isdecimal"):
                            safe = True
                f["sites"].append((m, n, safe))
        for n in walked:  # then the functions it is handed to, so this scope's sites come first
            if not isinstance(n, ast.Call) or isinstance(n.func, ast.Name) and n.func.id in ("int", "float"):
                continue
            callee = n.func.id if isinstance(n.func, ast.Name) else n.func.attr if isinstance(n.func, ast.Attribute) else None
            if depth >= 3 or callee not in self.p.fns or isinstance(n.func, ast.Attribute) and mentions(n.func.value):
                continue  # ccs.append(x) is the list's own method, not the project's function
            for m2, fn2 in self.p.fns[callee]:
                params = [a.arg for a in fn2.args.args]
                skip = 1 if params and params[0] in ("self", "cls") and isinstance(n.func, ast.Attribute) else 0
                given = {params[i + skip] for i, a in enumerate(n.args) if i + skip < len(params) and mentions(a)}
                given |= {k.arg for k in n.keywords if k.arg in params and mentions(k.value)}
                key = (id(fn2), frozenset(given))
                if given and key not in f["seen"]:
                    f["seen"].add(key)
                    self.follow_list(m2, fn2, list(ast.walk(fn2)), set(), set(given), f, depth + 1)
        return any(isinstance(n, ast.Return) and n.value is not None and mentions(n.value) for n in walked)


class BuildFacts:
    """What the build makes: its extensions, the evidence of CUDA code, the GPU probe that gates it,
    nvcc architecture flags of its own and a CMake run."""

    def __init__(self, project, archs):
        self.p, self.archs = project, archs

    def scan(self, m, is_setup):
        alias = {}  # from torch.utils.cpp_extension import CUDAExtension as ExtensionBuilder
        for node in m.nodes:
            if isinstance(node, ast.ImportFrom):
                for a in node.names:
                    if a.asname and a.name in EXT_CALLS:
                        alias[a.asname] = a.name
            # extension = CppExtension ... extension = CUDAExtension; extension(...) (detectron2)
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                    and isinstance(node.value, ast.Name) and node.value.id in EXT_CALLS:
                if node.value.id == "CUDAExtension" or node.targets[0].id not in alias:
                    alias[node.targets[0].id] = node.value.id
                if node.value.id == "CUDAExtension" and not self.p.out["cuda_evidence"]:
                    self.p.out["cuda_evidence"] = "%s %s" % (m.where(node), m.text(node.lineno))
        for node in m.nodes:
            # setup.py that imports torch's extension builder: a torch extension build, even where
            # its own backend or a helper makes the extensions.
            if is_setup and isinstance(node, ast.ImportFrom) and node.module == "torch.utils.cpp_extension":
                self.p.out["extensions"].append({"kind": "torch.utils.cpp_extension", "where": m.where(node), "text": m.text(node.lineno)})
            if isinstance(node, ast.ImportFrom) and any(a.name in alias.values() for a in node.names):
                for a in node.names:
                    if a.asname in alias and not self.p.out["cuda_evidence"] and a.name == "CUDAExtension":
                        self.p.out["cuda_evidence"] = "%s %s" % (m.where(node), m.text(node.lineno))
            if isinstance(node, ast.Call):
                f = dotted(node.func) or ""
                short = f.rsplit(".", 1)[-1]
                short = alias.get(short, short)
                if short in EXT_CALLS:
                    self.p.out["extensions"].append({"kind": short, "where": m.where(node), "text": m.text(node.lineno)})
                    if short == "CUDAExtension" and not self.p.out["cuda_evidence"]:
                        self.p.out["cuda_evidence"] = "%s %s" % (m.where(node), m.text(node.lineno))
                if is_setup and short == "setup" and any(kw.arg == "ext_modules" and not (isinstance(kw.value, (ast.List, ast.Tuple)) and not kw.value.elts) for kw in node.keywords):
                    self.p.out["extensions"].append({"kind": "ext_modules", "where": m.where(node), "text": m.text(node.lineno)})
                if is_setup and f.endswith("cuda.is_available") and not self.p.out["probes"] and self.gates_cuda(node, m, alias):
                    self.p.out["probes"].append({"where": m.where(node), "text": m.text(node.lineno)})
            # os.environ["TORCH_CUDA_ARCH_LIST"] = "3.7+PTX;5.0;...": the project replaces the planned list
            # with its own before cpp_extension reads it (erikwijmans/Pointnet2_PyTorch b5ceb6d9).
            if is_setup and not self.p.out["hardcoded_archs"] and isinstance(node, ast.Assign) \
                    and const_str(node.value) and any(environ_key(t) == "TORCH_CUDA_ARCH_LIST" for t in node.targets) \
                    and not under_test_of(m, node, "TORCH_CUDA_ARCH_LIST"):  # kaolin, apex: only when it is unset
                self.p.out["hardcoded_archs"] = "%s %s" % (m.where(node), m.text(node.lineno))
            s = node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None
            if s is None:
                continue
            if (s.endswith(".cu") or s == "nvcc" and isinstance(m.parent.get(node), ast.Dict)) and not self.p.out["cuda_evidence"] and is_setup:
                self.p.out["cuda_evidence"] = "%s %s" % (m.where(node), m.text(node.lineno))
            if is_setup and not self.p.out["hardcoded_archs"] and ("arch=compute_" in s or s in ("-gencode", "--generate-code")
                                                                  or ARCH_FLAG.match(s)) \
                    and not self.archs.arch_controlled(m, node):  # a line the project's own list drives is not hard-coded
                self.p.out["hardcoded_archs"] = "%s %s" % (m.where(node), m.text(node.lineno))
            if m.depth <= 1 and not self.p.out["calls_cmake"] and s == "cmake" and isinstance(m.parent.get(node), (ast.List, ast.Call)):
                self.p.out["calls_cmake"] = "%s %s" % (m.where(node), m.text(node.lineno))

    def gates_cuda(self, probe, m, alias):
        """Whether torch.cuda.is_available() at `probe` decides if CUDA code is built: it is (or is
        assigned to a name that is) in the test of an `if` whose body makes a CUDAExtension, adds .cu
        sources or nvcc flags, or names CUDA. A probe that only picks a flag (DeepSpeed's bf16
        check, setup.py:288) is not a gate."""
        cuda_calls = {"CUDAExtension"} | {k for k, v in alias.items() if v == "CUDAExtension"}

        def cuda_body(stmts):
            for st in stmts:
                for n in ast.walk(st):
                    if isinstance(n, ast.Name) and (n.id in cuda_calls or "cuda" in n.id.lower() and n.id != "torch"):
                        return True
                    if isinstance(n, ast.Constant) and isinstance(n.value, str) and (
                            n.value.endswith((".cu", ".cuh")) or n.value == "nvcc" or "WITH_CUDA" in n.value):
                        return True
            return False

        tests = []
        up, cur = m.parent.get(probe), probe
        while up is not None and not isinstance(up, (ast.stmt,)):
            cur, up = up, m.parent.get(up)
        if isinstance(up, (ast.If, ast.While)) and up.test is cur:
            tests.append(up)
        elif isinstance(up, ast.Assign) and len(up.targets) == 1 and isinstance(up.targets[0], ast.Name):
            var = up.targets[0].id  # USE_CUDA = torch.cuda.is_available() ... if USE_CUDA:
            tests += [n for n in m.nodes if isinstance(n, (ast.If, ast.IfExp))
                      and any(isinstance(x, ast.Name) and x.id == var for x in ast.walk(n.test))]
        # a conditional expression: CUDAExtension if torch.cuda.is_available() else CppExtension
        tests += [n for n in m.nodes if isinstance(n, ast.IfExp) and any(x is probe for x in ast.walk(n.test))]
        return any(cuda_body([ast.Expr(t.body)] if isinstance(t, ast.IfExp) else t.body) for t in tests)


class OpBuilders:
    """Op-builder classes (DeepSpeed's pattern): each op's switch and what its is_compatible checks."""

    def __init__(self, project, reads):
        self.p, self.reads = project, reads

    def scan(self, m):
        """Op-builder classes (DeepSpeed's pattern): BUILD_VAR = "DS_BUILD_X", NAME = "x", a base
        class chain that says CUDA, and what is_compatible checks."""
        classes = {}  # the module's own classes first, then the first of that name elsewhere
        for mm in [m] + self.p.modules:
            for c in mm.tree.body:
                if isinstance(c, ast.ClassDef):
                    classes.setdefault(c.name, [dotted(b) or "" for b in c.bases])
        for c in m.tree.body:
            if not isinstance(c, ast.ClassDef):
                continue
            attrs = {}
            for st in c.body:
                if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
                    v = const_str(st.value)
                    if v is not None:
                        attrs[st.targets[0].id] = (v, st.lineno)
            if "BUILD_VAR" not in attrs or "NAME" not in attrs:
                continue  # a base class: no op of its own
            chain, todo = [], [c.name]
            while todo and len(chain) < 20:
                n = todo.pop()
                chain.append(n)
                todo += [b.rsplit(".", 1)[-1] for b in classes.get(n, []) if b]
            op = {"name": attrs.get("NAME", (c.name, 0))[0], "var": attrs["BUILD_VAR"][0],
                  "where": "%s:%d" % (m.rel, attrs["BUILD_VAR"][1]), "class": c.name,
                  "cuda": any("CUDA" in n for n in chain), "libraries": [], "min_cc": 0, "checks": ""}
            op["torch"], op["open"] = [], []
            for fn in c.body:
                if isinstance(fn, ast.FunctionDef) and fn.name == "is_compatible":
                    op["checks"] = m.where(fn)
                    self.op_checks(fn, op)
                    self.op_other_checks(m, c, fn, op)
            if all(o["var"] != op["var"] for o in self.p.out["ops"]):  # another accelerator's copy of an op
                self.p.out["ops"].append(op)

    def op_checks(self, fn, op):
        for n in ast.walk(fn):
            if isinstance(n, ast.Call) and (dotted(n.func) or "").endswith("has_function") and len(n.args) > 1 and isinstance(n.args[1], (ast.Tuple, ast.List)):
                op["libraries"] += [const_str(e) for e in n.args[1].elts if const_str(e)]
            if isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], ast.Lt):
                left = dotted(n.left) or (dotted(n.left.func) if isinstance(n.left, ast.Call) else "") or ""
                v = n.comparators[0]
                if "capab" in left.lower() and isinstance(v, ast.Constant) and isinstance(v.value, int):
                    op["min_cc"] = max(op["min_cc"], v.value * 10 if v.value < 20 else v.value)

    def torch_parts(self, m, fn):
        """Names bound to int(torch.__version__.split(".")[i]) (major, minor) or to
        int(torch.version.cuda.split(".")[0]) (cuda_major), in fn or at the module's top level."""
        parts = {}
        for n in list(ast.walk(fn)) + list(m.tree.body):
            if not (isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)):
                continue
            v = n.value
            if not (isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == "int" and v.args):
                continue
            sub = v.args[0]
            if not (isinstance(sub, ast.Subscript) and isinstance(sub.value, ast.Call)):
                continue
            idx = sub.slice.value if isinstance(sub.slice, ast.Index) else sub.slice  # 3.8 wraps it
            src = dotted(sub.value.func) or ""
            if not isinstance(idx, ast.Constant) or idx.value not in (0, 1) or not src.endswith(".split"):
                continue
            if src == "torch.__version__.split":
                parts[n.targets[0].id] = "major" if idx.value == 0 else "minor"
            elif src == "torch.version.cuda.split" and idx.value == 0:
                parts[n.targets[0].id] = "cuda_major"
        return parts

    def op_other_checks(self, m, cls, fn, op):
        """What else is_compatible checks. Comparisons of torch's version (or its CUDA's) with a
        number, where it is clear whether they must hold: `X = (A and B)` (returned) must, `if A:
        return False` / `if A or B: ok = False` must not. The rest (environment reads such as
        CUTLASS_PATH, imports such as triton, a torch comparison of another shape) is named."""
        parts = self.torch_parts(m, fn)

        def cmp_of(node):
            if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.left, ast.Name) \
                    and node.left.id in parts and isinstance(node.comparators[0], ast.Constant) \
                    and isinstance(node.comparators[0].value, int):
                return [parts[node.left.id], type(node.ops[0]).__name__, node.comparators[0].value]
            return None

        used = set()
        for n in ast.walk(fn):
            if isinstance(n, ast.Assign):
                vals = n.value.values if isinstance(n.value, ast.BoolOp) and isinstance(n.value.op, ast.And) else [n.value]
                cmps = [cmp_of(v) for v in vals]
                if cmps and all(cmps):
                    op["torch"].append({"all": cmps, "need": True, "where": m.where(n), "text": m.text(n.lineno)})
                    used.update(id(v) for v in vals)
            if isinstance(n, ast.If):
                fails = any(isinstance(b, ast.Return) and isinstance(b.value, ast.Constant) and b.value.value is False
                            or isinstance(b, ast.Assign) and isinstance(b.value, ast.Constant) and b.value.value is False
                            for b in ast.walk(n) if b is not n.test)
                tests = n.test.values if isinstance(n.test, ast.BoolOp) and isinstance(n.test.op, ast.Or) else [n.test]
                for t in tests:
                    c = cmp_of(t)
                    if c and fails:
                        op["torch"].append({"all": [c], "need": False, "where": m.where(t), "text": m.text(t.lineno)})
                        used.add(id(t))
        for n in ast.walk(fn):
            if cmp_of(n) and id(n) not in used:
                op["open"].append({"where": m.where(n), "text": m.text(n.lineno),
                                   "why": "a comparison of torch's version kiln cannot place"})
        scopes = [fn] + [f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"]
        for sc in scopes:
            for n in ast.walk(sc):
                r = self.reads.env_read(n, m)
                names = self.reads.key_names(r[0], m, n) if r else None
                if names and names[0].endswith(("_PATH", "_HOME", "_DIR", "_ROOT")):  # a folder it needs
                    op["open"].append({"where": m.where(n), "text": m.text(n.lineno), "folder_var": names[0],
                                       "why": "needs %s (a folder it reads); what must be there is not decided statically" % names[0]})
        for n in ast.walk(fn):
            mods = [a.name for a in n.names] if isinstance(n, ast.Import) else \
                [n.module or ""] if isinstance(n, ast.ImportFrom) and not n.level else []
            for mod in mods:
                if mod.split(".")[0] not in ("torch", "os", "sys", "subprocess", "shutil", "pathlib", "glob"):
                    op["open"].append({"where": m.where(n), "text": m.text(n.lineno), "module": mod.split(".")[0],
                                       "required": self.import_required(m, n, fn),
                                       "why": "imports %s, whose presence at build time kiln does not check" % mod})

    def import_required(self, m, node, fn):
        """Whether is_compatible fails without the module: the import sits in a try whose
        ImportError handler returns False or sets False (DeepSpeed op_builder/fp_quantizer.py:50-55)."""
        up = m.parent.get(node)
        while up is not None and up is not fn:
            if isinstance(up, ast.Try) and any(node is x for st in up.body for x in ast.walk(st)):
                for h in up.handlers:
                    caught = [dotted(e) for e in (h.type.elts if isinstance(h.type, ast.Tuple) else [h.type])] if h.type else ["*"]
                    if not any(c in ("*", "ImportError", "ModuleNotFoundError", "Exception") for c in caught):
                        continue
                    for b in h.body:
                        for x in ast.walk(b):
                            v = x.value if isinstance(x, (ast.Return, ast.Assign)) else None
                            if isinstance(v, ast.Constant) and v.value is False:
                                return True
                return False
            up = m.parent.get(up)
        return False


class TorchChecks:
    """The torch versions setup.py checks in code and stops on (an assert, or an if whose branch
    raises): kaolin's `if torch_ver < parse_version(TORCH_MIN_VER) or torch_ver > ...: raise`,
    NATTEN's `assert torch_ver >= [2, 5]`. Each as a specifier the version must meet (">=2.5.1"),
    so the plan can say before any compile that this torch fails it."""

    NEGATE = {ast.Lt: ">=", ast.LtE: ">", ast.Gt: "<=", ast.GtE: "<", ast.Eq: "!=", ast.NotEq: "=="}
    SAME = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}
    FLIP = {ast.Lt: ast.Gt, ast.LtE: ast.GtE, ast.Gt: ast.Lt, ast.GtE: ast.LtE, ast.Eq: ast.Eq, ast.NotEq: ast.NotEq}

    def __init__(self, project):
        self.p = project

    @staticmethod
    def reads_torch_version(node):
        return any(dotted(x) in ("torch.__version__", "torch.version.__version__") for x in ast.walk(node)
                   if isinstance(x, ast.Attribute))

    def version_names(self, m):
        """Names assigned from an expression that reads torch.__version__ as a whole (not a part of
        it: TORCH_MAJOR = int(torch.__version__.split(".")[0]) is one number, not the version)."""
        names = set()
        for n in m.nodes:
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) \
                    and self.reads_torch_version(n.value) \
                    and not any(isinstance(x, ast.Subscript) and isinstance(x.slice, (ast.Constant, ast.Index))
                                for x in ast.walk(n.value)):
                names.add(n.targets[0].id)
        return names

    def version_text(self, node, m):
        """"2.5.1" for "2.5.1", a module constant holding it, parse_version("2.5.1") / Version(...),
        or a list of numbers [2, 5]; else None."""
        if isinstance(node, ast.Call) and len(node.args) == 1 and call_name(node) in ("parse_version", "Version", "parse"):
            node = node.args[0]
        if isinstance(node, ast.Name):
            v = m.consts.get(node.id)
        elif isinstance(node, (ast.List, ast.Tuple)) and node.elts and all(
                isinstance(e, ast.Constant) and isinstance(e.value, int) and not isinstance(e.value, bool) for e in node.elts):
            v = ".".join(str(e.value) for e in node.elts)
        else:
            v = const_str(node) if isinstance(node, ast.Constant) and isinstance(node.value, str) else None
        if v and all(x.isdigit() for x in v.split(".")) and v.count(".") <= 3:
            return v
        return None

    def clause(self, cmp, m, names, negate):
        if not isinstance(cmp, ast.Compare) or len(cmp.ops) != 1:
            return None
        left, right, op = cmp.left, cmp.comparators[0], type(cmp.ops[0])
        is_torch = lambda e: (isinstance(e, ast.Name) and e.id in names) or (
            self.reads_torch_version(e) and not isinstance(e, ast.Subscript))
        if is_torch(right) and not is_torch(left):
            left, right, op = right, left, self.FLIP.get(op)
        if op is None or not is_torch(left):
            return None
        v = self.version_text(right, m)
        table = self.NEGATE if negate else self.SAME
        return table[op] + v if v and op in table else None

    def scan(self, m):
        names = self.version_names(m)
        for n in m.nodes:
            if isinstance(n, ast.Assert):
                test, negate, joined = n.test, False, ast.And
            elif isinstance(n, ast.If) and any(isinstance(x, ast.Raise) for st in n.body for x in ast.walk(st)):
                test, negate, joined = n.test, True, ast.Or  # `if a or b: raise` needs not a and not b
            else:
                continue
            parts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, joined) else [test]
            clauses = [self.clause(x, m, names, negate) for x in parts]
            if clauses and all(clauses):
                self.p.out["torch_checks"].append({"where": m.where(n), "text": m.text(n.lineno),
                                                   "specifier": ",".join(clauses)})


class SetupCfg:
    """setup.cfg: setuptools' own build options that change the build, and options of setup.py's
    commands that win over the environment variables they fall back to."""

    def __init__(self, project):
        self.p = project

    def cfg_entries(self):
        """setup.cfg's option lines: (line number, section, stripped line), comments and section
        headers left out; nothing when there is no setup.cfg or it is too big to be one."""
        path = os.path.join(self.p.root, "setup.cfg")
        if not os.path.isfile(path) or os.path.getsize(path) > MAX_BYTES:
            return
        section = None
        with open(path, encoding="utf-8", errors="replace") as f:
            for i, line in enumerate(f, 1):
                t = line.strip()
                if t.startswith("[") and t.endswith("]"):
                    section = t[1:-1].strip()
                elif section and ("=" in t or ":" in t) and not t.startswith(("#", ";")):
                    yield i, section, t

    def scan_cfg_build_options(self):
        """setup.cfg's [build_ext] / [build] options of setuptools' own commands that change what or
        how the build compiles ([build_ext] parallel = 8, inplace = 1): reported with file:line, since
        every setup.py build reads them and kiln leaves setup.cfg as it is."""
        for i, section, t in self.cfg_entries():
            if section not in ("build_ext", "build"):
                continue
            sep = min(x for x in (t.find("="), t.find(":")) if x >= 0)
            key, value = t[:sep].strip().replace("-", "_"), t[sep + 1:].strip()
            key = {"j": "parallel", "i": "inplace", "g": "debug", "f": "force", "t": "build_temp"}.get(key, key)
            why = CFG_BUILD_OPTIONS.get(key)
            if key in ("inplace", "debug", "force") and value.lower() not in ("1", "true", "yes", "on"):
                why = None  # a flag set off is setuptools' default
            if why and value:
                self.p.out["build_options"].append({"where": "setup.cfg:%d" % i, "text": "[%s] %s" % (section, t),
                                                  "why": why % {"value": value}})

    def scan_setup_cfg(self, first):
        """setup.cfg's command sections ([build_ext] cuda_arch = sm_52) set the options a command
        class in setup.py declares in user_options (pycudasift's build_ext: --cuda-arch, then
        CUDA_ARCH from the environment when unset): such a value beats the variable. Named with both
        lines; kiln does not edit setup.cfg."""
        options = {}
        for node in first.nodes:
            if isinstance(node, ast.ClassDef):
                for st in node.body:
                    if isinstance(st, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "user_options" for t in st.targets):
                        for e in ast.walk(st.value):
                            if isinstance(e, ast.Tuple) and e.elts and const_str(e.elts[0]):
                                name = const_str(e.elts[0]).rstrip("=")
                                options[name.replace("-", "_")] = (name, first.where(e))
        if not options:
            return
        for i, section, t in self.cfg_entries():
            key = t.split("=", 1)[0].split(":", 1)[0].strip().replace("-", "_")
            if key in options:
                name, where = options[key]
                self.p.out["undecided"].append({
                    "where": "setup.cfg:%d" % i, "text": "[%s] %s" % (section, t),
                    "why": "sets option --%s of a setup.py command (%s), which wins over any environment "
                           "variable it falls back to; kiln leaves setup.cfg as it is" % (name, where)})


class Reader:
    """Runs each concern over the project's files, in the order their findings need."""

    def __init__(self, root):
        self.p = Project(root)
        self.reads = EnvReads(self.p)
        self.index = Index(self.p)
        self.branches = Branches(self.p)
        self.rocm = RocmGuards()
        self.arch_flow = ArchFlow(self.p, self.index)
        self.effects = Effects(self.p, self.reads, self.index, self.branches, self.rocm, self.arch_flow)
        self.build = BuildFacts(self.p, self.arch_flow)
        self.ops = OpBuilders(self.p, self.reads)
        self.archs = ArchParsers(self.p, self.reads)
        self.cfg = SetupCfg(self.p)
        self.torch_checks = TorchChecks(self.p)

    def run(self, setup_py):
        out = self.p.out
        first = self.p.load(setup_py)
        if first is None:
            return out
        self.p.index_functions()
        self.reads.find_helpers()
        for m in list(self.p.modules):
            if m.depth <= 1:  # deeper modules are the package's run time, not its build
                self.reads.scan(m)
            self.reads.scan_flags(m)
        self.effects.run(first)
        self.reads.name_computed()
        for m in list(self.p.modules):
            self.build.scan(m, m is first)
            if m.depth == 1:  # the op-builder package setup.py imports, not other accelerators' copies
                self.ops.scan(m)
        self.archs.scan()
        self.torch_checks.scan(first)
        self.cfg.scan_setup_cfg(first)
        self.cfg.scan_cfg_build_options()
        flags = [s for s in out["sightings"] if s["flag"]]
        indirect = self.reads.indirect
        if indirect and not flags and not out["ops"] and indirect[2].startswith("setup.py:"):
            w = indirect[2]
            out["undecided"].append({"where": w, "text": first.text(int(w.split(":")[1])),
                                     "why": "a switch whose name is a variable kiln cannot read statically"})
        if indirect:
            for s in flags:
                if s["flag"]:
                    s["default"], s["true_value"] = indirect[0] or "", indirect[1]
                    s["has_default"] = indirect[0] is not None
        return out


def main():
    signal.alarm(20)  # a bound of our own, should the file be pathological
    root = os.path.abspath(sys.argv[1])
    out = Reader(root).run(os.path.join(root, "setup.py"))
    sys.stdout.write(json.dumps(out))


main()
