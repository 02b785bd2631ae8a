#include "drive/build_lock.hpp"

#include <unistd.h>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/file_lock.hpp"
#include "io/tree_guard.hpp"

namespace kiln::drive {
namespace {

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string field(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(key + " ", 0) == 0) return line.substr(key.size() + 1);
  return {};
}

}  // namespace

tl::expected<BuildLock, std::string> BuildLock::acquire(const std::string& build_dir, const std::string& command) {
  std::error_code ec;
  std::filesystem::create_directories(build_dir + "/.kiln", ec);
  // Named as what it is (a read-only file system, no permission), not as the "No such file or
  // directory" that opening the lock inside the folder that could not be made would say.
  if (ec)
    return tl::unexpected("build folder " + build_dir + ": cannot create " + build_dir + "/.kiln: " + ec.message() +
                          "; pass --build-dir for a writable folder");
  const std::string path = build_dir + "/.kiln/lock";
  io::FileLock lock(path, {});
  if (!lock.held() && !lock.busy()) return tl::unexpected(path + ": the build lock: " + lock.error());
  if (!lock.held()) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str(), pid = field(text, "pid"), cmd = field(text, "command"),
                      since = field(text, "since");
    std::string who = pid.empty() ? "another process (it has not written its name yet)"
                                  : "pid " + pid + (cmd.empty() ? "" : " (" + cmd + ")") +
                                        (since.empty() ? "" : ", running since " + since);
    return tl::unexpected("build folder " + build_dir + " is in use by another build: " + who +
                          "; wait for it to finish, or pass --build-dir for a separate folder");
  }
  const int fd = lock.release();
  std::string info = "pid " + std::to_string(::getpid()) + "\ncommand " + command + "\nsince " + utc_now() + "\n";
  if (::ftruncate(fd, 0) == 0) {
    ssize_t w = ::pwrite(fd, info.data(), info.size(), 0);
    (void)w;  // the lock holds without the note; only the message to a second run is poorer
  }
  // Guards of the build's children keep the lock while what they guard still runs (kiln killed).
  io::keep_in_guards(fd);
  return BuildLock(fd, path);
}

BuildLock::~BuildLock() {
  if (fd_ >= 0) {
    io::keep_in_guards(-1);
    // Say the folder is free before the kernel drops the lock on close.
    if (::ftruncate(fd_, 0) != 0) {}
    ::close(fd_);
  }
}

std::string own_command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()), out;
  for (char c : raw) out += c == '\0' ? ' ' : c;
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

}  // namespace kiln::drive
