#pragma once
// Looking after ccache for `kiln cache`: its statistics (`ccache --print-stats`, tab-separated
// counters), its configuration and where each value comes from (`ccache -p`: "(origin) key = value"),
// and the settings kiln writes (max_size, remote_storage, remote_only) with `ccache --set-config`.
// A cache folder given with --dir is the CCACHE_DIR ccache runs with; its ccache.conf is where
// the settings go, so `kiln build --cache-dir DIR` picks them up.
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <tl/expected.hpp>

#include "io/seams.hpp"
#include "probe/ccache_text.hpp"

namespace kiln::launch {

using ConfigValue = probe::CcacheConfigValue;

struct CcacheStatus {
  std::string ccache;  // the binary
  std::map<std::string, long long> counters;
  std::map<std::string, ConfigValue> config;
  long long hits() const;
  long long misses() const;
  long long remote_hits() const;
  long long local_hits() const { return hits() - remote_hits(); }  // a remote hit counts as direct too
  double hit_rate() const;
  std::string value(const std::string& key) const;
};

// The parsers are probe/ccache_text's, shared with the doctor.
using probe::parse_print_stats;
using probe::parse_show_config;

// redis://HOST[:PORT][/DB], redis+unix:PATH, http://HOST/..., file:PATH; "none" unsets.
tl::expected<void, std::string> check_remote_url(const std::string& url);
// Whether the server of a redis:// or http(s):// remote storage accepts a TCP connection within
// `timeout` (a name is resolved by `getent ahosts`, itself bounded by `timeout`); the reason when
// not. Other URLs (file:, redis+unix:) and "none" pass: there is no server to ask.
tl::expected<void, std::string> check_remote_reachable(io::Seams& s, const std::string& url,
                                                       std::chrono::milliseconds timeout);
// 0 (no limit), or a number with an optional unit k, M, G, T, Ki, Mi, Gi, Ti.
tl::expected<void, std::string> check_max_size(const std::string& size);

class Ccache {
public:
  // dir: the cache folder to act on (empty: ccache's own); fails when ccache is not on PATH.
  static tl::expected<Ccache, std::string> find(io::Seams& s, const std::string& dir);
  tl::expected<CcacheStatus, std::string> status();
  tl::expected<void, std::string> clear();
  tl::expected<void, std::string> set(const std::string& key, const std::string& value);

private:
  Ccache(io::Seams& s, std::string path, std::string dir) : s_(&s), path_(std::move(path)), dir_(std::move(dir)) {}
  io::ProcessResult run(const std::vector<std::string>& args);
  io::Seams* s_;
  std::string path_, dir_;
};

}  // namespace kiln::launch
