#include "core/transport_timer.hpp"

#include <chrono>

namespace ornic {

int64_t EventLoopTransportTimer::now_ns() {
  const auto since_boot = std::chrono::steady_clock::now().time_since_epoch();
  return std::chrono::duration_cast<std::chrono::nanoseconds>(since_boot).count() + 1;
}

void EventLoopTransportTimer::arm(int64_t deadline_ns, std::function<void()> fire) {
  disarm();
  const int64_t delay = deadline_ns - now_ns();
  id_ = loop_.add_timer(std::chrono::nanoseconds(delay > 0 ? delay : 0),
                        [this, fire = std::move(fire)] {
                          id_ = 0;
                          fire();
                        });
}

void EventLoopTransportTimer::disarm() {
  if (id_ != 0)
    loop_.cancel_timer(id_);
  id_ = 0;
}

} // namespace ornic
