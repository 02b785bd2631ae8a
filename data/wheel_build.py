# Written by kiln (data/wheel_build.py) into the build folder: builds the wheel with the project's
# PEP 517 backend, run as `python THIS WHEEL_DIR` in the project; prints `KILN-WHEEL NAME`
# (src/drive/wheel_build.cpp reads it). Python 3.8+: tomllib is 3.11+, pip vendors tomli since 21.2;
# a regex reads the one key if neither exists.
import importlib, os, re, sys

def build_system():
    if not os.path.exists("pyproject.toml"):
        return {}
    with open("pyproject.toml", "rb") as f:
        data = f.read()
    for name in ("tomllib", "pip._vendor.tomli", "tomli"):
        try:
            toml = importlib.import_module(name)
        except ImportError:
            continue
        return toml.loads(data.decode("utf-8")).get("build-system", {})
    m = re.search(rb'^\s*build-backend\s*=\s*["\']([^"\']+)["\']', data, re.M)
    return {"build-backend": m.group(1).decode()} if m else {}

def parallel_extensions():
    # kiln's helper beside this script builds a cpp_extension project's extensions at once; if it
    # cannot, the project's build runs as it would.
    try:
        with open("setup.py", encoding="utf-8", errors="replace") as f:
            if "cpp_extension" not in f.read():
                return
        import kiln_parallel_extensions
        kiln_parallel_extensions.install()
    except Exception as e:
        print("kiln: parallel extensions: off (%s)" % e, file=sys.stderr, flush=True)

def fast_zip():
    # The backend zips the wheel at zlib's default level (6); an extension's libraries are large
    # (tens to hundreds of MB with device code and -g) and level 1 deflates them about three times
    # faster for about a tenth more bytes. Only the zip's compressed streams change: the members are
    # the same bytes. wheel's and setuptools' WheelFile pass their own ZipInfo, so the level is set
    # where zipfile picks the compressor. KILN_WHEEL_ZIP_LEVEL=6 (or any 0-9) chooses another.
    import zipfile
    level = os.environ.get("KILN_WHEEL_ZIP_LEVEL", "1")
    get = getattr(zipfile, "_get_compressor", None)
    if get is None or not level.isdigit():
        return
    def compressor(compress_type, compresslevel=None):
        if compresslevel is None and compress_type == zipfile.ZIP_DEFLATED:
            compresslevel = int(level)
        return get(compress_type, compresslevel)
    zipfile._get_compressor = compressor

def private_build_folder(wheel_dir):
    # setuptools builds in the project's build/ (build_temp, build_lib, bdist) and writes its
    # .egg-info beside setup.py: two kiln builds of one project with their own --build-dir shared
    # them, and one linked _C.so while another copied it into its wheel (0 bytes). setuptools 62+
    # reads DIST_EXTRA_CONFIG after the project's own setup.cfg; an older one is told through its
    # build command's defaults. The folder is this kiln build folder's.
    base = os.path.join(os.path.dirname(os.path.abspath(wheel_dir)), "setuptools")
    os.makedirs(base, exist_ok=True)
    # egg_base relative to setup.py's folder (the cwd), as pip's build has it: egg_info lists the
    # .egg-info's files in its manifest by that path, and build_py's include_package_data asserts
    # every listed path relative unless it lies in a build folder (absolute_setup_paths below).
    if not os.environ.get("DIST_EXTRA_CONFIG"):
        cfg = os.path.join(base, "kiln.cfg")
        with open(cfg, "w") as f:
            f.write("[build]\nbuild_base = %s\n[egg_info]\negg_base = %s\n" % (base, os.path.relpath(base)))
        os.environ["DIST_EXTRA_CONFIG"] = cfg
    try:
        from distutils.command import build as build_cmd
        init = build_cmd.build.initialize_options
        def initialize_options(self):
            init(self)
            self.build_base = base
        build_cmd.build.initialize_options = initialize_options
    except Exception as e:
        print("kiln: setuptools build folder: %s (%s)" % (base, e), file=sys.stderr, flush=True)

def absolute_setup_paths():
    # setuptools 67.1+ runs setup.py with __file__ absolute (pypa/setuptools 7ced705dc), so sources
    # written as Path(__file__).parent / ... are absolute, and on a project with include_package_data
    # (a pyproject project's default) build_py stops: "setup script specifies an absolute path"
    # (frame_analytics cb24bf00). pip fails the same way, except that build_py first drops absolute
    # paths that contain a build folder's name, and pip's is the relative "build": a checkout under
    # a path with "build" in it passes with pip. kiln's build folder is absolute and never matched,
    # so the same drop is made here: kiln passes and fails where pip does. When the check does stop
    # the build, the setup.py line that gave the path is named first (the python.setup-absolute-path
    # signature reads it).
    try:
        from setuptools import extension
        from setuptools.command import build_py
    except Exception:
        return
    origins = {}
    setup_py = os.path.abspath("setup.py")
    init = extension.Extension.__init__
    def extension_init(self, name, sources, *args, **kwargs):
        absolute = [s for s in sources or () if isinstance(s, (str, os.PathLike)) and os.path.isabs(s)]
        if absolute:
            # setuptools' build_meta runs setup.py's text with exec (its frames are "<string>" since
            # 63.2, and its __file__ relative before 67.1): its frames are the ones whose globals'
            # __file__ is setup.py.
            f = sys._getframe(1)
            while f is not None and not any(os.path.abspath(p) == setup_py for p in
                                            (f.f_code.co_filename, str(f.f_globals.get("__file__", "")))):
                f = f.f_back
            if f is not None:
                for s in absolute:
                    origins.setdefault(os.path.normpath(os.fspath(s)), (f.f_lineno, name))
        init(self, name, sources, *args, **kwargs)
    extension.Extension.__init__ = extension_init
    drop = getattr(build_py.build_py, "_filter_build_files", None)  # setuptools 64.0.3+
    if drop is not None:
        def filter_build_files(self, files, egg_info):
            # "build": setuptools' default build_base, relative, as pip's build runs it.
            return (f for f in drop(self, files, egg_info)
                    if not (os.path.isabs(f) and "build" in os.path.normpath(f)))
        build_py.build_py._filter_build_files = filter_build_files
    check = getattr(build_py, "assert_relative", None)
    if check is not None:
        def assert_relative(path):
            if os.path.isabs(path):
                line, ext = origins.get(os.path.normpath(path), (None, None))
                where = "setup.py:%d (a source of Extension %s)" % (line, ext) if line else "setup.py"
                print("kiln: absolute setup path %s from %s: setuptools 67.1+ runs setup.py with __file__ "
                      "absolute" % (path, where), file=sys.stderr, flush=True)
            return check(path)
        build_py.assert_relative = assert_relative

def main():
    wheel_dir = sys.argv[1]
    fast_zip()
    private_build_folder(wheel_dir)
    parallel_extensions()
    bs = build_system()
    spec = bs.get("build-backend", "setuptools.build_meta:__legacy__")
    sys.path[:0] = [os.path.abspath(p) for p in bs.get("backend-path", [])]
    module, _, attr = spec.partition(":")
    try:
        backend = importlib.import_module(module)
    except ImportError as e:
        sys.exit("kiln: cannot import the build backend %r (%s): install it into this interpreter "
                 "(builds run without isolation)" % (spec, e))
    if module.startswith("setuptools"):
        absolute_setup_paths()
    for part in filter(None, attr.split(".")):
        backend = getattr(backend, part)
    os.makedirs(wheel_dir, exist_ok=True)
    name = backend.build_wheel(os.path.abspath(wheel_dir))
    print("KILN-WHEEL " + name, flush=True)
    # The wheel is written and closed: the interpreter's teardown (torch's modules and atexit
    # handlers: seconds) would only delay the install.
    sys.stderr.flush()
    os._exit(0)

main()
