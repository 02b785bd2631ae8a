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

def main():
    wheel_dir = sys.argv[1]
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

main()
