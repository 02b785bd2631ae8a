# kiln's doctor, --deep only (data/torch_import.py, run as `python -c <this>` by
# src/probe/python_torch.cpp): whether torch imports, and what it says about itself, as one JSON
# line. _cuda_getArchFlags needs no GPU (torch.cuda.get_arch_list() returns [] without one).
import json
t = {}
try:
    import torch
    t["version"] = torch.__version__
    t["cxx11_abi"] = bool(torch._C._GLIBCXX_USE_CXX11_ABI)
    flags = getattr(torch._C, "_cuda_getArchFlags", None)
    t["arch_list"] = (flags() or "").split() if flags else []
except Exception as e:
    t["import_error"] = type(e).__name__ + ": " + str(e)
print(json.dumps(t))
