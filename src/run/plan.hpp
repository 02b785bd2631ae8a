#pragma once
// A build plan: what kiln will build, for which targets, with how many jobs and which cache, and
// the reason for each choice. `kiln build` executes it; `kiln plan` prints it.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <tl/expected.hpp>

#include "core/arch.hpp"
#include "core/gpu_table.hpp"
#include "io/seams.hpp"
#include "probe/local_gpus.hpp"
#include "probe/machine.hpp"
#include "run/jobs.hpp"

namespace kiln::run {

struct BuildRequest {
  std::string project_dir;
  std::string build_dir;            // empty: <project>/build-kiln
  std::vector<std::string> gpus;    // --gpu names or compute capabilities
  std::string archs;                // --archs spec
  std::string archs_from = "auto";  // --from
  std::optional<int> jobs;          // --jobs
  std::string build_type = "Release";
  bool ccache = true;
  std::string cache_dir;                    // CCACHE_DIR for this build; empty: ccache's own
  std::vector<std::string> cmake_defines;   // extra -D KEY=VALUE
};

struct Plan {
  std::string project_dir, build_dir, project_kind;
  core::TargetSet targets;
  std::string arch_source;  // "--archs", "--gpu", "TORCH_CUDA_ARCH_LIST", "local GPUs", "default"
  std::string arch_reason;
  std::vector<core::GpuModel> gpus;  // what verification checks against
  JobsDecision jobs;
  bool jobs_forced = false;
  std::string build_type;
  std::string cmake, ninja, nvcc, nvcc_version, ccache;
  std::string cache_dir;
  std::vector<std::string> cmake_defines;
  std::vector<std::string> notes;

  std::string log_path() const { return build_dir + "/kiln-build.log"; }
  std::string ccache_log_path() const { return build_dir + "/kiln-ccache-stats.log"; }
  std::vector<std::string> configure_argv() const;
  std::vector<std::string> build_argv() const;
  // The child environment: kiln's own plus the cache settings and nvcc's folder on PATH.
  std::map<std::string, std::string> child_env(const io::Environment& env) const;
};

struct PlanError {
  std::string message;
  bool usage = false;  // bad input (exit 2) rather than an environment problem (exit 1)
};

tl::expected<Plan, PlanError> make_plan(const BuildRequest& req, const io::Seams& s, probe::GpuQuery& gpus,
                                        const probe::MachineInfo& machine);

}  // namespace kiln::run
