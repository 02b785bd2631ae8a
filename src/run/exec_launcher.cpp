#include "run/exec_launcher.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/arch_spec.hpp"
#include "probe/build_memory.hpp"
#include "run/gencode_rewrite.hpp"
#include "run/governor.hpp"

namespace kiln::run {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string basename(const std::string& p) { return p.substr(p.find_last_of('/') + 1); }

bool is_nvcc(const std::vector<std::string>& args) {
  for (const auto& a : args)
    if (basename(a) == "nvcc") return true;
  return false;
}

std::optional<std::uint64_t> env_u64(const io::Environment& env, const char* name) {
  auto v = env.get(name);
  if (!v || v->empty()) return std::nullopt;
  try {
    return std::stoull(*v);
  } catch (...) {
    return std::nullopt;
  }
}

// One write with O_APPEND: concurrent launchers never interleave within a line.
void append_line(const std::string& path, const std::string& line) {
  int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  ssize_t n = ::write(fd, line.data(), line.size());
  (void)n;
  ::close(fd);
}

// A ledger lock is held for microseconds; one held for seconds belongs to a stopped or hung process.
constexpr std::chrono::milliseconds kLedgerLockTimeout{5000};

long long epoch_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

std::string output_of(const std::vector<std::string>& args) {
  for (size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == "-o") return args[i + 1];
  for (const auto& a : args)
    if (a.size() > 2 && a.rfind("-o", 0) == 0 && a[2] != '-') return a.substr(2);
  return "";
}

std::string source_of(const std::vector<std::string>& args) {
  for (const char* ext : {".cu", ".cpp", ".cc", ".cxx", ".c", ".C"})
    for (const auto& a : args)
      if (a[0] != '-' && ends_with(a, ext)) return a;
  return "";
}

int device_targets_of(const std::vector<std::string>& args) {
  if (!is_nvcc(args)) return 0;
  auto set = core::parse_nvcc_args(split_arch_args(args).arch, {});
  return set ? std::max<int>(1, static_cast<int>(set->size())) : 1;
}

std::vector<std::string> ccache_friendly_nvcc_args(const std::vector<std::string>& args) {
  if (!is_nvcc(args)) return args;
  std::vector<std::string> out;
  for (const auto& a : args) {
    if (a == "--generate-dependencies-with-compile") out.push_back("-MD");
    else if (a == "--dependency-output") out.push_back("-MF");
    else if (a.rfind("--dependency-output=", 0) == 0) out.push_back("-MF"), out.push_back(a.substr(20));
    else out.push_back(a);
  }
  return out;
}

std::string history_key(const std::string& output) {
  std::uint64_t h = 1469598103934665603ULL;  // FNV-1a: stable across runs and machines
  for (unsigned char c : output) h = (h ^ c) * 1099511628211ULL;
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::uint64_t expected_peak_kib(const io::Filesystem& fs, const std::string& history_dir, const std::vector<std::string>& args) {
  const std::string out = output_of(args);
  if (!history_dir.empty() && !out.empty())
    if (auto text = fs.read(history_dir + "/" + history_key(out))) {
      try {
        // 10% headroom over what this unit peaked at last time.
        return static_cast<std::uint64_t>(std::stoull(*text) * 1.1);
      } catch (...) {
      }
    }
  const int targets = device_targets_of(args);
  const double gib = targets > 0 ? probe::gib_per_job(probe::JobKind::cuda, targets) : probe::gib_per_job(probe::JobKind::cxx, 0);
  return static_cast<std::uint64_t>(gib * 1024 * 1024);
}

std::string record_json_line(const ExecRecord& r) {
  nlohmann::ordered_json j = {{"output", r.output},     {"source", r.source},       {"start_ms", r.start_ms},
                              {"wall_ms", r.wall_ms},   {"cpu_ms", r.cpu_ms},       {"peak_rss_kib", r.peak_rss_kib},
                              {"exit", r.exit},         {"waited_ms", r.waited_ms}, {"archs", r.archs},
                              {"expected_kib", r.expected_kib}, {"pruned", r.pruned}};
  if (!r.warning.empty()) j["warning"] = r.warning;
  return j.dump() + "\n";
}

int exec_compiler(const std::vector<std::string>& command, io::Seams& s) {
  std::vector<std::string> argv = command;
  ExecRecord rec;
  std::optional<FileLedger> ledger;
  bool reserved = false;
  // Everything kiln adds is best effort: an exception here falls through to running `command`.
  try {
    if (auto prune = s.env.get("KILN_PRUNE_ARCHS"); prune && !prune->empty() && is_nvcc(argv)) {
      if (auto planned = core::parse_cmake(*prune, {})) {
        auto r = prune_arch_args(argv, *planned);
        if (r.changed) {
          argv = r.args;
          rec.pruned = true;
        }
      }
    }
    argv = ccache_friendly_nvcc_args(argv);
    rec.output = output_of(argv);
    rec.source = source_of(argv);
    rec.archs = device_targets_of(argv);
    const std::string history = s.env.get("KILN_MEM_HISTORY").value_or("");
    rec.expected_kib = expected_peak_kib(s.fs, history, argv);
    auto budget = env_u64(s.env, "KILN_MEM_BUDGET_KIB");
    if (auto path = s.env.get("KILN_LEDGER"); path && !path->empty() && budget) {
      ledger.emplace(*path, io::system_processes(), kLedgerLockTimeout);
      Reservation mine;
      mine.pid = static_cast<long>(::getpid());
      mine.kib = rec.expected_kib;
      mine.start = io::system_processes().start_time(mine.pid).value_or(0);
      auto g = acquire(*ledger, s.clock, mine, *budget);
      reserved = g.governed;
      rec.waited_ms = g.waited.count();
      if (!g.warning.empty()) {
        // Ninja passes this on to the build log, beside the compile it concerns.
        rec.warning = g.warning;
        s.err << "kiln exec: warning: " << g.warning << "\n";
      }
    }
  } catch (...) {
    argv = command;
  }

  rec.start_ms = epoch_ms();
  io::ProcessSpec spec{.argv = argv};
  spec.inherit_stdio = true;
  spec.die_with_caller = true;  // `kill -9` of this launcher must not leave its compiler running
  auto result = s.proc.run(spec);
  if (!result.started && argv != command) {
    // kiln's rewrite is at fault only if the original would have started: try it as given.
    argv = command;
    spec.argv = argv;
    result = s.proc.run(spec);
  }
  try {
    if (reserved) ledger->release(static_cast<long>(::getpid()));
    rec.wall_ms = result.wall.count();
    rec.cpu_ms = result.cpu.count();
    rec.peak_rss_kib = result.peak_rss_kib;
    rec.exit = result.term_signal ? 128 + result.term_signal : result.exit_code;
    const std::string history = s.env.get("KILN_MEM_HISTORY").value_or("");
    if (result.ok() && !history.empty() && !rec.output.empty()) {
      // Keep the largest peak seen. A ccache hit peaks at a few MiB and must not teach the governor
      // that this unit is cheap, so small first measurements are not recorded.
      const std::string key = history + "/" + history_key(rec.output);
      long previous = 0;
      if (auto text = s.fs.read(key)) previous = std::atol(text->c_str());
      constexpr long kSmallestRealCompileKib = 32 * 1024;
      if (result.peak_rss_kib > previous && (previous > 0 || result.peak_rss_kib >= kSmallestRealCompileKib)) {
        s.fs.make_dirs(history);
        s.fs.write(key, std::to_string(result.peak_rss_kib));
      }
    }
    if (auto log = s.env.get("KILN_EXEC_LOG"); log && !log->empty() && result.started)
      append_line(*log, record_json_line(rec));
  } catch (...) {
  }
  if (!result.started) {
    s.err << "kiln exec: cannot run " << command[0] << ": " << result.spawn_error << "\n";
    return 127;
  }
  return result.term_signal ? 128 + result.term_signal : result.exit_code;
}

}  // namespace kiln::run
