"""Issue 32 on the GPU host: the modules `kiln build` installed, against a reference computed another
way. Run by bench/device/optin_projects.sh with the build's interpreter; exit 0 when they match.
  optin_check.py frame_analytics   the ahead-of-time frame_analytics_native (kiln set FA_BUILD_EXT=1):
                                   its CUDA MSE and SSIM through the package's own dispatch, against the
                                   package's float64 NumPy reference and its portable PyTorch path
  optin_check.py sam2 SO_FILE      sam2's _C (kiln set SAM2_BUILD_ALLOW_ERRORS=0): connected components
                                   of random masks on the GPU against a breadth-first labelling here
"""
import collections
import importlib.util
import sys

import numpy as np
import torch


def frame_analytics():
    import frame_analytics as fa
    import frame_analytics.backend as backend
    import frame_analytics_native as native  # the extension the wheel installed, not a JIT build
    from frame_analytics import reference

    assert native.has_cuda, "the installed frame_analytics_native was built without CUDA"
    calls = collections.Counter()

    class Counted:  # the package's dispatch, pointed at the installed module, counting its CUDA calls
        has_cuda = True

        def __getattr__(self, name):
            fn = getattr(native, name)

            def wrapped(*a, **k):
                calls[name] += 1
                return fn(*a, **k)
            return wrapped

    torch.manual_seed(0)
    x = torch.randint(0, 256, (4, 1, 96, 128), dtype=torch.uint8)
    y = (x.float() + torch.randn(x.shape) * 6).clamp(0, 255).to(torch.uint8)
    xc, yc = x.cuda(), y.cuda()
    backend._ext, backend._load_attempted = Counted(), True
    mse_native = float(fa.mse(xc, yc))
    ssim_native = float(fa.ssim(xc, yc))
    backend._ext = None  # the portable PyTorch path of the same package
    mse_torch = float(fa.mse(xc, yc))
    ssim_torch = float(fa.ssim(xc, yc))
    xs, ys = x.numpy().astype(np.float64), y.numpy().astype(np.float64)
    mse_ref = float(np.mean([reference.mse_reference(xs[i, 0], ys[i, 0]) for i in range(4)]))
    ssim_ref = float(np.mean([reference.ssim_reference(xs[i, 0], ys[i, 0]) for i in range(4)]))
    print("cuda kernels called: %s" % dict(calls))
    print("mse  native %.9f  torch %.9f  float64 reference %.9f" % (mse_native, mse_torch, mse_ref))
    print("ssim native %.9f  torch %.9f  float64 reference %.9f" % (ssim_native, ssim_torch, ssim_ref))
    ok = sum(v for k, v in calls.items() if k.endswith("_cuda")) >= 1  # the installed CUDA code ran
    ok = ok and abs(mse_native - mse_ref) <= 1e-5 * max(1.0, mse_ref) and abs(ssim_native - ssim_ref) <= 1e-4
    ok = ok and abs(mse_native - mse_torch) <= 1e-4 * max(1.0, mse_ref) and abs(ssim_native - ssim_torch) <= 1e-4
    return ok


def components(mask, eight):
    """Each foreground pixel's component size, by breadth-first search."""
    h, w = mask.shape
    size = np.zeros((h, w), dtype=np.int64)
    seen = np.zeros((h, w), dtype=bool)
    steps = [(a, b) for a in (-1, 0, 1) for b in (-1, 0, 1) if (a, b) != (0, 0) and (eight or a == 0 or b == 0)]
    for i in range(h):
        for j in range(w):
            if not mask[i, j] or seen[i, j]:
                continue
            seen[i, j] = True
            todo, members = [(i, j)], []
            while todo:
                a, b = todo.pop()
                members.append((a, b))
                for da, db in steps:
                    p, q = a + da, b + db
                    if 0 <= p < h and 0 <= q < w and mask[p, q] and not seen[p, q]:
                        seen[p, q] = True
                        todo.append((p, q))
            for a, b in members:
                size[a, b] = len(members)
    return size


def sam2(so_file):
    spec = importlib.util.spec_from_file_location("sam2._C", so_file)
    mod = importlib.util.module_from_spec(spec)  # sam2/__init__ needs hydra; the extension does not
    spec.loader.exec_module(mod)
    g = torch.Generator().manual_seed(0)
    masks = (torch.rand((3, 1, 48, 64), generator=g) > 0.6).to(torch.uint8)
    labels, counts = mod.get_connected_componnets(masks.cuda())
    got = counts.cpu().numpy()[:, 0]
    want8 = np.stack([components(masks[n, 0].numpy(), True) for n in range(3)])
    want4 = np.stack([components(masks[n, 0].numpy(), False) for n in range(3)])
    lab = labels.cpu().numpy()[:, 0]
    found = sum(len(np.unique(lab[n][masks[n, 0].numpy() > 0])) for n in range(3))
    print("foreground pixels %d, components found %d; pixels whose component size differs from the "
          "reference: %d (8-connected), %d (4-connected)"
          % (int(masks.sum()), found, int((got != want8).sum()), int((got != want4).sum())))
    return bool((got == want8).all())


if __name__ == "__main__":
    ok = frame_analytics() if sys.argv[1] == "frame_analytics" else sam2(sys.argv[2])
    print("MATCH" if ok else "MISMATCH")
    sys.exit(0 if ok else 1)
