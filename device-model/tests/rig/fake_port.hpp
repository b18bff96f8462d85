// A Port for tests: records what the NIC sends, lets the test deliver frames and flip
// the link, synchronously.
#pragma once

#include <vector>

#include "port/port.hpp"

namespace ornic::test {

class FakePort final : public Port {
public:
  void send(std::span<const std::byte> frame) override {
    sent.emplace_back(frame.begin(), frame.end());
  }
  void set_receiver(Receiver rx) override { receiver_ = std::move(rx); }
  bool link_up() const override { return up_; }
  PortCounters counters() const override { return {}; }
  void set_link_listener(LinkListener listener) override { listener_ = std::move(listener); }

  void deliver(std::span<const std::byte> frame) {
    if (receiver_)
      receiver_(frame);
  }
  void set_link(bool up) {
    up_ = up;
    if (listener_)
      listener_(up);
  }

  std::vector<std::vector<std::byte>> sent;

private:
  Receiver receiver_;
  LinkListener listener_;
  bool up_ = true;
};

} // namespace ornic::test
