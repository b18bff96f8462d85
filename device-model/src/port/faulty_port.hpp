// Decorator that injects WireFaults into the frames a port sends: a lost frame is not
// sent, a duplicated one is sent twice, a corrupted one has one bit flipped past its
// Ethernet header (so it still reaches the peer, whose checksums must catch it), and a
// reordered one is held back until the next frame has gone (or for at most 1 ms when no
// frame follows). Received frames pass untouched: each end injects on its own egress.
// Decisions come from a generator seeded by WireFaults::seed, so a run is repeatable for
// the same sequence of frames.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <vector>

#include "common/event_loop.hpp"
#include "port/port.hpp"
#include "port/wire_faults.hpp"

namespace ornic {

struct WireFaultCounters {
  uint64_t lost = 0;
  uint64_t reordered = 0;
  uint64_t duplicated = 0;
  uint64_t corrupted = 0;
};

class FaultyPort final : public Port {
public:
  FaultyPort(EventLoop& loop, std::unique_ptr<Port> inner, const WireFaults& faults);
  ~FaultyPort() override;

  void send(std::span<const std::byte> frame) override;
  void set_receiver(Receiver rx) override { inner_->set_receiver(std::move(rx)); }
  bool link_up() const override { return inner_->link_up(); }
  PortCounters counters() const override { return inner_->counters(); }
  size_t tx_backlog() const override { return inner_->tx_backlog() + (held_ ? 1 : 0); }
  void set_link_listener(LinkListener listener) override {
    inner_->set_link_listener(std::move(listener));
  }

  const WireFaultCounters& fault_counters() const { return injected_; }

private:
  bool roll(double probability);
  void transmit(std::span<const std::byte> frame);
  void release_held();

  EventLoop& loop_;
  std::unique_ptr<Port> inner_;
  WireFaults faults_;
  std::mt19937_64 rng_;
  WireFaultCounters injected_;
  std::optional<std::vector<std::byte>> held_; // a frame waiting for the next one
  std::optional<EventLoop::TimerId> release_timer_;
};

} // namespace ornic
