#include "probe/slurm.hpp"
#include "core/text.hpp"
#include "io/isolated_python.hpp"

#include <unistd.h>

#include <algorithm>
#include <fmt/format.h>
#include <sstream>

namespace kiln::probe {
namespace {

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

std::string why(const io::ProcessResult& r) {
  if (!r.started) return r.spawn_error;
  std::string e = first_line(r.err.empty() ? r.out : r.err);
  return e.empty() ? fmt::format("exit {}", r.exit_code) : e;
}

// Prints, for this node: its name, each path's inode (or that it is missing), each tool's first
// --version line. The same script runs here (SLURMD_NODENAME unset) for the reference.
constexpr const char* kProbeScript =
    "echo \"node ${SLURMD_NODENAME:-here}\"\n"
    "x=; n=\n"
    "if [ \"$1\" = --exchange ]; then x=$2; n=$3; shift 3; fi\n"
    "while [ $# -gt 0 ] && [ \"$1\" != -- ]; do\n"
    "  if i=$(stat -L -c %i -- \"$1\" 2>/dev/null); then echo \"path $i $1\"; else echo \"missing $1\"; fi; shift\n"
    "done\n"
    "[ $# -gt 0 ] && shift\n"
    "while [ $# -gt 0 ] && [ \"$1\" != -- ]; do echo \"tool $1: $(\"$1\" --version 2>&1 | head -n 1)\"; shift; done\n"
    "[ $# -gt 0 ] && shift\n"
    "for f; do if [ -r \"$f\" ]; then echo \"sum $f: $(cksum < \"$f\")\"; else echo \"sum $f: missing\"; fi; done\n"
    "if [ -n \"$x\" ]; then\n"
    "  if [ \"$(cat \"$x/probe-$n\" 2>/dev/null)\" = \"$n\" ] && echo \"$n\" > "
    "\"$x/probe-$n-${SLURMD_NODENAME:-here}\" 2>/dev/null\n"
    "  then echo \"exchange ok\"; else echo \"exchange failed\"; fi\n"
    "fi\n";

}  // namespace

int Allocation::total_cpus() const {
  int n = 0;
  for (int c : cpus) n += c;
  return n;
}

std::vector<int> parse_cpus_per_node(const std::string& text) {
  std::vector<int> out;
  std::istringstream in(text);
  for (std::string part; std::getline(in, part, ',');) {
    int n = 0, times = 1;
    char x1 = 0, x2 = 0;
    std::istringstream p(part);
    if (!(p >> n) || n < 1) return {};
    if (p >> x1) {
      if (x1 != '(' || !(p >> x2) || x2 != 'x' || !(p >> times) || times < 1 || times > 100000 || !(p >> x1) ||
          x1 != ')')
        return {};
    }
    out.insert(out.end(), times, n);
  }
  return out;
}

namespace {

// The job's nodes as slurmctld has them now: a job that lost a node under --no-kill runs on
// without it while SLURM_JOB_NODELIST (salloc's) still names it, and a step asked of it never runs.
void drop_lost_nodes(Allocation& a, io::Seams& s, const SlurmTools& t) {
  auto now = s.proc.run({.argv = {t.squeue, "-h", "-j", a.job_id, "-o", "%N"}});
  if (!now.ok() || words(now.out).empty()) return;
  auto hosts = s.proc.run({.argv = {t.scontrol, "show", "hostnames", words(now.out)[0]}});
  const auto current = hosts.ok() ? words(hosts.out) : std::vector<std::string>{};
  if (current.empty()) return;
  Allocation kept = a;
  kept.nodes.clear();
  kept.cpus.clear();
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    if (std::find(current.begin(), current.end(), a.nodes[i]) != current.end()) {
      kept.nodes.push_back(a.nodes[i]);
      kept.cpus.push_back(a.cpus[i]);
    } else {
      kept.lost.push_back(a.nodes[i]);
    }
  }
  if (!kept.nodes.empty()) a = kept;
}

}  // namespace

tl::expected<Allocation, std::string> detect_allocation(io::Seams& s, const SlurmTools& t) {
  Allocation a;
  a.job_id = s.env.get("SLURM_JOB_ID").value_or("");
  if (a.job_id.empty())
    return tl::unexpected(
        std::string("not inside a Slurm allocation (SLURM_JOB_ID is not set): run kiln build --slurm "
                    "under salloc or in an sbatch script"));
  auto state = s.proc.run({.argv = {t.squeue, "-h", "-j", a.job_id, "-o", "%T %P"}});
  if (!state.ok()) return tl::unexpected(fmt::format("Slurm does not answer: squeue -j {}: {}", a.job_id, why(state)));
  auto st = words(state.out);
  if (st.size() < 2 || st[0] != "RUNNING")
    return tl::unexpected(fmt::format("Slurm job {} is not running ({}): kiln build --slurm needs a running allocation",
                                      a.job_id, st.empty() ? "unknown to squeue" : st[0]));
  a.partition = s.env.get("SLURM_JOB_PARTITION").value_or(st[1]);
  auto part = s.proc.run({.argv = {t.sinfo, "-h", "-p", a.partition, "-o", "%P"}});
  if (!part.ok() || words(part.out).empty())
    return tl::unexpected(fmt::format("Slurm partition '{}' is not known to sinfo: {}", a.partition,
                                      part.ok() ? "no such partition" : why(part)));
  auto hosts = s.proc.run({.argv = {t.scontrol, "show", "hostnames", s.env.get("SLURM_JOB_NODELIST").value_or("")}});
  a.nodes = hosts.ok() ? words(hosts.out) : std::vector<std::string>{};
  a.cpus = parse_cpus_per_node(s.env.get("SLURM_JOB_CPUS_PER_NODE").value_or(""));
  if (a.nodes.empty() || a.cpus.size() != a.nodes.size())
    return tl::unexpected(fmt::format(
        "cannot read the nodes of Slurm job {} (SLURM_JOB_NODELIST '{}', "
        "SLURM_JOB_CPUS_PER_NODE '{}')",
        a.job_id, s.env.get("SLURM_JOB_NODELIST").value_or(""), s.env.get("SLURM_JOB_CPUS_PER_NODE").value_or("")));
  drop_lost_nodes(a, s, t);
  // Slurm gives both in MB, plain numbers.
  if (auto mb = core::parse_uint(s.env.get("SLURM_MEM_PER_NODE").value_or("")))
    a.node_mem_kib = *mb * 1024;
  else if (auto per_cpu = core::parse_uint(s.env.get("SLURM_MEM_PER_CPU").value_or("")))
    a.node_mem_kib = *per_cpu * 1024 * static_cast<std::uint64_t>(*std::min_element(a.cpus.begin(), a.cpus.end()));
  if (!a.node_mem_kib) {  // no memory in the request: what sinfo says the smallest node has
    std::string list;
    for (const auto& n : a.nodes) list += (list.empty() ? "" : ",") + n;
    auto mem = s.proc.run({.argv = {t.sinfo, "-h", "-N", "-n", list, "-o", "%m"}});
    for (const auto& w : mem.ok() ? words(mem.out) : std::vector<std::string>{}) {
      // MB; sinfo writes "N+" for a group of nodes whose smallest has N.
      const auto mb = core::parse_uint(w.ends_with('+') ? w.substr(0, w.size() - 1) : w);
      if (!mb) continue;
      const std::uint64_t kib = *mb * 1024;
      a.node_mem_kib = a.node_mem_kib ? std::min(a.node_mem_kib, kib) : kib;
    }
  }
  return a;
}

std::string python_headers_dir(io::Seams& s, const std::string& python) {
  if (python.empty()) return "";
  auto r = s.proc.run(io::isolated_python(python, "import sysconfig; print(sysconfig.get_paths()['include'])",
                                          io::PythonSite::skipped));
  return r.ok() ? core::trim(r.out) : "";
}

std::vector<std::string> probe_script_argv(const NodeProbe& p) {
  std::vector<std::string> argv = {"/bin/sh", "-c", kProbeScript, "kiln-probe"};
  if (!p.exchange_dir.empty()) argv.insert(argv.end(), {"--exchange", p.exchange_dir, p.nonce});
  for (const auto& [what, path] : p.paths) argv.push_back(path);
  argv.push_back("--");
  argv.insert(argv.end(), p.tools.begin(), p.tools.end());
  if (!p.files.empty()) argv.push_back("--");
  for (const auto& [what, path] : p.files) argv.push_back(path);
  return argv;
}

std::map<std::string, std::vector<std::string>> probe_lines_by_node(const std::string& out) {
  std::map<std::string, std::vector<std::string>> by_task, by_node;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    const auto colon = line.find(": ");
    if (colon == std::string::npos) continue;
    std::string task = line.substr(0, colon);
    task.erase(0, task.find_first_not_of(' '));
    by_task[task].push_back(line.substr(colon + 2));
  }
  for (auto& [task, lines] : by_task) {
    if (lines.empty() || lines[0].rfind("node ", 0) != 0) continue;
    by_node[lines[0].substr(5)] = std::vector<std::string>(lines.begin() + 1, lines.end());
  }
  return by_node;
}

namespace {

// The exchange's files read back here: each node's, with the text given; then all removed.
tl::expected<void, std::string> check_exchange(const Allocation& a, const NodeProbe& p, io::Seams& s) {
  std::optional<std::string> bad;
  for (const auto& node : a.nodes) {
    const auto got = s.fs.read(p.exchange_dir + "/probe-" + p.nonce + "-" + node);
    if (!bad && (!got || core::trim(*got) != p.nonce))
      bad = fmt::format(
          "node {} does not share the build folder with this machine: it answered the probe, but the "
          "file it wrote in {} is not here ({}); kiln build --slurm needs the build folder on a "
          "file system shared, writable, at the same path",
          node, p.exchange_dir, got ? "other text" : "missing");
    s.fs.remove(p.exchange_dir + "/probe-" + p.nonce + "-" + node);
  }
  s.fs.remove(p.exchange_dir + "/probe-" + p.nonce);
  s.fs.remove(p.exchange_dir + "/probe-" + p.nonce + "-here");
  if (bad) return tl::unexpected(*bad);
  return {};
}

}  // namespace

tl::expected<void, std::string> check_nodes(const Allocation& a, const NodeProbe& given, io::Seams& s,
                                            const SlurmTools& t) {
  NodeProbe p = given;
  if (!p.exchange_dir.empty()) {
    if (p.nonce.empty()) p.nonce = fmt::format("{}-{}", ::getpid(), s.clock.now().time_since_epoch().count());
    s.fs.make_dirs(p.exchange_dir);
    if (!s.fs.write(p.exchange_dir + "/probe-" + p.nonce, p.nonce + "\n"))
      return tl::unexpected(fmt::format("cannot write the node probe's file in {}", p.exchange_dir));
  }
  // The exchange's files go whatever the answer (check_exchange removes them when it runs).
  struct Tidy {
    const NodeProbe& p;
    const Allocation& a;
    io::Seams& s;
    ~Tidy() {
      if (p.exchange_dir.empty()) return;
      s.fs.remove(p.exchange_dir + "/probe-" + p.nonce);
      s.fs.remove(p.exchange_dir + "/probe-" + p.nonce + "-here");
      for (const auto& node : a.nodes) s.fs.remove(p.exchange_dir + "/probe-" + p.nonce + "-" + node);
    }
  } tidy{p, a, s};
  const auto script = probe_script_argv(p);
  auto here = s.proc.run({.argv = script});
  if (!here.ok()) return tl::unexpected("cannot run the node probe here: " + why(here));
  std::istringstream hin(here.out);
  std::vector<std::string> expected;
  for (std::string line; std::getline(hin, line);)
    if (line.rfind("node ", 0) != 0) expected.push_back(line);
  for (const auto& line : expected)
    if (line.rfind("missing ", 0) == 0) return tl::unexpected(fmt::format("{} does not exist here", line.substr(8)));
  const std::string n = std::to_string(a.nodes.size());
  std::vector<std::string> argv = {t.srun,
                                   "--jobid=" + a.job_id,
                                   "--job-name=kiln-probe",
                                   "--overlap",
                                   "-N" + n,
                                   "-n" + n,
                                   "--ntasks-per-node=1",
                                   "--mem=0",
                                   "-l",
                                   "--quiet",
                                   "--"};
  argv.insert(argv.end(), script.begin(), script.end());
  auto there = s.proc.run({.argv = argv});
  auto by_node = probe_lines_by_node(there.out);
  for (const auto& node : a.nodes) {
    auto it = by_node.find(node);
    if (it == by_node.end())
      return tl::unexpected(fmt::format("node {} did not answer the probe step (srun: {})", node, why(there)));
    for (size_t i = 0; i < expected.size(); ++i) {
      const std::string got = i < it->second.size() ? it->second[i] : "";
      if (got == expected[i]) continue;
      if (expected[i].rfind("exchange ", 0) == 0)
        return tl::unexpected(fmt::format(
            "node {} does not share the build folder with this machine: it cannot read the file written here in "
            "{}, or cannot write its own there (read-only, or another folder at the same path); kiln build "
            "--slurm needs the build folder on a file system shared, writable, at the same path",
            node, p.exchange_dir));
      if (expected[i].rfind("path ", 0) == 0) {
        const std::string path = expected[i].substr(expected[i].find(' ', 5) + 1);
        std::string what = path;
        for (const auto& [w, pp] : p.paths)
          if (pp == path) what = w + " " + path;
        return tl::unexpected(
            fmt::format("node {} does not see the {} as this machine does ({}): kiln build --slurm needs "
                        "it on a file system shared at the same path",
                        node, what, got.rfind("missing", 0) == 0 ? "missing there" : "another file there"));
      }
      if (expected[i].rfind("sum ", 0) == 0) {
        const std::string path = expected[i].substr(4, expected[i].find(": ", 4) - 4);
        std::string what = path;
        for (const auto& [w, pp] : p.files)
          if (pp == path) what = w;
        return tl::unexpected(fmt::format(
            "node {} has another {} than this machine ({}: {} there): the units compiled there read it; install "
            "the same on every node, or put it on the shared file system",
            node, what, path, got.ends_with(": missing") ? "missing" : "other content"));
      }
      const std::string tool = expected[i].substr(5, expected[i].find(": ", 5) - 5);
      const auto kind = p.tool_kinds.find(tool);
      return tl::unexpected(fmt::format("node {} runs another {}: here '{}', there '{}'", node,
                                        kind == p.tool_kinds.end() ? "compiler" : kind->second, expected[i].substr(5),
                                        got.empty() ? "nothing" : got.substr(std::min<size_t>(5, got.size()))));
    }
  }
  if (!p.exchange_dir.empty()) return check_exchange(a, p, s);
  return {};
}

tl::expected<int, std::string> cancel_steps(const std::string& job_id, const std::string& tag, io::Seams& s,
                                            const SlurmTools& t) {
  // A step on a node the job lost stays listed as running for good (seen with Slurm 22.05.8 when a
  // node of a --no-kill job died): it is cancelled, but not waited for.
  std::vector<std::string> job_nodes;
  if (auto now = s.proc.run({.argv = {t.squeue, "-h", "-j", job_id, "-o", "%N"}}); now.ok() && !words(now.out).empty())
    if (auto h = s.proc.run({.argv = {t.scontrol, "show", "hostnames", words(now.out)[0]}}); h.ok())
      job_nodes = words(h.out);
  auto on_lost_node = [&](const std::string& node) {
    return !job_nodes.empty() && std::find(job_nodes.begin(), job_nodes.end(), node) == job_nodes.end();
  };
  auto list = [&](bool with_lost) {
    std::vector<std::string> steps;
    auto r = s.proc.run({.argv = {t.squeue, "-h", "-s", "-j", job_id, "-o", "%i %j %N"}});
    auto w = r.ok() ? words(r.out) : std::vector<std::string>{};
    for (size_t i = 0; i + 2 < w.size(); i += 3)
      if (w[i + 1] == tag && (with_lost || !on_lost_node(w[i + 2]))) steps.push_back(w[i]);
    return steps;
  };
  auto steps = list(true);
  const int cancelled = static_cast<int>(steps.size());
  // A cancelled step stays listed until its slurmstepd has ended the tasks and told slurmctld; on a
  // loaded head node that has taken more than 5 s (the step's srun gone, the stepd's messages to it
  // time out), so kiln asks again, less often, for up to kCancelWait.
  constexpr auto kCancelWait = std::chrono::seconds(20);
  const auto t0 = s.clock.now();
  auto pause = std::chrono::milliseconds(250);
  while (!steps.empty() && s.clock.now() - t0 < kCancelWait) {
    std::vector<std::string> argv = {t.scancel};
    argv.insert(argv.end(), steps.begin(), steps.end());
    s.proc.run({.argv = argv});
    s.clock.sleep_for(pause);
    pause = std::min<std::chrono::milliseconds>(pause * 2, std::chrono::seconds(2));
    steps = list(false);
  }
  if (!steps.empty())
    return tl::unexpected(fmt::format("{} Slurm step(s) still listed {} s after scancel: {}", steps.size(),
                                      kCancelWait.count(), steps.front()));
  return cancelled;
}

}  // namespace kiln::probe
