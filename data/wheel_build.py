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
    # egg_base relative to setup.py's folder (the cwd): egg_info lists the .egg-info's files in its
    # manifest by that path, and build_py's include_package_data asserts each path relative
    # (setuptools 77+ lists them, so an absolute egg_base failed with "setup script specifies an
    # absolute path" on a pyproject project with package data: frame_analytics cb24bf00).
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
