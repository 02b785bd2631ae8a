// tcp_ask against real loopback sockets: a server that answers, one that accepts and says nothing
// (the bound must hold), and a port nobody listens on.
#include <gtest/gtest.h>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "io/tcp_probe.hpp"

using namespace kiln;

namespace {

// A loopback listener on a free port; closed at the end.
struct Listener {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  int port = 0;
  Listener() {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
    socklen_t len = sizeof(a);
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    port = ntohs(a.sin_port);
    ::listen(fd, 4);
  }
  ~Listener() { ::close(fd); }
};

}  // namespace

TEST(TcpProbe, AServerThatAnswersIsRead) {
  Listener l;
  std::thread server([&] {
    const int c = ::accept(l.fd, nullptr, nullptr);
    char buf[64];
    (void)::recv(c, buf, sizeof(buf), 0);
    (void)::send(c, "+PONG\r\n", 7, 0);
    ::close(c);
  });
  auto r = io::tcp_ask("127.0.0.1", l.port, "PING\r\n", std::chrono::seconds(3));
  server.join();
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, "+PONG\r\n");
}

TEST(TcpProbe, ASilentServerIsBoundedByTheTimeout) {
  Listener l;  // the kernel completes the handshake; nobody ever answers
  const auto start = std::chrono::steady_clock::now();
  auto r = io::tcp_ask("127.0.0.1", l.port, "PING\r\n", std::chrono::milliseconds(300));
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "no answer within 300 ms");
  EXPECT_LT(took, std::chrono::seconds(2));
}

TEST(TcpProbe, NobodyListeningAndNamesAreSaid) {
  int port = 0;
  {
    Listener l;
    port = l.port;
  }  // closed: nothing listens there now
  auto r = io::tcp_ask("127.0.0.1", port, "PING\r\n", std::chrono::seconds(1));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "Connection refused");
  auto name = io::tcp_ask("localhost", port, "PING\r\n", std::chrono::seconds(1));
  ASSERT_FALSE(name);
  EXPECT_TRUE(io::is_not_numeric_error(name.error())) << name.error();
}
