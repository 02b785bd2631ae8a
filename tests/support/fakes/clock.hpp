#pragma once
// A Clock for tests: time moves only when the test (or a sleep) moves it.
#include <chrono>

#include "io/clock.hpp"

namespace kiln::io {

class FakeClock final : public Clock {
public:
  std::chrono::steady_clock::time_point now() const override { return t_; }
  void sleep_for(std::chrono::milliseconds d) override { t_ += d; }
  void advance(std::chrono::milliseconds d) { t_ += d; }

private:
  std::chrono::steady_clock::time_point t_{};
};
}  // namespace kiln::io
