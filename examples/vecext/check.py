"""Imports the built extension and checks one call of each kernel against PyTorch on the GPU."""
import sys

import torch
import vecext

dev = torch.device("cuda")
print("device:", torch.cuda.get_device_name(0), "cc", torch.cuda.get_device_capability(0))
x = torch.randn(1 << 20, device=dev)
y = torch.randn(1 << 20, device=dev)
err_add = (vecext.scaled_add(x, y, 0.5) - (x + 0.5 * y)).abs().max().item()
m = torch.randn(300, 1000, device=dev, dtype=torch.bfloat16)
err_sum = (vecext.row_sum(m) - m.float().sum(1)).abs().max().item()
print(f"scaled_add max_err={err_add:.3g}  row_sum(bf16) max_err={err_sum:.3g}")
ok = err_add < 1e-5 and err_sum < 1e-2
print("PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
