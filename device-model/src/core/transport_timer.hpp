// Time for the packet engine (ACK timeouts, RNR waits) behind an interface, so host tests
// drive it with a manual clock and the model uses the EventLoop's monotonic timers. In the
// shared layer because it is also the device clock NicCore reads for CQE timestamps.
#pragma once

#include <cstdint>
#include <functional>

#include "common/event_loop.hpp"

namespace ornic {

class TransportTimer {
public:
  virtual ~TransportTimer() = default;
  // Nanoseconds on a monotonic clock; never 0 or negative (0 means "not armed" to callers).
  virtual int64_t now_ns() = 0;
  // One wakeup at `deadline_ns` (or at once if it has passed); replaces any earlier one.
  virtual void arm(int64_t deadline_ns, std::function<void()> fire) = 0;
  virtual void disarm() = 0;
};

class EventLoopTransportTimer final : public TransportTimer {
public:
  explicit EventLoopTransportTimer(EventLoop& loop) : loop_(loop) {}
  ~EventLoopTransportTimer() override { disarm(); }
  EventLoopTransportTimer(const EventLoopTransportTimer&) = delete;
  EventLoopTransportTimer& operator=(const EventLoopTransportTimer&) = delete;

  int64_t now_ns() override;
  void arm(int64_t deadline_ns, std::function<void()> fire) override;
  void disarm() override;

private:
  EventLoop& loop_;
  EventLoop::TimerId id_ = 0;
};

} // namespace ornic
