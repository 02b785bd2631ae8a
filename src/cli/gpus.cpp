// kiln gpus: the GPU table (what each model is, which architecture it needs) and the local GPUs.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "cli/json_out.hpp"
#include "core/arch.hpp"
#include "core/gpu_table.hpp"
#include "probe/local_gpus.hpp"

namespace kiln::cli {
namespace {

using json = nlohmann::ordered_json;

json model_json(const core::GpuModel& g) {
  return {{"name", g.name},       {"cc", core::cc_string(g.cc)}, {"arch", "sm_" + std::to_string(g.cc)},
          {"segment", g.segment}, {"family", g.family},          {"aliases", g.aliases}};
}

class GpusCommand final : public Command {
public:
  const char* name() const override { return "gpus"; }
  const char* summary() const override { return "Look up NVIDIA GPUs and list the ones on this machine"; }
  void setup(CLI::App& app) override {
    app.add_option("name", names_, "GPU names or compute capabilities to look up (default: all known)");
    app.add_option("--segment", segment_, "Only list this segment: datacenter, workstation, consumer, jetson");
    app.add_flag("--local", local_only_, "Only list the GPUs on this machine");
    app.add_flag("--json", json_, "Print JSON");
  }

  int run(io::Seams& s) override {
    json j;
    std::vector<core::GpuModel> shown;
    const auto& table = core::GpuTable::get();
    if (!local_only_) {
      if (names_.empty()) {
        for (const auto& g : table.all())
          if (segment_.empty() || g.segment == segment_) shown.push_back(g);
        if (shown.empty())
          throw UsageError("--segment '" + segment_ + "': expected datacenter, workstation, consumer or jetson");
      }
      for (const auto& n : names_) {
        auto m = table.lookup(n);
        if (!m) throw UsageError(m.error().message);
        shown.push_back(*m);
      }
      j["gpus"] = json::array();
      for (const auto& g : shown) j["gpus"].push_back(model_json(g));
    }
    // Local GPUs are listed when asked for, or with the whole table.
    probe::LocalGpus local;
    const bool want_local = local_only_ || names_.empty();
    if (want_local) {
      probe::SystemGpuQuery q(s);
      local = q.query();
      json l = json::array();
      for (const auto& g : local.gpus) {
        auto m = table.lookup(g.name);
        l.push_back({{"index", g.index},
                     {"name", g.name},
                     {"cc", core::cc_string(g.cc)},
                     {"arch", "sm_" + std::to_string(g.cc)},
                     {"driver", g.driver_version},
                     {"memory_bytes", static_cast<std::int64_t>(g.memory_mib) * 1048576},
                     {"model", m ? json(m->name) : json(nullptr)}});
      }
      j["local"] = {{"source", local.source.empty() ? json(nullptr) : json(local.source)},
                    {"note", local.note},
                    {"driver_cuda", local.driver_cuda ? json(fmt::format("{}.{}", local.driver_cuda / 1000,
                                                                         local.driver_cuda % 1000 / 10))
                                                      : json(nullptr)},
                    {"gpus", l}};
    }
    if (json_) {
      print_json(s.out, "gpus", std::move(j));
      return kOk;
    }
    if (!shown.empty()) {
      s.out << fmt::format("{:<40} {:<5} {:<7} {:<12} {}\n", "GPU", "CC", "ARCH", "SEGMENT", "FAMILY");
      for (const auto& g : shown)
        s.out << fmt::format("{:<40} {:<5} {:<7} {:<12} {}\n", g.name, core::cc_string(g.cc),
                             "sm_" + std::to_string(g.cc), g.segment, g.family);
    }
    if (want_local) {
      if (!shown.empty()) s.out << "\n";
      if (local.source.empty())
        s.out << "local GPUs: none found (" << local.note << ")\n";
      else if (local.gpus.empty())
        s.out << "local GPUs: the driver (" << local.source << ") reports no GPU\n";
      else
        for (const auto& g : local.gpus)
          s.out << fmt::format("local GPU {}: {} (cc {}, sm_{}), {} MiB, driver {} [{}]\n", g.index, g.name,
                               core::cc_string(g.cc), g.cc, g.memory_mib, g.driver_version, local.source);
    }
    return kOk;
  }

private:
  std::vector<std::string> names_;
  std::string segment_;
  bool local_only_ = false, json_ = false;
};

}  // namespace

std::unique_ptr<Command> make_gpus() { return std::make_unique<GpusCommand>(); }

}  // namespace kiln::cli
