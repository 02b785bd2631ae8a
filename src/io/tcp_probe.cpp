#include "io/tcp_probe.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cstring>
#include <optional>

namespace kiln::io {
namespace {

constexpr const char* kNotNumeric = " is not a numeric address";

// Waits for `events` on fd until `deadline`; the error when it does not come.
std::optional<std::string> wait_for(int fd, short events, std::chrono::steady_clock::time_point deadline,
                                    std::chrono::milliseconds timeout) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
  pollfd p{fd, events, 0};
  const int ready = ::poll(&p, 1, static_cast<int>(std::max<long long>(0, left.count())));
  if (ready == 0) return "no answer within " + std::to_string(timeout.count()) + " ms";
  if (ready < 0) return std::string(std::strerror(errno));
  return std::nullopt;
}

}  // namespace

bool is_not_numeric_error(const std::string& error) {
  return error.size() > std::strlen(kNotNumeric) && error.find(kNotNumeric) != std::string::npos;
}

tl::expected<std::string, std::string> tcp_ask(const std::string& ip, int port, const std::string& request,
                                               std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  sockaddr_storage addr{};
  socklen_t len = 0;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&addr);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&addr);
  if (::inet_pton(AF_INET, ip.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(static_cast<std::uint16_t>(port));
    len = sizeof(*v4);
  } else if (::inet_pton(AF_INET6, ip.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(static_cast<std::uint16_t>(port));
    len = sizeof(*v6);
  } else {
    return tl::unexpected("'" + ip + "'" + kNotNumeric);
  }
  const int fd = ::socket(addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return tl::unexpected(std::string(std::strerror(errno)));
  auto fail = [fd](std::string why) {
    ::close(fd);
    return tl::unexpected(std::move(why));
  };
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), len) != 0) {
    if (errno != EINPROGRESS) return fail(std::strerror(errno));
    if (auto e = wait_for(fd, POLLOUT, deadline, timeout)) return fail(*e);
    int so_error = 0;
    socklen_t so_len = sizeof(so_error);
    if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &so_len) != 0) return fail(std::strerror(errno));
    if (so_error != 0) return fail(std::strerror(so_error));
  }
  for (size_t sent = 0; sent < request.size();) {
    if (auto e = wait_for(fd, POLLOUT, deadline, timeout)) return fail(*e);
    const ssize_t n = ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno != EAGAIN && errno != EINTR) return fail(std::strerror(errno));
    if (n > 0) sent += static_cast<size_t>(n);
  }
  char buf[256];
  for (;;) {
    if (auto e = wait_for(fd, POLLIN, deadline, timeout)) return fail(*e);
    const ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n > 0) {
      ::close(fd);
      return std::string(buf, static_cast<size_t>(n));
    }
    if (n == 0) return fail("the server closed the connection without answering");
    if (errno != EAGAIN && errno != EINTR) return fail(std::strerror(errno));
  }
}

}  // namespace kiln::io
