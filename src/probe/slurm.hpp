#pragma once
// The Slurm allocation kiln build --slurm runs in, and the checks made before its first unit:
// Slurm answers and knows the partition; the nodes see the build and source folders (and kiln,
// and the compile cache) at the same paths as here; the nodes run the same compilers. Everything
// is asked through the process seam: squeue, sinfo, scontrol, and one srun step over the nodes.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <tl/expected.hpp>

#include "io/seams.hpp"

namespace kiln::probe {

struct SlurmTools {
  std::string srun = "srun", squeue = "squeue", sinfo = "sinfo", scontrol = "scontrol", scancel = "scancel";
};

struct Allocation {
  std::string job_id, partition;
  std::vector<std::string> nodes;
  std::vector<int> cpus;           // per node, in `nodes` order
  std::uint64_t node_mem_kib = 0;  // the allocation's memory on each node (the smallest), 0: unknown
  // Nodes SLURM_JOB_NODELIST names that the job no longer has (a node failed under
  // `salloc --no-kill`; Slurm removed it but the variables still list it): not in `nodes`.
  std::vector<std::string> lost;
  int total_cpus() const;
};

// SLURM_JOB_CPUS_PER_NODE: "4(x2),2" -> {4, 4, 2}; empty on a malformed value.
std::vector<int> parse_cpus_per_node(const std::string& text);

// The allocation kiln runs in (SLURM_JOB_ID), with its nodes, cores and memory; an error says
// what is missing (not in an allocation, Slurm not answering, the partition unknown).
tl::expected<Allocation, std::string> detect_allocation(io::Seams& s, const SlurmTools& t);

// What every node must see as this machine does: folders and files by path (same inode), tools
// by their first `--version` line.
struct NodeProbe {
  std::map<std::string, std::string> paths;       // what it is ("build folder") -> path
  std::vector<std::string> tools;                 // absolute paths of compilers (and the Python interpreter)
  std::map<std::string, std::string> tool_kinds;  // tool path -> what it is, for the error ("compiler" if absent)
  // Files every node must have with the same content, not the same inode (a copy installed on each
  // node passes): what it is ("torch 2.4.0") -> path, compared by cksum.
  std::map<std::string, std::string> files;
  // A folder in the build folder where this machine and each node exchange a file: the node reads
  // the one written here and writes its own, read back here. The same inode number is no proof of
  // one shared folder (a node's read-only or overlaid view of the path reports the same); a round
  // trip is. Empty: no exchange.
  std::string exchange_dir;
  std::string nonce;  // the exchanged text; empty: made from the pid and the clock
};
// The folder of the interpreter's Python.h (sysconfig's "include"), "" when it does not answer:
// a torch extension's units read it on every node.
std::string python_headers_dir(io::Seams& s, const std::string& python);
// The probe's script: fixed text, the paths and tools come as its arguments (never spliced in).
std::vector<std::string> probe_script_argv(const NodeProbe& p);
// Runs the probe here and as one step with a task on every node; the first difference, as a
// one-line error naming the node, or nothing when every node matches.
tl::expected<void, std::string> check_nodes(const Allocation& a, const NodeProbe& p, io::Seams& s, const SlurmTools& t);

// Parses what the probe printed, `srun -l` style ("0: node n1"), into lines per node name.
std::map<std::string, std::vector<std::string>> probe_lines_by_node(const std::string& out);

// Cancels the steps named `tag` that are still running or queued in the job, and waits (bounded)
// until squeue lists none; returns how many it cancelled, or an error naming what is left.
tl::expected<int, std::string> cancel_steps(const std::string& job_id, const std::string& tag, io::Seams& s,
                                            const SlurmTools& t);

}  // namespace kiln::probe
