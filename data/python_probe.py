# kiln's doctor (data/python_probe.py, run as `python -c <this>` by src/probe/python_torch.cpp): the
# interpreter's version and site-packages, and where torch is. find_spec locates a top-level
# package without running its __init__, so this takes as long as the interpreter's start (tens of
# ms) where importing torch takes seconds. The site line comes first, flushed: kiln reads it while the
# probe goes on. The JSON object is the last line.
import json, sys, site, importlib.util
r = {"python": sys.version.split()[0], "executable": sys.executable, "site_packages": []}
try:
    r["site_packages"] = list(site.getsitepackages())
except Exception:
    pass
print("KILN-SITE " + json.dumps(r["site_packages"]), flush=True)
try:
    spec = importlib.util.find_spec("torch")
    if spec is not None and spec.submodule_search_locations:
        r["torch"] = {"path": list(spec.submodule_search_locations)[0]}
except Exception as e:
    r["torch_error"] = type(e).__name__ + ": " + str(e)
print(json.dumps(r))
