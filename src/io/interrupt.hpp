#pragma once
// Stopping a build when kiln is told to stop: SIGINT (Ctrl-C), SIGTERM (CI cancel, `timeout`,
// `docker stop`) and SIGHUP (a closed terminal or tmux). While a BuildInterrupts is alive:
//  - each of those signals is forwarded to the process group of the tool running (ninja, CMake),
//    and Ninja passes it on to each of its jobs' own process groups;
//  - kiln is a child subreaper, so whatever the tree leaves behind (a compiler whose driver died)
//    becomes kiln's child and stays visible;
//  - when the tool has not returned `grace` after the signal (a job ignores it, and Ninja waits
//    for its jobs), everything under kiln is SIGKILLed;
//  - settle() then waits, bounded, until no child of kiln is left.
#include <chrono>
#include <string>

namespace kiln::io {

class BuildInterrupts {
public:
  explicit BuildInterrupts(std::chrono::seconds grace);  // installs the handlers, becomes a subreaper
  ~BuildInterrupts();                                    // restores the previous handlers and subreaper state
  BuildInterrupts(const BuildInterrupts&) = delete;
  BuildInterrupts& operator=(const BuildInterrupts&) = delete;

  // The first stop signal received, 0 when none.
  static int received();

  // While on (kiln plan, and kiln build until its plan is made), a stop signal also ends the probe
  // running and no child starts after it (io/child_stop): probes run in kiln's own process group,
  // which the signal does not reach when it was sent to kiln alone. Off again, children may start.
  void planning(bool on);

  struct Settled {
    bool clean = false;  // nothing of the build runs any more
    int killed = 0;      // processes SIGKILLed after the grace period
    int left = 0;        // processes still running at the end (clean == false)
    std::chrono::milliseconds took{0};
  };
  // Reaps children until none is left; after `grace`, SIGKILLs all that remain under kiln; gives
  // up after `grace + after_kill`.
  Settled settle(std::chrono::milliseconds after_kill) const;

private:
  std::chrono::seconds grace_;
};

std::string signal_name(int sig);  // "SIGTERM"

}  // namespace kiln::io
