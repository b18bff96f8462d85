// Spec "none": a port with no cable. The link is always down and every frame is dropped,
// so the NIC can run (and count its transmissions) without any wire at all.
#pragma once

#include "port/port.hpp"

namespace ornic {

class NullPort final : public Port {
public:
  void send(std::span<const std::byte> frame) override;
  void set_receiver(Receiver) override {}
  bool link_up() const override { return false; }
  PortCounters counters() const override { return counters_; }

private:
  PortCounters counters_;
};

} // namespace ornic
