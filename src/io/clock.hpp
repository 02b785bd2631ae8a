#pragma once
// The clock seam: build timing, ETAs and the memory governor read time through Clock so tests can
// drive it by hand.
#include <chrono>

namespace kiln::io {

class Clock {
public:
  virtual ~Clock() = default;
  virtual std::chrono::steady_clock::time_point now() const = 0;
  virtual void sleep_for(std::chrono::milliseconds d) = 0;
};

class RealClock final : public Clock {
public:
  std::chrono::steady_clock::time_point now() const override { return std::chrono::steady_clock::now(); }
  void sleep_for(std::chrono::milliseconds d) override;
};

}  // namespace kiln::io
