# A small torch.utils.cpp_extension CUDA extension shaped like causal-conv1d: it hard-codes its
# -gencode flags for nine architectures and adds `--threads 4`, whatever TORCH_CUDA_ARCH_LIST says,
# so a default `pip install` compiles every kernel nine times. kiln's --prune-archs rewrites those
# flags to the GPUs named in the plan.
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

ARCHS = [75, 80, 87, 90, 100, 120, 103, 110, 121]
gencode = []
for a in ARCHS:
    gencode += ["-gencode", f"arch=compute_{a},code=sm_{a}"]

setup(
    name="vecext",
    version="0.1.0",
    packages=["vecext"],
    ext_modules=[
        CUDAExtension(
            name="vecext._C",
            sources=["csrc/vecext.cpp", "csrc/scaled_add.cu", "csrc/row_sum.cu"],
            extra_compile_args={"cxx": ["-O3"], "nvcc": ["-O3", "--threads", "4"] + gencode},
        )
    ],
    cmdclass={"build_ext": BuildExtension},
)
