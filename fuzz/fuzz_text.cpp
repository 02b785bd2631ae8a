// libFuzzer target for the text readers of untrusted input (issue 23): the first byte picks the
// reader, the rest is the text. A project's setup.py, CMakeLists.txt and pyproject.toml (read,
// never executed), the CMake language itself, the governor's ledger (a file any local process can
// write), kiln.toml, Ninja's .ninja_log, the wheel cache's index, the launcher's exec records
// (kiln-exec.jsonl), a build folder's CMakeCache.txt, nvcc --time CSV and `ninja -t graph`
// output (all read by `kiln report` or `kiln doctor` from folders they are pointed at), and a
// project's C++/CUDA sources and headers, which `kiln exec` scans at every launch to weigh a unit
// (launch/unit_estimate), and a build log (diagnose/diagnoser: kiln diagnose reads any log it is given).
// Build: cmake --preset fuzz && cmake --build --preset fuzz --target fuzz_text
#include <cstddef>
#include <cstdint>
#include <string>

#include "cli/config_file.hpp"
#include "diagnose/diagnoser.hpp"
#include "launch/compile_pool.hpp"
#include "launch/exec_record.hpp"
#include "launch/governor.hpp"
#include "launch/nvcc_phases.hpp"
#include "launch/reachable_launches.hpp"
#include "launch/running_units.hpp"
#include "launch/switch_cases.hpp"
#include "launch/unit_estimate.hpp"
#include "launch/unrolled_code.hpp"
#include "launch/wheel_index.hpp"
#include "probe/cmake_cache.hpp"
#include "read/cmake_lang.hpp"
#include "read/project_knobs_read.hpp"
#include "report/ninja_graph.hpp"
#include "drive/ninja_log.hpp"
#include "report/nvcc_time.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 14) {
    case 0:
      (void)kiln::read::read_setup_py(text);
      break;
    case 1:
      (void)kiln::read::read_cmakelists(text);
      break;
    case 2:
      (void)kiln::read::read_pyproject(text);
      break;
    case 3:
      (void)kiln::read::cmake::parse(text);
      break;
    case 4: {
      auto ledger = kiln::launch::parse_ledger(text);
      // What the ledger says is written back the same way it was read.
      if (kiln::launch::parse_ledger(kiln::launch::format_ledger(ledger)).size() != ledger.size()) __builtin_trap();
      (void)kiln::launch::admits(ledger, 1, 1 << 20);
      // The pool's rank reads each entry's pool, since, waits and weights (launch/compile_pool).
      for (const auto& r : ledger)
        if (auto id = r.field(kiln::launch::kPoolField); !id.empty())
          (void)kiln::launch::pool_turn({.jobs = 2, .id = id}, ledger, ledger, {}, 1, 1000, 2000);
      break;
    }
    case 5:
      (void)kiln::cli::check_config("fuzz.toml", text, {{"", {}}, {"build", {"jobs", "gpu"}}});
      break;
    case 6:
      (void)kiln::drive::parse_ninja_log(text), (void)kiln::drive::last_durations(text);
      break;
    case 7:
      for (const auto& k : kiln::launch::parse_wheel_index(text))
        if (!kiln::launch::is_wheel_key(k)) __builtin_trap();
      break;
    case 8: {
      // Each record read is written back as one line that reads as one record, which writes the
      // same line again: what the launcher writes, `kiln report` reads whole.
      const auto log = kiln::launch::parse_exec_log(text);
      for (const auto& r : log.records) {
        const auto line = kiln::launch::record_json_line(r);
        const auto again = kiln::launch::parse_exec_log(line);
        if (again.records.size() != 1 || !again.problems.empty()) __builtin_trap();
        if (kiln::launch::record_json_line(again.records[0]) != line) __builtin_trap();
      }
      // The launcher's running file (queued, node) reads back as it was written.
      if (const auto u = kiln::launch::parse_running(text)) {
        const auto line = kiln::launch::format_running(*u);
        const auto back = kiln::launch::parse_running(line);
        if (!back || kiln::launch::format_running(*back) != line) __builtin_trap();
      }
      break;
    }
    case 9:
      (void)kiln::probe::parse_cmake_cache(text);
      break;
    case 10:
      (void)kiln::report::parse_nvcc_time(text), (void)kiln::launch::parse_nvcc_phases(text);
      break;
    case 11:
      (void)kiln::report::parse_ninja_graph(text);
      break;
    case 12: {
      // Removing comments never adds bytes; the weighted launch count is a finite count.
      const auto code = kiln::launch::without_comments(text);
      if (code.size() > text.size()) __builtin_trap();
      (void)kiln::launch::includes_of(code, '<'), (void)kiln::launch::includes_of(code, '"');
      const double launches = kiln::launch::weighted_launches(code, 2.0);
      if (!(launches >= 0) || launches > 1e300) __builtin_trap();
      // The launches a unit's functions reach, the text as the unit and as its header: finite, and
      // every function body found lies inside the text.
      for (const auto& b : kiln::launch::function_bodies(code))
        if (b.open >= b.close || b.close >= code.size()) __builtin_trap();
      (void)kiln::launch::explicit_instantiations(code);
      const double reached = kiln::launch::reachable_launches({code, code}, 2.0, 16.0);
      if (!(reached >= 0) || reached > 1e300) __builtin_trap();
      // A site's arguments folded with switch constants set, and a condition's value (the names
      // are the ones the seed uses).
      const kiln::launch::SwitchValues values{{"A", true}, {"B", false}, {"Is_causal", true}};
      const std::string_view head = std::string_view(code).substr(0, 4096);
      (void)kiln::launch::fold_switch_constants(head, values), (void)kiln::launch::switch_condition(head, values);
      // A kernel sized as it unrolls (launch/unrolled_code): the text's own #defines as constants, a
      // head of it as an integer expression, the whole as a body; finite and bounded (64 MiB).
      kiln::launch::IntValues ints{{"LOG2", 14}, {"C10_WARP_SIZE", 32}};
      kiln::launch::defined_constants(code, ints);
      (void)kiln::launch::constant_value(std::string_view(code).substr(0, 256), ints);
      const double bytes = kiln::launch::unrolled_bytes(code, ints, 0.5);
      if (!(bytes >= 0) || bytes > 65.0 * 1024 * 1024 + static_cast<double>(code.size())) __builtin_trap();
      break;
    }
    case 13: {
      // A build log (kiln diagnose LOG, or kiln build's own), with the same text as the project's
      // setup.py, whose lines fill a traceback's frames that setuptools ran from its text.
      kiln::diagnose::Options options;
      options.plan = kiln::diagnose::PlanContext{};
      options.plan->setup_py = text;
      const auto d = kiln::diagnose::diagnose_text(text, options);
      for (const auto& f : d.findings)
        if (f.signature == nullptr || f.first_line == 0 || f.first_line > d.lines) __builtin_trap();
      break;
    }
  }
  return 0;
}
