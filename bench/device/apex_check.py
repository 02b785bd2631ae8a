"""apex built by kiln (issue 19): every extension module it installed imports, and its fused layer
norm and multi_tensor_l2norm match PyTorch on the GPU. Run with the python kiln installed into:
  python bench/device/apex_check.py
Prints one line per check and `APEX-CHECK PASS` or `APEX-CHECK FAIL`."""
import glob
import importlib
import os
import sys

import torch

failed = []


def check(name, ok, detail):
    print(f"{'ok  ' if ok else 'FAIL'} {name}: {detail}")
    if not ok:
        failed.append(name)


import apex  # noqa: E402

site = os.path.dirname(os.path.dirname(apex.__file__))
mods = sorted({os.path.basename(p).split(".")[0] for p in glob.glob(os.path.join(site, "*.so"))})
apex_mods = [m for m in mods if m.endswith(("_cuda", "_C")) or m in ("amp_C", "syncbn", "apex_C")]
for m in apex_mods:
    try:
        importlib.import_module(m)
        check(f"import {m}", True, "loaded")
    except Exception as e:  # an extension that does not load is the finding
        check(f"import {m}", False, f"{type(e).__name__}: {e}")

from apex.normalization import FusedLayerNorm  # noqa: E402

torch.manual_seed(0)
x = torch.randn(256, 1024, device="cuda", requires_grad=True)
fused = FusedLayerNorm(1024).cuda()
ref = torch.nn.LayerNorm(1024).cuda()
y, yr = fused(x), ref(x)
err = (y - yr).abs().max().item()
check("FusedLayerNorm forward vs torch.nn.LayerNorm", err < 1e-4, f"max|diff| {err:.3g}")
g = torch.randn_like(y)
gx = torch.autograd.grad(y, x, g)[0]
gr = torch.autograd.grad(yr, x, g)[0]
err = (gx - gr).abs().max().item()
check("FusedLayerNorm backward vs torch.nn.LayerNorm", err < 1e-3, f"max|diff| {err:.3g}")

import amp_C  # noqa: E402
from apex.multi_tensor_apply import multi_tensor_applier  # noqa: E402

tensors = [torch.randn(n, device="cuda") for n in (1000, 4097, 123, 65536)]
overflow = torch.zeros(1, dtype=torch.int, device="cuda")
norm, per = multi_tensor_applier(amp_C.multi_tensor_l2norm, overflow, [tensors], True)
want = torch.linalg.vector_norm(torch.cat(tensors)).item()
rel = abs(norm.item() - want) / want
check("multi_tensor_l2norm vs torch.linalg.vector_norm", rel < 1e-5, f"{norm.item():.6f} vs {want:.6f} (rel {rel:.2g})")
want_per = torch.stack([torch.linalg.vector_norm(t) for t in tensors])
err = (per - want_per).abs().max().item()
check("multi_tensor_l2norm per tensor", err < 1e-3, f"max|diff| {err:.3g}")

print(f"{len(apex_mods)} extension modules on {torch.cuda.get_device_name()}, torch {torch.__version__}")
print("APEX-CHECK FAIL: " + ", ".join(failed) if failed else "APEX-CHECK PASS")
sys.exit(1 if failed else 0)
