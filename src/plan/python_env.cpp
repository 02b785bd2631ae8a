#include "plan/python_env.hpp"

#include <fmt/format.h>

#include "core/arch_spec.hpp"
#include "core/launcher_env.hpp"
#include "probe/torch_install.hpp"
#include "probe/version_text.hpp"
#include "read/pytorch_options.hpp"
#include "read/torch_package.hpp"

namespace kiln::plan {

std::string torch_package_dir(const Plan& p, const io::Seams& s) {
  return p.python.empty() ? "" : read::find_torch_package(s, p.python);
}

std::string torch_version_for(const Plan& p, const io::Seams& s) {
  if (p.kind == read::ProjectKind::pytorch)
    if (auto v = s.fs.read(p.project_dir + "/version.txt")) return probe::first_line(*v);
  if (p.torch_package.empty()) return "";
  auto text = s.fs.read(p.torch_package + "/version.py");
  if (!text) return "";
  probe::TorchInfo t;
  return probe::parse_torch_version_py(*text, t) ? t.version : "";
}

FittedArchList fit_to_parser(const core::TargetSet& spellable, const read::ArchParser& parser) {
  FittedArchList out;
  for (const auto& t : spellable) {
    if (t.arch.variant != core::Variant::none) {
      out.extra.add(t);
      out.passed.add(core::Target{core::Arch{t.arch.number, core::Variant::none}, t.kind});
    } else if (t.kind == core::CodeKind::ptx && !parser.plus_ok) {
      out.extra.add(t);
    } else {
      out.passed.add(t);
    }
  }
  // PTX the list keeps needs its SASS beside it (X.Y+PTX); a suffixed PTX alone leaves only its SASS.
  core::TargetSet checked;
  for (const auto& t : out.passed)
    if (t.kind == core::CodeKind::sass || out.passed.contains(core::Target{t.arch, core::CodeKind::sass}))
      checked.add(t);
  out.passed = checked;
  return out;
}

namespace {

std::string sites_text(const read::ArchParser& a) {
  std::string out;
  for (const auto& w : a.sites) out += (out.empty() ? "" : ", ") + w;
  return out;
}

// Narrows the list torch gets to what the project's parser reads; the rest goes to the launcher,
// or, with no launcher, is left out, and the note says which.
void fit_for_project(const Plan& p, const read::ArchParser& parser, core::TargetSet& spellable, core::TargetSet& rest,
                     std::vector<std::string>* notes) {
  auto fitted = fit_to_parser(spellable, parser);
  spellable = fitted.passed;
  if (fitted.extra.empty()) return;
  const bool added = p.wraps_compilers();
  if (added) rest.add(fitted.extra);
  if (!notes) return;
  const std::string cannot =
      core::format_torch(fitted.extra, p.torch_version).value_or(core::format_cmake(fitted.extra));
  notes->push_back(fmt::format(
      "the project reads {} itself ({}) and converts parts of each entry with int() ({}: {}), which cannot read "
      "{}: kiln passes {}={}{}",
      parser.var, parser.read, sites_text(parser), parser.text, cannot, parser.var,
      core::format_torch(spellable, p.torch_version).value_or(""),
      added ? " and its nvcc launcher adds " + core::format_cmake(fitted.extra) + " to each device compile"
            : "; " + core::format_cmake(fitted.extra) +
                  " is left out (kiln's compiler launcher is off, which would add it)"));
}

}  // namespace

tl::expected<std::map<std::string, std::string>, std::string> python_build_env(
    const Plan& p, const std::map<std::string, std::string>& sets, const read::ArchParser* parser,
    std::vector<std::string>* notes) {
  std::map<std::string, std::string> env;
  // Both setup.py and cpp_extension read MAX_JOBS for their Ninja -j.
  env["MAX_JOBS"] = std::to_string(p.jobs.jobs);
  if (p.cuda()) {
    // torch gets what its TORCH_CUDA_ARCH_LIST grammar spells; the rest (`f` variants,
    // architectures its table lacks) kiln's nvcc launcher adds to each device compile.
    auto [spellable, rest] = core::split_for_torch(p.targets, p.torch_version);
    if (parser && !sets.count("TORCH_CUDA_ARCH_LIST")) fit_for_project(p, *parser, spellable, rest, notes);
    if (spellable.empty())
      return tl::unexpected("TORCH_CUDA_ARCH_LIST cannot spell any of " + core::format_cmake(p.targets) +
                            " (torch refuses them); add an architecture torch knows, e.g. " +
                            std::to_string(p.targets.begin()->arch.major()) + ".0");
    auto torch = core::format_torch(spellable, p.torch_version);
    if (!torch) return tl::unexpected(torch.error().message);
    env["TORCH_CUDA_ARCH_LIST"] = *torch;
    if (!rest.empty()) {
      if (!p.wraps_compilers() && (p.kind != read::ProjectKind::pytorch || p.launcher().empty()))
        return tl::unexpected(
            "torch cannot spell " + core::format_cmake(rest) +
            " in TORCH_CUDA_ARCH_LIST and kiln's compiler launcher is off (--no-governor?), so nothing "
            "would build them; drop them or let kiln wrap the compilers");
      env[std::string(core::launcher_vars::kExtraArchs)] = core::format_cmake(rest);
    }
    const std::string bin = p.nvcc.substr(0, p.nvcc.find_last_of('/'));
    env["CUDA_HOME"] = bin.substr(0, bin.find_last_of('/'));
  }
  if (p.kind == read::ProjectKind::pytorch) {
    env["CMAKE_GENERATOR"] = "Ninja";
    // setup.py maps these onto CMAKE_BUILD_TYPE (DEBUG=1 -> Debug, REL_WITH_DEB_INFO=1 -> RelWithDebInfo).
    env["CMAKE_BUILD_TYPE"] = p.build_type;
    if (p.build_type == "Debug") env["DEBUG"] = "1";
    if (p.build_type == "RelWithDebInfo") env["REL_WITH_DEB_INFO"] = "1";
    for (const auto& o : p.options) {
      if (read::option_is_passed(o)) env[o.name] = o.on ? "1" : "0";
      if (!o.on)
        for (const auto& d : read::pytorch_options())
          if (d.name == o.name)
            for (const auto& [k, v] : d.off_env) env[k] = v;
    }
    if (!p.launcher().empty()) {
      // CMake >= 3.17 takes the launcher (a ;-list) from these variables.
      std::string chain;
      for (const auto& l : p.launcher()) chain += (chain.empty() ? "" : ";") + l;
      env["USE_CCACHE"] = p.ccache.empty() ? "0" : "1";
      for (const char* lang : {"C", "CXX", "CUDA"}) env[std::string("CMAKE_") + lang + "_COMPILER_LAUNCHER"] = chain;
    }
  } else if (p.wraps_compilers()) {
    // cpp_extension writes CXX and PYTORCH_NVCC into its build.ninja and checks CXX's version:
    // both name kiln's compiler links (see Plan::wrapper_dir), which run the launchers.
    env["CXX"] = p.wrapper_dir() + "/c++";
    if (!p.nvcc.empty()) env["PYTORCH_NVCC"] = p.wrapper_dir() + "/nvcc";
  }
  for (const auto& [k, v] : sets) env[k] = v;
  return env;
}

}  // namespace kiln::plan
