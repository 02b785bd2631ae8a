// kiln cache: show, clear and configure the compile cache (ccache), including a remote storage
// (Redis or HTTP) that CI runners share.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "cli/json_out.hpp"
#include "core/size_text.hpp"
#include "launch/ccache_admin.hpp"

namespace kiln::cli {
namespace {

using json = nlohmann::ordered_json;

class CacheCommand final : public Command {
public:
  const char* name() const override { return "cache"; }
  const char* summary() const override { return "Show, clear and configure the compile cache"; }
  void setup(CLI::App& app) override {
    app.add_option("action", action_, "show (default), clear or config")
        ->check(CLI::IsMember({"show", "clear", "config"}));
    app.add_option("--dir", dir_, "Cache folder to act on, as given to kiln build --cache-dir (default: ccache's own)")
        ->envname("KILN_CACHE_DIR");
    app.add_option("--remote", remote_,
                   "config: shared remote storage, redis://HOST:PORT or http://HOST/PATH (none: remove it)");
    app.add_option("--max-size", max_size_, "config: local cache size limit, such as 20G (0: no limit)");
    app.add_option("--remote-only", remote_only_, "config: true to keep nothing locally, only in the remote storage")
        ->check(CLI::IsMember({"true", "false"}));
    app.add_flag("--no-check", no_check_,
                 "config: set --remote without checking that its server answers (checked by default, 3 s at most)");
    app.add_flag("--json", json_, "Print the cache's state as JSON");
  }

  int run(io::Seams& s) override {
    auto cc = launch::Ccache::find(s, dir_);
    if (!cc) throw Failure(cc.error());
    if (action_ == "config") {
      if (remote_.empty() && max_size_.empty() && remote_only_.empty())
        throw UsageError(
            "kiln cache config: nothing to set; give --remote URL, --max-size SIZE or --remote-only true|false");
      if (!remote_.empty())
        if (auto ok = launch::check_remote_url(remote_); !ok) throw UsageError(ok.error());
      // A server that does not answer would make every compile wait for ccache's remote timeout and
      // then miss: found now, before anything is changed.
      if (!remote_.empty() && !no_check_)
        if (auto ok = launch::check_remote_reachable(s, remote_, std::chrono::seconds(3)); !ok)
          throw Failure(
              fmt::format("--remote {}: {}; start the server or correct the URL (--no-check sets it anyway); "
                          "nothing was changed",
                          remote_, ok.error()));
      if (!max_size_.empty())
        if (auto ok = launch::check_max_size(max_size_); !ok) throw UsageError(ok.error());
      auto apply = [&](const char* key, const std::string& value) {
        if (value.empty()) return;
        if (auto ok = cc->set(key, value == "none" ? "" : value); !ok) throw Failure(ok.error());
      };
      apply("remote_storage", remote_);
      apply("max_size", max_size_);
      apply("remote_only", remote_only_);
    } else if (action_ == "clear") {
      if (auto ok = cc->clear(); !ok) throw Failure(ok.error());
    }
    auto st = cc->status();
    if (!st) throw Failure(st.error());
    if (json_) {
      print_json(s.out, "cache", to_json(*st));
      return kOk;
    }
    if (action_ == "clear") s.out << "cleared the cache and zeroed its statistics\n";
    if (action_ == "config")
      s.out << "configured; kiln build" << (dir_.empty() ? "" : " --cache-dir " + dir_) << " uses it\n";
    print(s, *st);
    return kOk;
  }

private:
  static std::string origin(const launch::CcacheStatus& st, const std::string& key) {
    auto it = st.config.find(key);
    return it == st.config.end() ? "unknown" : it->second.origin;
  }

  static long long counter(const launch::CcacheStatus& st, const char* k) {
    auto it = st.counters.find(k);
    return it == st.counters.end() ? 0 : it->second;
  }

  static json to_json(const launch::CcacheStatus& st) {
    auto conf = [&](const char* k) {
      auto it = st.config.find(k);
      if (it == st.config.end()) return json(nullptr);
      return json{{"value", it->second.value}, {"from", it->second.origin}};
    };
    const std::string remote = st.value("remote_storage");
    // ccache's own text ("5.0G") stays as the setting's value; bytes are the unit JSON compares.
    json max_size = conf("max_size");
    if (max_size.is_object()) {
      auto b = core::parse_ccache_size(st.value("max_size"));
      max_size["bytes"] = b ? json(*b) : json(nullptr);
    }
    return {{"ccache", st.ccache},
            {"dir", st.value("cache_dir")},
            {"size_bytes", counter(st, "cache_size_kibibyte") * 1024},
            {"files", counter(st, "files_in_cache")},
            {"max_size", max_size},
            {"remote_storage", remote.empty() ? json(nullptr) : conf("remote_storage")},
            {"remote_only", st.value("remote_only") == "true"},
            {"stats",
             {{"hits", st.hits()},
              {"local_hits", st.local_hits()},
              {"direct_hits", counter(st, "direct_cache_hit")},
              {"preprocessed_hits", counter(st, "preprocessed_cache_hit")},
              {"remote_hits", st.remote_hits()},
              {"misses", st.misses()},
              {"hit_rate", st.hit_rate()},
              {"remote_errors", counter(st, "remote_storage_error") + counter(st, "remote_storage_timeout")}}}};
  }

  static void print(io::Seams& s, const launch::CcacheStatus& st) {
    auto line = [&](std::string_view k, const std::string& v) { s.out << fmt::format("{:<9}{}\n", k, v); };
    line("ccache", st.ccache);
    line("dir", fmt::format("{} ({})", st.value("cache_dir"), origin(st, "cache_dir")));
    line("size", fmt::format("{:.1f} MiB in {} files (max {}, {})", counter(st, "cache_size_kibibyte") / 1024.0,
                             counter(st, "files_in_cache"), st.value("max_size"), origin(st, "max_size")));
    // ccache counts a remote hit as a direct or preprocessed hit too: local and remote are the split.
    line("hits", fmt::format("{}: {} local, {} remote ({} direct, {} preprocessed), {} misses: {:.0f}% hit rate",
                             st.hits(), st.local_hits(), st.remote_hits(), counter(st, "direct_cache_hit"),
                             counter(st, "preprocessed_cache_hit"), st.misses(), 100 * st.hit_rate()));
    const std::string remote = st.value("remote_storage");
    line("remote", remote.empty() ? std::string("none (kiln cache config --remote redis://HOST:PORT to share one)")
                                  : fmt::format("{} ({}){}", remote, origin(st, "remote_storage"),
                                                st.value("remote_only") == "true" ? ", remote only" : ""));
    if (long long errors = counter(st, "remote_storage_error") + counter(st, "remote_storage_timeout"))
      line("", fmt::format("{} remote errors or timeouts: check the server is reachable", errors));
  }

  std::string action_ = "show", dir_, remote_, max_size_, remote_only_;
  bool json_ = false, no_check_ = false;
};

}  // namespace

std::unique_ptr<Command> make_cache() { return std::make_unique<CacheCommand>(); }

}  // namespace kiln::cli
