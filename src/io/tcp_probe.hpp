#pragma once
// Whether a TCP server answers: connect to a numeric address, send one request, read the start of
// the reply, all bounded by one timeout (non-blocking socket and poll). `kiln cache config --remote`
// checks its server with it: a connect alone proves little where a proxy accepts every connection.
#include <chrono>
#include <string>

#include <tl/expected.hpp>

namespace kiln::io {

// The first bytes (up to 256) the server at `ip` (IPv4 or IPv6, numeric) on `port` sends back after
// `request`, within `timeout` in all; otherwise why not ("Connection refused", "no answer within
// 3000 ms", "'x' is not a numeric address").
tl::expected<std::string, std::string> tcp_ask(const std::string& ip, int port, const std::string& request,
                                               std::chrono::milliseconds timeout);

// The error tcp_ask gives for a host that is a name rather than an address.
bool is_not_numeric_error(const std::string& error);

}  // namespace kiln::io
