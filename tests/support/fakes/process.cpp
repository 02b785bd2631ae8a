#include "fakes/process.hpp"

#include <algorithm>
#include <string_view>

namespace kiln::io {

void FakeProcessRunner::on(const std::string& command_line, ProcessResult result) {
  answers_[command_line] = std::move(result);
}

ProcessResult FakeProcessRunner::run(const ProcessSpec& spec) {
  calls_.push_back(spec);
  std::string key;
  for (const auto& a : spec.argv) key += (key.empty() ? "" : " ") + a;
  auto it = answers_.find(key);
  if (it == answers_.end()) {
    ProcessResult r;
    r.spawn_error = (spec.argv.empty() ? std::string("?") : spec.argv[0]) + ": No such file or directory";
    return r;
  }
  ProcessResult r = it->second;
  // The whole output at once, line by line, as the real runner hands it over.
  if (spec.on_line)
    for (size_t start = 0; start < r.out.size();) {
      const size_t nl = std::min(r.out.find('\n', start), r.out.size());
      spec.on_line(std::string_view(r.out).substr(start, nl - start));
      start = nl + 1;
    }
  return r;
}

ProcessResult ran(std::string out, int exit_code) {
  ProcessResult r;
  r.started = true;
  r.exit_code = exit_code;
  r.out = std::move(out);
  return r;
}

}  // namespace kiln::io
