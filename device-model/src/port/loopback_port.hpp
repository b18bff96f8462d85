// Spec "loopback": every frame sent comes back to the same port's receiver, delivered
// later through EventLoop::post so the NIC is never re-entered from inside its own send().
#pragma once

#include <memory>

#include "port/port.hpp"

namespace ornic {

class LoopbackPort final : public Port {
public:
  // Frames sent but not yet delivered; beyond this, send() drops as "would block" so a
  // NIC that transmits in a tight loop cannot grow memory without bound.
  static constexpr size_t kMaxFramesInFlight = 1024;

  explicit LoopbackPort(EventLoop& loop);
  ~LoopbackPort() override;

  void send(std::span<const std::byte> frame) override;
  void set_receiver(Receiver rx) override;
  bool link_up() const override { return true; }
  PortCounters counters() const override;

private:
  // Shared with the posted deliveries, which may outlive the port: a destroyed port
  // clears `alive` and its pending frames are then discarded.
  struct State {
    bool alive = true;
    size_t in_flight = 0;
    Receiver receiver;
    PortCounters counters;
  };

  EventLoop& loop_;
  std::shared_ptr<State> state_;
};

} // namespace ornic
