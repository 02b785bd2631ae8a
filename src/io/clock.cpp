#include "io/clock.hpp"

#include <thread>

namespace kiln::io {
void RealClock::sleep_for(std::chrono::milliseconds d) { std::this_thread::sleep_for(d); }
}  // namespace kiln::io
