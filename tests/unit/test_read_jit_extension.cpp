// Projects that compile their extension at first import (torch.utils.cpp_extension's load()):
// the StyleGAN2-ADA/StyleGAN3 custom-ops pattern (NVlabs/stylegan3 torch_utils/custom_ops.py, no
// setup.py at all), written here as small texts.
#include <gtest/gtest.h>

#include "fakes/fs.hpp"
#include "read/jit_extension.hpp"
#include "read/project_kind.hpp"

using namespace kiln;

TEST(JitExtension, TheLoaderCallIsFoundOtherLoadsAreNot) {
  EXPECT_EQ(read::jit_call_line("import torch.utils.cpp_extension\n\n"
                                "    torch.utils.cpp_extension.load(name=module_name, sources=srcs)\n"),
            3);
  EXPECT_EQ(read::jit_call_line("from torch.utils.cpp_extension import load\n_backend = load(name='_x', "
                                "sources=['a.cu'])\n"),
            2);
  EXPECT_EQ(read::jit_call_line("from torch.utils import cpp_extension\nm = cpp_extension.load_inline('m', "
                                "cpp_sources=src)\n"),
            2);
  // Other objects' load(), a method named load, a comment, and a file that never names cpp_extension.
  EXPECT_EQ(read::jit_call_line("import json, torch\n# uses torch.utils.cpp_extension.load(\n"
                                "cfg = json.load(f)\nw = torch.load(p)\nclass A:\n    def load(self): pass\n"
                                "x = reload(m)\nfrom torch.utils.cpp_extension import CUDA_HOME\n"),
            0);
  EXPECT_EQ(read::jit_call_line("m = load(name='x', sources=['a.cu'])\n"), 0);
}

TEST(JitExtension, AFolderThatCompilesAtImportSaysSo) {
  io::FakeFilesystem fs;
  fs.add_file("/sg/train.py", "import torch\nfrom torch_utils import custom_ops\n");
  fs.add_file("/sg/torch_utils/custom_ops.py",
              "import torch\nimport torch.utils.cpp_extension\n\ndef get_plugin(module_name, sources):\n"
              "    torch.utils.cpp_extension.load(name=module_name, sources=sources)\n");
  fs.add_file("/sg/torch_utils/ops/bias_act.cu", "");
  fs.add_file("/sg/build/lib/copy.py", "torch.utils.cpp_extension.load(name='stale')\n");  // build output: skipped
  EXPECT_EQ(read::find_jit_extension(fs, "/sg"), std::optional<std::string>("torch_utils/custom_ops.py:5"));
  const auto said = read::describe_folder(fs, "/sg", nullptr);
  EXPECT_NE(said.find("compiles its C++/CUDA code when first imported (torch.utils.cpp_extension's loader at "
                      "torch_utils/custom_ops.py:5)"),
            std::string::npos)
      << said;
  EXPECT_NE(said.find("TORCH_CUDA_ARCH_LIST"), std::string::npos);

  io::FakeFilesystem plain;
  plain.add_file("/q/main.py", "import json\njson.load(open('x'))\n");
  EXPECT_EQ(read::find_jit_extension(plain, "/q"), std::nullopt);
}
