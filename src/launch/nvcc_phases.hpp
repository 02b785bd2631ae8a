#pragma once
// Where one nvcc compile spent its time, from the CSV `nvcc --time FILE` writes (one row per phase:
// source, phase, inputs, output, arch, tool, time, unit). `kiln exec` gives each nvcc compile its
// own file (through NVCC_APPEND_FLAGS, which ccache does not hash) and records the phases in
// kiln-exec.jsonl; kiln report shows them per unit and per architecture.
#include <array>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace kiln::launch {

struct ArchPhases {
  double device_ms = 0;  // the device front end (preprocessing 1) and cicc: optimisation and PTX
  double ptxas_ms = 0;   // PTX to SASS
};

struct NvccPhases {
  double front_end_ms = 0;          // host preprocessing and cudafe++ (and ccache's own preprocessing run)
  double host_ms = 0;               // the host compiler compiling the cudafe++ output
  double link_ms = 0;               // fatbinary, nvlink
  double other_ms = 0;              // the driver and anything unnamed
  std::map<int, ArchPhases> archs;  // 90 -> its device phases
  int rows = 0;
  bool empty() const { return rows == 0; }
  double total_ms() const;
};

// One row of the CSV, shared by this reader and kiln report's (report/nvcc_time): the eight fields
// trimmed, and the time in milliseconds. nullopt when the row is not eight fields with a number.
struct NvccTimeRow {
  std::array<std::string, 8> f;  // source, phase, inputs, output, arch, tool, metric, unit
  double ms = 0;
};
bool nvcc_time_filler(std::string_view line);  // the header or a blank line
std::optional<NvccTimeRow> nvcc_time_row(std::string_view line);
// "compute_90a" / "sm_100f" -> 90 / 100; 0 when the row names no architecture.
int nvcc_time_arch(const std::string& s);

// The one model of nvcc's phases: which bucket a row's time goes to (device front end and cicc, or
// ptxas, per architecture; host front end; host compile; link; other). kiln report's reader of a
// whole build's CSV (report/nvcc_time) adds its rows here too.
void add_nvcc_time_row(NvccPhases& p, const NvccTimeRow& row);
// nvcc splits NVCC_APPEND_FLAGS on blanks and honours no quoting (`--time="/a b/t.csv"` opens a file
// named with the quotes), so a path handed through it must hold no blank: `path` itself, else the
// same file relative to `cwd` (the compile's folder), else nullopt (the caller leaves the flag out).
std::optional<std::string> append_flags_path(const std::string& path, const std::string& cwd);

// Tolerant: unreadable rows are skipped. The arch is the number in compute_90a / sm_100f.
NvccPhases parse_nvcc_phases(const std::string& csv);

}  // namespace kiln::launch
