# Written by kiln (data/parallel_extensions.py): a torch extension project's extensions built at
# once instead of one after another.
#
# setuptools' build_ext builds extension after extension, and torch.utils.cpp_extension's
# BuildExtension compiles each with its own Ninja run over ONE build.ninja in build_temp: a naive
# parallel build_ext (setuptools' --parallel) has every extension rewrite that file while another
# Ninja reads it, and the Ninjas share one .ninja_log and .ninja_deps. Here each extension's Ninja
# file, log and deps live in its own folder (build_temp/kiln-ninja/<extension>); the compiles run
# in build_temp with the same command lines, the objects stay where the serial build puts them
# (their paths in the Ninja file are absolute) and are linked by the same link step, so the wheel
# holds the same modules built from the same objects. Every compile of
# every Ninja goes through `kiln exec`, whose governor and thread grants share one ledger: one pool
# for the machine. Each Ninja runs at -j MAX_JOBS, and kiln exec admits at most the plan's jobs
# compiles of the build at once, whichever Ninja started them (launch/compile_pool.hpp).
#
# A project of one extension takes the same path (one thread): its Ninja file gets the longest
# units first, as kiln weighs them (see _longest_first), which a lone extension with many CUDA
# units needs most.
#
# A failure in one extension stops the others (their Ninjas get SIGTERM, and Ninja stops its
# compiles) and is raised as the serial build raises it. Anything unexpected (a torch without these
# functions, a setuptools Library, a build without Ninja) leaves the build serial,
# exactly as the project runs it: kiln's part must never break a build. Extensions that share an
# object each compile into their own folder (see _separate_objects); a project that turned Ninja
# off compiles with it (see build_extensions).
# KILN_PARALLEL_EXTENSIONS=0 turns it off.
import inspect
import os
import re
import signal
import subprocess
import sys
import threading
import types

_local = threading.local()  # .ext: the extension this thread builds (None: not in a parallel build)
_lock = threading.Lock()
_running = {}  # extension name -> its Ninja (Popen)
_stop = threading.Event()
_plan = None  # the build's unit plan (KILN_UNIT_PLAN, see _write_plan), set per build


def _say(msg):
    print("kiln: parallel extensions: " + msg, file=sys.stderr, flush=True)


def _emit(text):
    # One whole line per write, under the lock: the Ninjas' outputs interleave by lines, never
    # inside one (a long nvcc command line is bigger than what a pipe writes atomically).
    data = text if isinstance(text, bytes) else text.encode()
    with _lock:
        sys.stdout.flush()
        os.write(1, data)


def _why_serial(cmd, exts):
    try:
        from setuptools.extension import Library
        if any(isinstance(e, Library) for e in exts):
            return "a setuptools Library among the extensions (others may link it)"
    except ImportError:
        pass
    if not hasattr(cmd, "build_extension"):
        return "no build_extension to call"
    if not getattr(cmd, "use_ninja", False):
        return "not built with Ninja (torch's compile without Ninja swaps the compiler per source)"
    names = set()
    for ext in exts:
        if ext.name in names:
            return "two extensions named " + ext.name
        names.add(ext.name)
    return ""


def _shared_objects(cmd, exts):
    # Extensions that compile the same source into the same object (pytorch_scatter's _x_cpu and
    # _x_cuda share csrc/x.cpp, built with other macros): serially, each rebuilds it in turn.
    owner, shared = {}, set()
    temp = os.path.abspath(cmd.build_temp)
    for ext in exts:
        for obj in cmd.compiler.object_filenames(ext.sources, output_dir=temp):
            if owner.setdefault(obj, ext.name) != ext.name:
                shared.add(os.path.relpath(obj, temp))
    return sorted(shared)


def _separate_objects(cmd, exts):
    # At once, shared objects would be written by two compiles: each extension then compiles into
    # its own folder, build_temp/kiln-obj/<extension>, unless the project already gave it one
    # (apex's BuildExtensionSeparateDir passes build_temp/<extension>).
    shared = _shared_objects(cmd, exts)
    if not shared:
        return
    temp = os.path.abspath(cmd.build_temp)
    compile_original = cmd.compiler.compile

    def compile(sources, output_dir=None, *args, **kwargs):
        name = getattr(_local, "ext", None)
        if name is not None and output_dir is not None and os.path.abspath(output_dir) == temp:
            output_dir = os.path.join(temp, "kiln-obj", name)
        return compile_original(sources, output_dir, *args, **kwargs)

    cmd.compiler.compile = compile
    _say("extensions share %d object(s) (%s): each compiles into build_temp/kiln-obj/<extension>" %
         (len(shared), ", ".join(shared[:3]) + (", ..." if len(shared) > 3 else "")))


def _ninja_folder(build_directory, name):
    path = os.path.join(build_directory, "kiln-ninja", name)
    os.makedirs(path, exist_ok=True)
    return path


def _run_ninja(ce, name, build_directory, verbose, error_prefix):
    # torch's _run_ninja_build, with the extension's name on Ninja's status lines (kiln's progress
    # adds the extensions up) and the output forwarded by whole lines.
    command = ["ninja", "-v"]
    workers = ce._get_num_workers(verbose)
    if workers is not None:
        command += ["-j", str(workers)]
    # The compiles run where the serial build runs them (build_temp): with -g the working folder
    # is in the objects' debug info. Ninja keeps its log and deps in the extension's own folder.
    build_file = os.path.join(build_directory, "build.ninja")
    with open(build_file) as f:
        text = f.read()
    units = _plan_lines(name, text, workers or 0)
    text, units = _longest_first(name, text, units, build_directory)
    # Ninja prints a status line only when a unit ends (no terminal): kiln's progress would count
    # only the extensions that had finished one (apex: "1/2" after 71 s of 37 units).
    _emit("KILN-EXT-UNITS %s %d\n" % (name, len(units)))
    with open(build_file, "w") as f:
        f.write("builddir = %s\n%s" % (build_directory, text))
    command += ["-f", build_file]
    cwd = getattr(_local, "cwd", None) or build_directory
    env = dict(os.environ, NINJA_STATUS="KILN-EXT %s [%%f/%%t] " % name)
    if _plan:
        _write_plan(units)
        env["KILN_UNIT_PLAN"] = _plan
    sys.stdout.flush()
    sys.stderr.flush()
    with _lock:
        if _stop.is_set():
            raise RuntimeError(error_prefix + ": stopped, another extension failed")
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                cwd=cwd, env=env)
        _running[name] = proc
    try:
        for line in proc.stdout:
            _emit(line)
        code = proc.wait()
    finally:
        with _lock:
            _running.pop(name, None)
    if code != 0:
        raise RuntimeError(error_prefix)


_UNIT = re.compile(r"^build (\S+): (cuda_compile|compile) (\S+)$")


def _plan_lines(name, text, jobs):
    # The units this Ninja is about to run, in its file order (launch/unit_plan.hpp has the
    # format), as (output, line). An object newer than its source is taken as up to date, so Ninja
    # will not run it.
    targets = 1
    for line in text.split("\n"):
        if line.startswith("cuda_post_cflags ="):
            targets = max(1, line.count("arch=compute_"))
    units = []
    for line in text.split("\n"):
        m = _UNIT.match(line)
        if not m or "\t" in m.group(1) + m.group(3):
            continue
        out, src = m.group(1), m.group(3)
        try:
            if os.path.getmtime(out) >= os.path.getmtime(src):
                continue
        except OSError:
            pass
        cuda = m.group(2) == "cuda_compile"
        units.append((out, "unit\t%s\t%d\t%s\t%d\t%s\t%s\n" % (name, jobs, "cuda" if cuda else "cxx",
                                                                 targets if cuda else 0, out, src)))
    return units


def _longest_first(name, text, units, folder):
    # Ninja starts ready compiles in file order, and kiln exec grants nvcc threads by each unit's
    # share of the work: the unit expected to take longest goes first, so it starts with the
    # others. kiln weighs the units (`kiln exec --weigh`, launch/plan_weights.hpp) exactly as its
    # thread grants do: learned CPU time in any checkout of the project, else an estimate from what
    # the source and its project headers include and instantiate. Only the order of the build lines changes; without kiln's answer
    # the project's order stays.
    kiln = os.environ.get("KILN_EXE")
    if not kiln or len(units) < 2:
        return text, units
    path = os.path.join(folder, "units.plan")
    try:
        with open(path, "w") as f:
            f.write("".join(line for _, line in units))
        r = subprocess.run([kiln, "exec", "--weigh", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, timeout=120)
    except (OSError, subprocess.SubprocessError) as e:
        _say("%s: the project's order (kiln could not weigh the units: %s)" % (name, e))
        return text, units
    if r.returncode != 0:
        _say("%s: the project's order (kiln could not weigh the units: %s)" % (name, r.stderr.strip()))
        return text, units
    basis, ranked = "", []
    for line in r.stdout.splitlines():
        key, _, value = line.partition("\t")
        if key == "basis":
            basis = value
        elif value:
            ranked.append((value, key))
    rank = {out: i for i, (out, _) in enumerate(ranked)}
    lines = text.split("\n")
    slots = [i for i, line in enumerate(lines) if _UNIT.match(line) and _UNIT.match(line).group(1) in rank]
    moved = sorted((lines[i] for i in slots), key=lambda line: rank[_UNIT.match(line).group(1)])
    for i, line in zip(slots, moved):
        lines[i] = line
    _say("%s: units longest first (kiln's weights, %s): %s" %
         (name, basis, ", ".join("%s=%s" % (os.path.basename(out), w) for out, w in ranked)))
    units = sorted(units, key=lambda u: rank.get(u[0], len(rank)))
    return "\n".join(lines), units


def _write_plan(units):
    # For kiln exec's thread grants: units that start in the same millisecond arrive one after
    # another, and each must know the others to take only its share.
    with _lock:
        with open(_plan, "a") as f:
            f.write("".join(line for _, line in units))


def _stop_others(failed):
    with _lock:
        if _stop.is_set():
            return
        _stop.set()
        others = [(n, p) for n, p in _running.items() if n != failed]
    for n, p in others:
        try:
            p.send_signal(signal.SIGTERM)
        except OSError:
            pass
    if others:
        _say("%s failed: stopped %s" % (failed, ", ".join(n for n, _ in others)))


def _one_at_a_time(parallel):
    # Whether distutils' build_ext builds one extension after another with this parallel. Its
    # build_extensions takes _build_extensions_parallel for any true value: a ThreadPoolExecutor of
    # `parallel` workers (True: os.cpu_count(), serial where that is unknown). Its finalize_options
    # makes a string an int; a project that sets one after it keeps the string ("1"), which that
    # executor cannot compare. A negative count or anything else stays the project's.
    if not parallel:
        return True
    if parallel is True:
        return (os.cpu_count() or 1) <= 1
    if isinstance(parallel, str):
        parallel = parallel.strip()
        if not parallel.isdigit():
            return False
    elif not isinstance(parallel, int) and not (isinstance(parallel, float) and parallel.is_integer()):
        return False
    return int(parallel) in (0, 1)


def _build_all(cmd, serial):
    exts = list(cmd.extensions)
    try:
        why = _why_serial(cmd, exts)
    except Exception as e:  # the check itself failed: build as the project does
        why = "could not check the extensions (%s)" % e
    if why:
        _say("serial: " + why)
        return serial()
    try:
        _separate_objects(cmd, exts)
    except Exception as e:
        _say("serial: could not check the extensions' objects (%s)" % e)
        return serial()
    _emit("KILN-EXTENSIONS %s\n" % " ".join(e.name for e in exts))
    global _plan
    try:
        os.makedirs(cmd.build_temp, exist_ok=True)
        _plan = os.path.join(os.path.abspath(cmd.build_temp), "kiln-units.plan")
        open(_plan, "w").close()  # a new build: the last one's units and done lines are gone
    except OSError:
        _plan = None
    failures = []  # (extension, exception), in the order they happened

    def one(ext):
        _local.ext = ext.name
        try:
            if _stop.is_set():
                return
            cmd.build_extension(ext)
            _emit("KILN-EXTENSION-DONE %s\n" % ext.name)
        except BaseException as e:
            with _lock:
                failures.append((ext, e))
            _stop_others(ext.name)
        finally:
            _local.ext = None

    threads = [threading.Thread(target=one, args=(e,), name="kiln-" + e.name) for e in exts]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if failures:
        ext, error = failures[0]  # the cause; the others were stopped because of it
        _emit("KILN-EXTENSION-FAILED %s\n" % ext.name)
        filt = getattr(cmd, "_filter_build_errors", None)
        if filt is None:
            raise error
        with filt(ext):
            raise error


def install():
    if os.environ.get("KILN_PARALLEL_EXTENSIONS", "1") == "0":
        return
    try:
        from torch.utils import cpp_extension as ce
    except Exception:
        return  # no torch here: the project's build runs as it would
    needed = ("BuildExtension", "_write_ninja_file_and_compile_objects", "_run_ninja_build", "_get_num_workers")
    missing = [n for n in needed if not hasattr(ce, n)]
    if missing:
        _say("off: this torch has no " + ", ".join(missing))
        return
    if "build_directory" not in inspect.signature(ce._write_ninja_file_and_compile_objects).parameters:
        _say("off: this torch's _write_ninja_file_and_compile_objects takes no build_directory")
        return
    write_original = ce._write_ninja_file_and_compile_objects
    run_original = ce._run_ninja_build
    build_original = ce.BuildExtension.build_extensions

    signature = inspect.signature(write_original)

    def write(*args, **kwargs):
        name = getattr(_local, "ext", None)
        if name is None:
            return write_original(*args, **kwargs)
        # build_directory by keyword (torch 1.13, 2.x) or by position: each extension its own.
        call = signature.bind(*args, **kwargs)
        _local.cwd = call.arguments["build_directory"]
        call.arguments["build_directory"] = _ninja_folder(_local.cwd, name)
        return write_original(*call.args, **call.kwargs)

    def run(build_directory, verbose, error_prefix="", *args, **kwargs):
        name = getattr(_local, "ext", None)
        if name is None or args or kwargs:
            return run_original(build_directory, verbose, error_prefix, *args, **kwargs)
        return _run_ninja(ce, name, build_directory, verbose, error_prefix)

    def build_extensions(self):
        # A project that turned Ninja off (pytorch_scatter: use_ninja=False) compiles one source
        # after another, each through a compiler swapped in place: Ninja instead, when there is one.
        if getattr(self, "use_ninja", True) is False and getattr(ce, "is_ninja_available", lambda: False)():
            self.use_ninja = True
            _say("compiling with Ninja (the project set use_ninja=False; KILN_PARALLEL_EXTENSIONS=0 keeps it)")
            # Its relative include folders were meant from setup.py's folder, where one-by-one
            # compiles run; Ninja compiles from the build folder (torch-points-kernels 40153193:
            # include_dirs=["cpu/include"], and ball_query.h not found).
            here = os.getcwd()
            for ext in self.extensions:
                ext.include_dirs = [d if os.path.isabs(d) else os.path.join(here, d) for d in ext.include_dirs]
        # distutils' build_extensions calls _build_extensions_serial unless parallel is set; a
        # parallel of more than one extension at a time is the project's (setuptools' own is left
        # alone). One at a time is serial there too, and is what kiln itself asks for: its
        # extension-parallel knob (data/project_knobs.toml) sets the project's switch (apex's
        # APEX_PARALLEL_BUILD, SageAttention's EXT_PARALLEL) to 1. Then kiln's side-by-side build
        # takes it, as it takes an unset one: distutils sees no parallel while it builds.
        serial = getattr(self, "_build_extensions_serial", None)
        parallel = getattr(self, "parallel", None)
        if serial is None or not _one_at_a_time(parallel):
            return build_original(self)
        self._build_extensions_serial = types.MethodType(lambda cmd: _build_all(cmd, serial), self)
        if parallel:
            _say("the project's parallel=%r builds one extension at a time: kiln builds them side by side"
                 % (parallel,))
        self.parallel = None
        try:
            return build_original(self)
        finally:
            self.parallel = parallel

    ce._write_ninja_file_and_compile_objects = write
    ce._run_ninja_build = run
    ce.BuildExtension.build_extensions = build_extensions
