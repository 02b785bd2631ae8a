#include "probe/lib_load.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "probe/elf_soname.hpp"

namespace kiln::probe {
namespace {

constexpr std::string_view kMarker = "KILN-LOAD ";

void read_soname(const std::string& path, LoadCheck& c) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    c.elf_error = std::string("cannot open: ") + ::strerror(errno);
    return;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || st.st_size <= 0) {
    c.elf_error = "empty file";
    ::close(fd);
    return;
  }
  void* map = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) {
    c.elf_error = std::string("cannot map: ") + ::strerror(errno);
    return;
  }
  auto r = read_elf_soname(std::string_view(static_cast<const char*>(map), static_cast<size_t>(st.st_size)));
  if (r)
    c.soname = r->soname;
  else
    c.elf_error = r.error();
  ::munmap(map, static_cast<size_t>(st.st_size));
}

}  // namespace

int internal_load_main(const std::vector<std::string>& paths, std::ostream& out) {
  for (const auto& p : paths) {
    // Announce first: if the dlopen below kills the process, the parent knows which library did it.
    out << kMarker << nlohmann::json{{"start", p}}.dump() << std::endl;
    LoadCheck c;
    c.path = p;
    read_soname(p, c);
    dlerror();
    void* h = dlopen(p.c_str(), RTLD_NOW | RTLD_LOCAL);
    c.loaded = h != nullptr;
    if (!h) {
      const char* e = dlerror();
      c.error = e ? e : "dlopen failed";
    }
    // No dlclose: some libraries crash in their destructors, and the child exits right away anyway.
    out << kMarker
        << nlohmann::json{{"path", p}, {"loaded", c.loaded}, {"error", c.error}, {"soname", c.soname}, {"elf_error", c.elf_error}}
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
    spec.argv = {self_exe, "doctor", kInternalLoadFlag};
    for (size_t i = next; i < out.size(); ++i) spec.argv.push_back(out[i].path);
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
