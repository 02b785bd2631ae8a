// kiln archs: read a target set in any spelling, print it in any other, say how it runs on GPUs
// and whether the local nvcc can build it.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "cli/json_out.hpp"
#include "core/arch_spec.hpp"
#include "core/compat.hpp"
#include "core/cuda_archs.hpp"
#include "core/gpu_table.hpp"
#include "probe/nvcc.hpp"
#include "probe/spec_context.hpp"

namespace kiln::cli {
namespace {

using json = nlohmann::ordered_json;

class ArchsCommand final : public Command {
public:
  const char* name() const override { return "archs"; }
  const char* summary() const override {
    return "Parse, convert and check CUDA architecture lists: kiln archs SPEC (TORCH_CUDA_ARCH_LIST, CMake or nvcc "
           "spelling)";
  }
  bool wants_raw_tail() const override { return true; }
  void setup(CLI::App& app) override {
    // SPEC is taken from the unparsed arguments, in order, so nvcc flags such as `-gencode X` and
    // `-arch=sm_90` pass through as they are written.
    app.allow_extras();
    app.footer(
        "SPEC: the architecture list, in any spelling: TORCH_CUDA_ARCH_LIST (8.0;9.0+PTX), CMake (80-real;90)\n"
        "or nvcc flags (-gencode arch=compute_90,code=sm_90); after `--` when it starts with '-'. Without SPEC:\n"
        "$TORCH_CUDA_ARCH_LIST, else $CUDAARCHS.");
    app.positionals_at_end(false);
    app.add_option("--from", from_, "Spelling of SPEC: torch, cmake, nvcc or auto")->default_val("auto");
    app.add_option("--to", to_, "Print the set in one spelling on one line: torch, cmake or nvcc");
    app.add_option("--gpu", gpus_,
                   "Say how the set runs on this GPU (name or compute capability); repeatable, or a comma list")
        ->delimiter(',');
    app.add_flag("--check", check_, "Fail if the local nvcc cannot build a target");
    app.add_option("--torch", torch_version_,
                   "Judge TORCH_CUDA_ARCH_LIST by this torch release's grammar (default: the newest kiln knows)");
    app.add_flag("--json", json_, "Print JSON");
    app_ = &app;
  }

  int run(io::Seams& s) override {
    std::string spec;
    const auto given = app_->remaining();
    for (const auto& p : given) spec += (spec.empty() ? "" : " ") + p;
    for (const auto& p : raw_tail) spec += (spec.empty() ? "" : " ") + p;  // after `kiln archs --`
    std::string source = "argument";
    if (given.empty() && raw_tail.empty()) {
      for (const char* var : {"TORCH_CUDA_ARCH_LIST", "CUDAARCHS"})
        if (auto v = s.env.get(var); v && !v->empty()) {
          spec = *v, source = var;
          break;
        }
      if (spec.empty()) throw UsageError("no architecture list given and TORCH_CUDA_ARCH_LIST is not set");
    }
    auto from = core::parse_syntax(from_);
    if (!from)
      throw UsageError(fmt::format("--from '{}': expected {}", from_, fmt::join(core::syntax_names(true), ", ")));
    std::optional<core::Syntax> to;
    if (!to_.empty()) {
      to = core::parse_syntax(to_);
      if (!to || *to == core::Syntax::automatic)
        throw UsageError(fmt::format("--to '{}': expected {}", to_, fmt::join(core::syntax_names(false), ", ")));
    }
    auto ctx = probe::spec_context_for(spec, s);
    ctx.torch_version = torch_version_;
    core::Warnings warnings;
    auto parsed = core::parse_spec(spec, *from, ctx, &warnings);
    if (!parsed) throw UsageError(parsed.error().message);
    const core::TargetSet& set = *parsed;

    // GPUs first: an unknown name is a usage error before any output.
    std::vector<core::GpuModel> models;
    for (const auto& g : gpus_) {
      auto m = core::GpuTable::get().lookup(g);
      if (!m) throw UsageError(m.error().message);
      models.push_back(*m);
    }
    int rc = kOk;
    json j;
    j["targets"] = json::array();
    for (const auto& t : set) j["targets"].push_back({{"arch", t.arch.sm()}, {"kind", core::to_string(t.kind)}});
    if (!models.empty()) {
      j["coverage"] = json::array();
      for (size_t i = 0; i < models.size(); ++i) {
        auto c = core::coverage(set, models[i].cc);
        if (c.verdict == core::Verdict::none) rc = kFindings;
        j["coverage"].push_back({{"gpu", gpus_[i]},
                                 {"model", models[i].name},
                                 {"cc", core::cc_string(models[i].cc)},
                                 {"verdict", core::to_string(c.verdict)},
                                 {"via", c.via ? json(c.via->name()) : json(nullptr)},
                                 {"why", c.why}});
      }
    }
    std::vector<std::string> check_lines;
    if (check_) {
      auto nvcc = probe::probe_nvcc(s);
      if (!nvcc) throw Failure("--check needs nvcc, which was not found: set CUDA_HOME or put nvcc on PATH");
      json unsupported = json::array();
      for (const auto& t : set) {
        if (nvcc->can_build(t.arch)) continue;
        const auto& cat = core::ArchCatalog::get();
        std::string range = cat.support_range(t.arch);
        check_lines.push_back(fmt::format("{} ({}) is not supported by nvcc {} at {}; it is built by {}", t.name(),
                                          core::to_string(t.kind), nvcc->version_text, nvcc->path, range));
        unsupported.push_back({{"arch", t.arch.sm()}, {"kind", core::to_string(t.kind)}, {"supported_by", range}});
      }
      j["check"] = {{"nvcc", nvcc->path}, {"version", nvcc->version_text}, {"unsupported", unsupported}};
      if (!unsupported.empty()) rc = kFindings;
    }
    json spellings;
    for (auto syn : {core::Syntax::torch, core::Syntax::cmake, core::Syntax::nvcc}) {
      auto f = syn == core::Syntax::torch ? core::format_torch(set, torch_version_) : core::format_spec(set, syn);
      spellings[core::to_string(syn)] = f ? json(*f) : json(nullptr);
    }
    j["spellings"] = spellings;
    j["source"] = source;
    j["warnings"] = warnings;
    for (const auto& w : warnings) s.err << "kiln archs: warning: " << w << "\n";

    if (json_) {
      print_json(s.out, "archs", j);
    } else if (to) {
      auto f = *to == core::Syntax::torch ? core::format_torch(set, torch_version_) : core::format_spec(set, *to);
      if (!f) throw Failure(f.error().message);
      s.out << *f << "\n";
    } else {
      print_human(s, set, j);
    }
    for (const auto& line : check_lines) s.err << "kiln archs: " << line << "\n";
    return rc;
  }

private:
  void print_human(io::Seams& s, const core::TargetSet& set, const json& j) {
    s.out << fmt::format("{} target{}:\n", set.size(), set.size() == 1 ? "" : "s");
    for (const auto& t : set)
      s.out << fmt::format("  {:<12} {}\n", t.name(),
                           t.kind == core::CodeKind::sass ? "SASS" : "PTX (JIT for newer GPUs)");
    for (const auto& [k, v] : j["spellings"].items())
      s.out << fmt::format("{:<6} {}\n", k,
                           v.is_null() ? std::string("(cannot be spelled here; see --to)") : v.get<std::string>());
    if (j.contains("coverage"))
      for (const auto& c : j["coverage"])
        s.out << fmt::format("{:<22} cc {:<5} {:<11} {}\n", c["model"].get<std::string>(), c["cc"].get<std::string>(),
                             c["verdict"].get<std::string>(), c["why"].get<std::string>());
  }

  std::string from_ = "auto", to_, torch_version_;
  std::vector<std::string> gpus_;
  bool check_ = false, json_ = false;
  CLI::App* app_ = nullptr;
};

}  // namespace

std::unique_ptr<Command> make_archs() { return std::make_unique<ArchsCommand>(); }

}  // namespace kiln::cli
