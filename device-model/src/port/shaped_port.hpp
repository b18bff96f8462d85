// Decorator that turns the port into a bottleneck link (`--link-rate`): sent frames wait in
// a transmit queue that drains at the link rate, so a sender faster than the link builds a
// backlog. Beyond `--link-queue` bytes the queue drops the tail; past `--ecn-threshold`
// bytes it marks ECN-capable frames CE (port/ecn_mark.hpp) as a congested switch would, which
// is what the receiving NIC answers with CNPs. Received frames pass untouched.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "common/event_loop.hpp"
#include "port/link_shaping.hpp"
#include "port/port.hpp"

namespace ornic {

struct ShapingCounters {
  uint64_t ecn_marked = 0;
  uint64_t dropped_queue_full = 0;
  uint64_t queue_high_water_bytes = 0;
};

class ShapedPort final : public Port {
public:
  using Clock = std::function<int64_t()>; // monotonic nanoseconds

  // `clock` for tests; the default is the steady clock the EventLoop's timers use.
  ShapedPort(EventLoop& loop, std::unique_ptr<Port> inner, const LinkShaping& shaping,
             Clock clock = {});
  ~ShapedPort() override;

  void send(std::span<const std::byte> frame) override;
  void set_receiver(Receiver rx) override { inner_->set_receiver(std::move(rx)); }
  bool link_up() const override { return inner_->link_up(); }
  PortCounters counters() const override { return inner_->counters(); }
  size_t tx_backlog() const override { return inner_->tx_backlog() + queue_.size(); }
  void set_link_listener(LinkListener listener) override {
    inner_->set_link_listener(std::move(listener));
  }

  const ShapingCounters& shaping_counters() const { return counters_; }
  size_t queued_bytes() const { return queued_bytes_; }
  // Sends every frame whose serialization has ended by now; arms the timer for the next.
  void drain();

private:
  int64_t serialization_ns(size_t bytes) const;
  void arm();

  EventLoop& loop_;
  std::unique_ptr<Port> inner_;
  LinkShaping shaping_;
  Clock clock_;
  std::deque<std::vector<std::byte>> queue_;
  size_t queued_bytes_ = 0;
  int64_t head_done_ns_ = 0; // when the head frame is fully on the wire
  std::optional<EventLoop::TimerId> timer_;
  ShapingCounters counters_;
};

} // namespace ornic
