"""DeepSpeed's fused_adam op, loaded alone from its .so (importing deepspeed would need its run-time
dependencies), one Adam step against torch.optim.Adam on the GPU; exit 1 past 1e-6.
usage: python fused_adam_check.py FUSED_ADAM_OP_SO (bench/project_reader_gpu.sh,
bench/deepspeed_arch_suffix_gpu.sh)"""
import importlib.machinery, importlib.util, sys, torch
loader = importlib.machinery.ExtensionFileLoader("fused_adam_op", sys.argv[1])
op = importlib.util.module_from_spec(importlib.util.spec_from_loader("fused_adam_op", loader))
loader.exec_module(op)
torch.manual_seed(0)
p = torch.randn(1 << 20, device="cuda"); g = torch.randn_like(p)
ref = p.clone().requires_grad_(); ref.grad = g.clone()
torch.optim.Adam([ref], lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01).step()
m, v = torch.zeros_like(p), torch.zeros_like(p)
# tensor lists: grads, params, exp_avg, exp_avg_sq; mode 0 = Adam with L2, bias correction on.
op.multi_tensor_adam(2048 * 32, torch.zeros(1, dtype=torch.int, device="cuda"), [[g], [p], [m], [v]],
                     1e-3, 0.9, 0.999, 1e-8, 1, 0, 1, 0.01)
err = (p - ref.detach()).abs().max().item()
print(f"fused_adam vs torch.optim.Adam: max abs difference {err:.3e}")
sys.exit(0 if err < 1e-6 else 1)
