#include "probe/lib_load.hpp"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <cstring>
#include <optional>
#include <sstream>

#include "binary/elf.hpp"
#include "binary/mapped_file.hpp"
#include "io/environment.hpp"

namespace kiln::probe {
namespace {

constexpr std::string_view kMarker = "KILN-LOAD ";

// The library's DT_SONAME, through binary's bounds-checked ELF reader (the one kiln fuzzes): the
// file is untrusted, so a bad one gives elf_error, never a crash.
void read_soname(const std::string& path, LoadCheck& c) {
  auto blob = binary::map_file(path);
  if (!blob) {
    c.elf_error = blob.error();
    return;
  }
  auto elf = binary::Elf::parse((*blob)->bytes());
  if (!elf) {
    c.elf_error = elf.error().message;
    return;
  }
  if (elf->type() != 2 && elf->type() != 3) {  // ET_EXEC, ET_DYN
    c.elf_error = "not a shared library (ELF type " + std::to_string(elf->type()) + ")";
    return;
  }
  auto dyn = elf->dynamic();
  if (!dyn)
    c.elf_error = dyn.error().message;
  else if ((*blob)->changed_while_read())
    c.elf_error = "the file changed while it was read";
  else if (dyn->soname)
    c.soname = std::string(*dyn->soname);
}

// A dynamically linked program the system's loader will start with the library preloaded: kiln
// itself is static (it runs on any glibc), so the load is done by the host's own ld.so, as it
// will be for the program that uses the library. nullopt when none is found (a static /bin/true).
std::optional<std::string> host_program() {
  for (const char* cand : {"/bin/true", "/usr/bin/true", "/bin/sh"}) {
    auto blob = binary::map_file(cand);
    if (!blob) continue;
    auto elf = binary::Elf::parse((*blob)->bytes());
    if (!elf) continue;
    for (const auto& seg : elf->segments())
      if (seg.type == 3 /* PT_INTERP */) return std::string(cand);
  }
  return std::nullopt;
}

// What the loader said about `path`, in dlopen's words: the reason, or "" when it loaded.
std::string loader_verdict(const io::ProcessResult& r, const std::string& path) {
  if (!r.started) return "could not run the system loader: " + r.spawn_error;
  if (r.term_signal)
    return std::string("loading it killed the process with signal ") + std::to_string(r.term_signal) + " (" +
           ::strsignal(r.term_signal) + ")";
  const std::string& e = r.err;
  // "ERROR: ld.so: object 'P' from LD_PRELOAD cannot be preloaded (REASON): ignored."
  if (auto p = e.find("cannot be preloaded ("); p != std::string::npos) {
    auto start = p + 21, end = e.find("): ignored", start);
    return path + ": " + e.substr(start, end == std::string::npos ? std::string::npos : end - start);
  }
  // "PROG: symbol lookup error: LIB: undefined symbol: X" / "PROG: error while loading shared libraries: ..."
  for (const char* marker : {"symbol lookup error: ", "error while loading shared libraries: "})
    if (auto p = e.find(marker); p != std::string::npos) {
      auto start = p + std::strlen(marker);
      return e.substr(start, e.find('\n', start) - start);
    }
  if (r.exit_code != 0)
    return "the loader exited with " + std::to_string(r.exit_code) + ": " + e.substr(0, e.find('\n'));
  return "";
}

}  // namespace

int internal_load_main(const std::vector<std::string>& paths, std::ostream& out) {
  const auto program = host_program();
  io::RealProcessRunner proc;
  for (const auto& p : paths) {
    // Announce first: if the check below kills this process, the parent knows which library did it.
    out << kMarker << nlohmann::json{{"start", p}}.dump() << std::endl;
    LoadCheck c;
    c.path = p;
    read_soname(p, c);
    if (!program) {
      c.error = "no dynamically linked /bin/true or /bin/sh to load it with";
    } else if (p.find_first_of(" :") != std::string::npos) {
      c.error = "its path holds a space or a colon, which LD_PRELOAD cannot carry; not checked";
    } else {
      // The host's loader starts a trivial program with the library preloaded and every symbol
      // bound now (LD_BIND_NOW, as dlopen's RTLD_NOW): a missing dependency, an undefined symbol,
      // a missing symbol version or a constructor that crashes shows as it would in the program.
      io::ProcessSpec spec;
      spec.argv = {*program, "--version"};
      auto env = io::RealEnvironment().all();
      env["LD_PRELOAD"] = p;
      env["LD_BIND_NOW"] = "1";
      spec.env = env;
      c.error = loader_verdict(proc.run(spec), p);
    }
    c.loaded = c.error.empty();
    out << kMarker
        << nlohmann::json{{"path", p},
                          {"loaded", c.loaded},
                          {"error", c.error},
                          {"soname", c.soname},
                          {"elf_error", c.elf_error}}
               .dump()
        << std::endl;
  }
  return 0;
}

std::vector<LoadCheck> check_loads(io::ProcessRunner& proc, const std::string& self_exe,
                                   const std::vector<std::string>& paths) {
  std::vector<LoadCheck> out;
  for (const auto& p : paths) {
    LoadCheck c;
    c.path = p;
    out.push_back(c);
  }
  size_t next = 0;
  while (next < out.size()) {
    io::ProcessSpec spec;
    // One flag per library: kiln's options take one value per flag, so a path never reads as another option's.
    spec.argv = {self_exe, "doctor"};
    for (size_t i = next; i < out.size(); ++i) spec.argv.insert(spec.argv.end(), {kInternalLoadFlag, out[i].path});
    auto r = proc.run(spec);
    if (!r.started) {
      for (size_t i = next; i < out.size(); ++i) out[i].error = "could not start the load check: " + r.spawn_error;
      return out;
    }
    std::istringstream in(r.out);
    std::string line;
    size_t done = next;
    std::string started;
    while (std::getline(in, line)) {
      if (line.rfind(kMarker, 0) != 0) continue;  // a library's constructor may print too
      auto j = nlohmann::json::parse(line.substr(kMarker.size()), nullptr, false);
      if (!j.is_object()) continue;
      if (j.contains("start")) {
        started = j.value("start", "");
        continue;
      }
      if (done >= out.size() || j.value("path", "") != out[done].path) continue;
      auto& c = out[done++];
      c.checked = true;
      c.loaded = j.value("loaded", false);
      c.error = j.value("error", "");
      c.soname = j.value("soname", "");
      c.elf_error = j.value("elf_error", "");
      started.clear();
    }
    if (done == out.size()) break;
    // The child stopped early: blame the library it announced, then carry on after it.
    auto& c = out[done];
    c.checked = true;
    c.loaded = false;
    if (r.term_signal)
      c.error = std::string("loading it killed the process with signal ") + std::to_string(r.term_signal) + " (" +
                ::strsignal(r.term_signal) + ")";
    else
      c.error = "loading it ended the process with exit code " + std::to_string(r.exit_code);
    next = done + 1;
  }
  return out;
}

std::string self_executable() {
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "kiln";
  return std::string(buf, static_cast<size_t>(n));
}

}  // namespace kiln::probe
