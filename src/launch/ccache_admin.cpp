#include "launch/ccache_admin.hpp"

#include <algorithm>

#include "core/size_text.hpp"
#include "io/tcp_probe.hpp"

#include <fmt/format.h>

#include <regex>

namespace kiln::launch {

long long CcacheStatus::hits() const { return probe::ccache_hits(counters); }
long long CcacheStatus::misses() const { return probe::ccache_misses(counters); }
long long CcacheStatus::remote_hits() const { return probe::ccache_counter(counters, "remote_storage_hit"); }
double CcacheStatus::hit_rate() const {
  const long long t = hits() + misses();
  return t ? static_cast<double>(hits()) / t : 0.0;
}
std::string CcacheStatus::value(const std::string& key) const {
  auto it = config.find(key);
  return it == config.end() ? std::string() : it->second.value;
}

tl::expected<void, std::string> check_remote_url(const std::string& url) {
  if (url == "none") return {};
  // A host name or a bracketed IPv6 address, then an optional numeric port.
  static const std::string host = R"((\[[0-9A-Fa-f:]+\]|[A-Za-z0-9._\-]+)(:\d{1,5})?)";
  static const std::regex redis(R"(^redis://([^@/\s]+@)?)" + host + R"((/\d+)?(\|.*)?$)");
  static const std::regex http(R"(^https?://([^@/\s]+@)?)" + host + R"((/[^|\s]*)?(\|.*)?$)");
  static const std::regex other(R"(^(redis\+unix|file):/?\S+$)");
  if (std::regex_match(url, redis) || std::regex_match(url, http) || std::regex_match(url, other)) return {};
  return tl::unexpected(
      fmt::format("--remote '{}': expected redis://HOST:PORT, http://HOST/PATH, redis+unix:PATH, "
                  "file:PATH or none",
                  url));
}

tl::expected<void, std::string> check_remote_reachable(io::Seams& s, const std::string& url,
                                                       std::chrono::milliseconds timeout) {
  // The scheme, an optional user@, the host (bracketed IPv6 or a name/IPv4) and an optional port.
  static const std::regex re(R"(^(redis|https?)://(?:[^@/\s]+@)?(\[[0-9A-Fa-f:]+\]|[A-Za-z0-9._\-]+)(?::(\d{1,5}))?)");
  std::smatch m;
  if (!std::regex_search(url, m, re)) return {};
  const std::string scheme = m[1];
  std::string host = m[2];
  const int port = m[3].matched ? std::stoi(m[3]) : scheme == "redis" ? 6379 : scheme == "https" ? 443 : 80;
  if (host.front() == '[') host = host.substr(1, host.size() - 2);
  // Redis answers PING with +PONG (or -NOAUTH: a server all the same); an HTTP server answers HTTP/.
  const bool redis = scheme == "redis";
  const std::string request = redis ? "PING\r\n" : "HEAD / HTTP/1.0\r\nHost: " + host + "\r\n\r\n";
  std::string ip = host;
  auto reply = io::tcp_ask(host, port, request, timeout);
  if (!reply && io::is_not_numeric_error(reply.error())) {
    // A name: the system's resolver (files, DNS) through getent, which kiln's static binary cannot
    // link; `timeout` bounds a resolver that does not answer.
    const auto secs = std::to_string(std::max<long long>(1, (timeout.count() + 999) / 1000));
    auto r = s.proc.run({.argv = {"timeout", secs, "getent", "ahosts", host}});
    const auto first = r.out.find_first_of(" \t");
    if (!r.ok() || first == std::string::npos)
      return tl::unexpected(fmt::format("cannot resolve host '{}'{}", host, r.exit_code == 124 ? " in time" : ""));
    ip = r.out.substr(0, first);
    reply = io::tcp_ask(ip, port, request, timeout);
  }
  const std::string where = fmt::format("{}:{}{}", host, port, ip == host ? "" : " (" + ip + ")");
  if (!reply) return tl::unexpected(fmt::format("cannot reach {}: {}", where, reply.error()));
  const bool answers =
      redis ? (!reply->empty() && (reply->front() == '+' || reply->front() == '-')) : reply->rfind("HTTP/", 0) == 0;
  if (!answers)
    return tl::unexpected(fmt::format("{} answers, but not as {} server", where, redis ? "a Redis" : "an HTTP"));
  return {};
}

tl::expected<void, std::string> check_max_size(const std::string& size) {
  static const std::regex re(R"(^\d+(\.\d+)?\s*(k|K|M|G|T|Ki|Mi|Gi|Ti)?$)");
  if (std::regex_match(size, re)) return {};
  // Handed to ccache as written: its rules, K, M, G and T decimal (core::parse_ccache_size reads them back).
  return tl::unexpected(fmt::format("--max-size '{}': expected a size such as 20G, 500M or 0 for no limit ({})", size,
                                    core::size_base_text(core::SizeBase::decimal)));
}

tl::expected<Ccache, std::string> Ccache::find(io::Seams& s, const std::string& dir) {
  auto path = io::which(s, "ccache");
  if (!path) return tl::unexpected(std::string("ccache not found on PATH; install it (apt-get install ccache)"));
  return Ccache(s, *path, dir);
}

io::ProcessResult Ccache::run(const std::vector<std::string>& args) {
  io::ProcessSpec spec;
  spec.argv = {path_};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  auto env = s_->env.all();
  if (!dir_.empty()) env["CCACHE_DIR"] = dir_;
  spec.env = env;
  return s_->proc.run(spec);
}

namespace {
std::string why(const io::ProcessResult& r) {
  if (!r.started) return r.spawn_error;
  std::string text = r.err.empty() ? r.out : r.err;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text.empty() ? fmt::format("exit {}", r.exit_code) : text;
}
}  // namespace

tl::expected<CcacheStatus, std::string> Ccache::status() {
  CcacheStatus st;
  st.ccache = path_;
  auto stats = run({"--print-stats"});
  if (!stats.ok()) return tl::unexpected("ccache --print-stats failed: " + why(stats));
  auto counters = parse_print_stats(stats.out);
  if (!counters) return tl::unexpected(counters.error());
  st.counters = std::move(*counters);
  auto conf = run({"--show-config"});
  if (!conf.ok()) return tl::unexpected("ccache --show-config failed: " + why(conf));
  st.config = parse_show_config(conf.out);
  return st;
}

tl::expected<void, std::string> Ccache::clear() {
  for (const char* flag : {"--clear", "--zero-stats"}) {
    auto r = run({flag});
    if (!r.ok()) return tl::unexpected(fmt::format("ccache {} failed: {}", flag, why(r)));
  }
  return {};
}

tl::expected<void, std::string> Ccache::set(const std::string& key, const std::string& value) {
  auto r = run({"--set-config", key + "=" + value});
  if (!r.ok()) return tl::unexpected(fmt::format("ccache --set-config {}={} failed: {}", key, value, why(r)));
  return {};
}

}  // namespace kiln::launch
