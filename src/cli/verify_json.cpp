#include "cli/verify_json.hpp"

#include "core/arch_spec.hpp"

namespace kiln::cli {
namespace {

using json = nlohmann::ordered_json;

json kernels_json(const binary::KernelCoverage& k, std::size_t names) {
  json missing = json::array();
  for (std::size_t i = 0; i < k.missing.size() && (names == 0 || i < names); ++i) missing.push_back(k.missing[i]);
  return {{"total", k.total},
          {"runnable", k.runnable},
          {"missing_count", k.missing.size()},
          {"missing", missing},
          {"specialised", k.specialised}};
}

}  // namespace

json verify_report_json(const binary::VerifyReport& rep, std::size_t kernel_names) {
  json j;
  j["ok"] = rep.ok();
  j["files_checked"] = rep.files_checked;
  j["skipped"] = rep.skipped;
  json files = json::array();
  for (const auto& f : rep.files) {
    json g = json::array();
    for (const auto& v : f.gpus)
      g.push_back({{"gpu", v.gpu},
                   {"model", v.model.name},
                   {"cc", core::cc_string(v.model.cc)},
                   {"verdict", v.no_kernels ? std::string("no-kernels") : core::to_string(v.coverage.verdict)},
                   {"via", v.coverage.via ? json(v.coverage.via->name()) : json(nullptr)},
                   {"why", v.coverage.why},
                   {"kernels", v.kernels ? kernels_json(*v.kernels, kernel_names) : json(nullptr)}});
    json targets = json::array();
    for (const auto& t : f.targets) targets.push_back({{"arch", t.arch.sm()}, {"kind", core::to_string(t.kind)}});
    files.push_back(
        {{"path", f.file}, {"targets", targets}, {"cxx_abi", f.cxx_abi}, {"kernels", f.kernels}, {"gpus", g}});
  }
  j["files"] = files;
  json problems = json::array();
  for (const auto& p : rep.problems)
    problems.push_back(
        {{"file", p.file}, {"gpu", p.gpu}, {"kind", binary::to_string(p.kind)}, {"why", p.why}, {"fix", p.fix}});
  j["problems"] = problems;
  j["notes"] = rep.notes;
  json torches = json::array();
  for (const auto& t : rep.torches)
    torches.push_back({{"torch", t.torch_dir.empty() ? json(nullptr) : json(t.torch_dir)}, {"how", t.how}});
  j["extension_torch"] = torches;
  return j;
}

}  // namespace kiln::cli
