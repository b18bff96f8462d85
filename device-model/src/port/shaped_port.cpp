#include "port/shaped_port.hpp"

#include <algorithm>
#include <chrono>

#include <spdlog/spdlog.h>

#include "port/ecn_mark.hpp"

namespace ornic {

ShapedPort::ShapedPort(EventLoop& loop, std::unique_ptr<Port> inner, const LinkShaping& shaping,
                       Clock clock)
    : loop_(loop), inner_(std::move(inner)), shaping_(shaping), clock_(std::move(clock)) {
  if (!clock_)
    clock_ = [] {
      return std::chrono::duration_cast<std::chrono::nanoseconds>(
                 std::chrono::steady_clock::now().time_since_epoch())
          .count();
    };
  spdlog::info("port: link rate {} Mbit/s, queue {} bytes, ECN marking above {} bytes",
               shaping.rate_mbps, shaping.queue_bytes, shaping.ecn_threshold_bytes);
}

ShapedPort::~ShapedPort() {
  if (timer_)
    loop_.cancel_timer(*timer_);
  spdlog::info("port: shaping: {} frames ECN-marked, {} dropped (queue full), backlog "
               "high-water {} bytes",
               counters_.ecn_marked, counters_.dropped_queue_full,
               counters_.queue_high_water_bytes);
}

int64_t ShapedPort::serialization_ns(size_t bytes) const {
  // bits / (Mbit/s) = microseconds; * 1000 for nanoseconds.
  return static_cast<int64_t>(bytes * 8 * 1000 / shaping_.rate_mbps);
}

void ShapedPort::send(std::span<const std::byte> frame) {
  if (queued_bytes_ + frame.size() > shaping_.queue_bytes) {
    ++counters_.dropped_queue_full;
    return;
  }
  std::vector<std::byte>& copy = queue_.emplace_back(frame.begin(), frame.end());
  if (shaping_.ecn_threshold_bytes != 0 && queued_bytes_ >= shaping_.ecn_threshold_bytes &&
      mark_ecn_ce(copy))
    ++counters_.ecn_marked;
  queued_bytes_ += copy.size();
  counters_.queue_high_water_bytes =
      std::max<uint64_t>(counters_.queue_high_water_bytes, queued_bytes_);
  if (queue_.size() == 1) {
    // An idle link starts serializing the frame now.
    head_done_ns_ = clock_() + serialization_ns(copy.size());
    arm();
  }
}

void ShapedPort::drain() {
  const int64_t now = clock_();
  while (!queue_.empty() && head_done_ns_ <= now) {
    std::vector<std::byte> frame = std::move(queue_.front());
    queue_.pop_front();
    queued_bytes_ -= frame.size();
    inner_->send(frame);
    // Back to back: the next frame starts where this one ended, not when the timer ran.
    if (!queue_.empty())
      head_done_ns_ += serialization_ns(queue_.front().size());
  }
  arm();
}

void ShapedPort::arm() {
  if (timer_) {
    loop_.cancel_timer(*timer_);
    timer_.reset();
  }
  if (queue_.empty())
    return;
  const int64_t delay = std::max<int64_t>(0, head_done_ns_ - clock_());
  timer_ = loop_.add_timer(std::chrono::nanoseconds(delay), [this] {
    timer_.reset();
    drain();
  });
}

} // namespace ornic
