#include "port/pfc_port.hpp"

#include <algorithm>
#include <chrono>
#include <limits>

#include <spdlog/spdlog.h>

#include "port/ecn_mark.hpp"

namespace ornic {
namespace {

constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

} // namespace

PfcPort::PfcPort(EventLoop& loop, std::unique_ptr<Port> inner, const PfcOptions& options,
                 Clock clock)
    : loop_(loop), inner_(std::move(inner)), options_(options), clock_(std::move(clock)),
      enabled_(options.enabled) {
  if (!clock_)
    clock_ = [] {
      return std::chrono::duration_cast<std::chrono::nanoseconds>(
                 std::chrono::steady_clock::now().time_since_epoch())
          .count();
    };
  spdlog::info("port: PFC on priorities {:#04x}, speed {} Mbit/s, receive {}, buffers "
               "rx {} xoff {} xon {} tx {} bytes, watchdog {} ms, ECN marking on receive {}",
               enabled_, options_.speed_mbps,
               options_.rx_rate_mbps == 0 ? std::string("unlimited")
                                          : std::to_string(options_.rx_rate_mbps) + " Mbit/s",
               options_.rx_buffer_bytes, options_.xoff_bytes, options_.xon_bytes,
               options_.tx_buffer_bytes, options_.watchdog_ms,
               options_.rx_ecn_bytes == 0
                   ? std::string("off")
                   : "above " + std::to_string(options_.rx_ecn_bytes) + " bytes");
}

PfcPort::~PfcPort() {
  if (timer_)
    loop_.cancel_timer(*timer_);
  const MacControlCounters& m = mac_counters_;
  if (m.rx_pfc != 0 || m.rx_pause != 0 || m.rx_unknown_opcode != 0 || m.rx_short != 0 ||
      m.tx_pfc != 0)
    spdlog::info("port: MAC control received: pfc {} (reserved bits {}), pause {} (ignored {}), "
                 "unknown opcode {}, short {}; sent: pfc {}",
                 m.rx_pfc, m.rx_pfc_reserved_bits, m.rx_pause, m.rx_pause_ignored,
                 m.rx_unknown_opcode, m.rx_short, m.tx_pfc);
  if (options_.rx_ecn_bytes != 0) {
    std::string marked;
    for (size_t p = 0; p < kPriorities; ++p)
      marked += (p == 0 ? "" : " ") + std::to_string(rx_ecn_marked_[p]);
    spdlog::info("port: receive ECN: marked CE above {} bytes, by priority 0-7: {}",
                 options_.rx_ecn_bytes, marked);
  }
  for (size_t p = 0; p < kPriorities; ++p) {
    const PfcPriorityCounters c = priority_counters(p);
    if (c.tx_pause == 0 && c.rx_pause == 0 && c.tx_discards == 0 && c.rx_discards == 0)
      continue;
    spdlog::info("port: priority {}: pause sent {} ({} us), received {} ({} us, {} stops, "
                 "{} storms), discards tx {} rx {}",
                 p, c.tx_pause, c.tx_pause_duration_us, c.rx_pause, c.rx_pause_duration_us,
                 c.rx_pause_transitions, c.tx_pause_storm, c.tx_discards, c.rx_discards);
  }
}

size_t PfcPort::tx_backlog() const {
  size_t queued = 0;
  for (const TxPriority& t : tx_)
    queued += t.queue.size();
  return inner_->tx_backlog() + queued;
}

void PfcPort::set_receiver(Receiver rx) {
  receiver_ = std::move(rx);
  inner_->set_receiver([this](std::span<const std::byte> frame) { on_receive(frame); });
}

void PfcPort::set_pfc_enabled(uint8_t mask) {
  const int64_t now = clock_();
  const uint8_t disabled = enabled_ & ~mask;
  enabled_ = mask;
  for (size_t p = 0; p < kPriorities; ++p) {
    if ((disabled & (1u << p)) == 0)
      continue;
    // A lossy priority neither asks the peer to stop nor stops for it.
    if (rx_[p].xoff)
      send_xon(p, now);
    if (tx_[p].paused())
      resume(p, now);
    tx_[p].storm = false;
  }
  drain_tx(now);
  arm();
}

PfcPriorityCounters PfcPort::priority_counters(size_t priority) const {
  const int64_t now = clock_();
  PfcPriorityCounters c = counters_[priority];
  const TxPriority& t = tx_[priority];
  const RxPriority& r = rx_[priority];
  const int64_t stopped =
      t.paused_total_ns + (t.paused() ? now - t.paused_since : 0) - t.paused_cleared_ns;
  const int64_t asked = r.xoff_total_ns + (r.xoff ? now - r.xoff_since : 0) - r.xoff_cleared_ns;
  c.rx_pause_duration_us = static_cast<uint64_t>(std::max<int64_t>(0, stopped) / 1000);
  c.tx_pause_duration_us = static_cast<uint64_t>(std::max<int64_t>(0, asked) / 1000);
  return c;
}

void PfcPort::clear_priority_counters() {
  const int64_t now = clock_();
  counters_ = {};
  for (size_t p = 0; p < kPriorities; ++p) {
    TxPriority& t = tx_[p];
    RxPriority& r = rx_[p];
    t.paused_cleared_ns = t.paused_total_ns + (t.paused() ? now - t.paused_since : 0);
    r.xoff_cleared_ns = r.xoff_total_ns + (r.xoff ? now - r.xoff_since : 0);
  }
}

std::array<PfcPriorityCounters, PfcPort::kPriorities> PfcPort::priority_counters() const {
  std::array<PfcPriorityCounters, kPriorities> all;
  for (size_t p = 0; p < kPriorities; ++p)
    all[p] = priority_counters(p);
  return all;
}

int64_t PfcPort::wire_ns(size_t bytes) const {
  return static_cast<int64_t>(bytes * 8 * 1000 / options_.speed_mbps);
}

int64_t PfcPort::serialization_ns(size_t bytes) const {
  // bits / (Mbit/s) = microseconds; * 1000 for nanoseconds.
  return static_cast<int64_t>(bytes * 8 * 1000 / options_.rx_rate_mbps);
}

// ---- transmit ----

size_t PfcPort::priority_of(std::span<const std::byte> frame) const {
  return mac_control::frame_priority(frame, dscp_);
}

std::span<std::byte> PfcPort::reserve_tx(size_t bytes) {
  direct_ = true;
  for (const TxPriority& t : tx_)
    direct_ = direct_ && !t.paused() && t.queue.empty();
  if (!direct_)
    return Port::reserve_tx(bytes);
  direct_slot_ = inner_->reserve_tx(bytes);
  return direct_slot_;
}

void PfcPort::commit_tx(size_t length) {
  if (!direct_) {
    Port::commit_tx(length);
    return;
  }
  direct_ = false;
  const auto frame =
      std::span<const std::byte>(direct_slot_).first(std::min(length, direct_slot_.size()));
  const size_t p = priority_of(frame);
  ++counters_[p].tx_frames;
  counters_[p].tx_bytes += frame.size();
  inner_->commit_tx(length);
}

void PfcPort::send(std::span<const std::byte> frame) {
  const size_t p = priority_of(frame);
  TxPriority& t = tx_[p];
  if (!t.paused() && t.queue.empty()) {
    transmit(p, frame);
    return;
  }
  if (t.bytes + frame.size() > options_.tx_buffer_bytes) {
    ++counters_[p].tx_discards;
    return;
  }
  t.queue.emplace_back(frame.begin(), frame.end());
  t.bytes += frame.size();
}

void PfcPort::transmit(size_t priority, std::span<const std::byte> frame) {
  ++counters_[priority].tx_frames;
  counters_[priority].tx_bytes += frame.size();
  inner_->send(frame);
}

// Sends the backlogs of the priorities that may send, one frame per priority in turn, each
// when the one before it is fully on the wire.
void PfcPort::drain_tx(int64_t now) {
  while (tx_free_ns_ <= now) {
    std::optional<size_t> next;
    for (size_t i = 0; i < kPriorities && !next; ++i) {
      const size_t p = (tx_next_ + i) % kPriorities;
      if (!tx_[p].paused() && !tx_[p].queue.empty())
        next = p;
    }
    if (!next)
      return;
    TxPriority& t = tx_[*next];
    tx_next_ = (*next + 1) % kPriorities;
    std::vector<std::byte> frame = std::move(t.queue.front());
    t.queue.pop_front();
    t.bytes -= frame.size();
    tx_free_ns_ += wire_ns(frame.size());
    transmit(*next, frame);
  }
}

void PfcPort::pause(size_t priority, uint16_t quanta, int64_t now) {
  TxPriority& t = tx_[priority];
  if (quanta == 0) {
    if (t.paused())
      resume(priority, now);
    return;
  }
  ++counters_[priority].rx_pause;
  t.last_pause_rx = now;
  if (t.storm)
    return;
  if (!t.paused()) {
    t.paused_since = now;
    ++counters_[priority].rx_pause_transitions;
  }
  // A later frame replaces the time of an earlier one, shorter or longer (31D.4).
  t.paused_until = now + mac_control::quanta_ns(quanta, options_.speed_mbps);
}

void PfcPort::resume(size_t priority, int64_t now) {
  TxPriority& t = tx_[priority];
  t.paused_total_ns += now - t.paused_since;
  t.paused_until = 0;
  // The backlog starts leaving now, not when the wire was last busy.
  tx_free_ns_ = std::max(tx_free_ns_, now);
}

// ---- receive ----

void PfcPort::on_receive(std::span<const std::byte> frame) {
  const mac_control::Parsed parsed = mac_control::parse(frame);
  if (parsed.kind != mac_control::Kind::not_mac_control) {
    on_mac_control(parsed);
    return;
  }
  const size_t p = priority_of(frame);
  if (options_.rx_rate_mbps == 0) {
    ++counters_[p].rx_frames;
    counters_[p].rx_bytes += frame.size();
    if (receiver_)
      receiver_(frame);
    return;
  }
  const int64_t now = clock_();
  buffer_rx(p, frame, now);
  arm();
}

void PfcPort::on_mac_control(const mac_control::Parsed& parsed) {
  const int64_t now = clock_();
  switch (parsed.kind) {
  case mac_control::Kind::pfc:
    ++mac_counters_.rx_pfc;
    if (parsed.reserved_bits)
      ++mac_counters_.rx_pfc_reserved_bits;
    for (size_t p = 0; p < kPriorities; ++p)
      if ((parsed.pfc.class_enable & enabled_ & (1u << p)) != 0)
        pause(p, parsed.pfc.time[p], now);
    break;
  case mac_control::Kind::pause:
    ++mac_counters_.rx_pause;
    if (enabled_ != 0) {
      ++mac_counters_.rx_pause_ignored;
      return;
    }
    for (size_t p = 0; p < kPriorities; ++p)
      pause(p, parsed.pause_time, now);
    break;
  case mac_control::Kind::unknown_opcode:
    ++mac_counters_.rx_unknown_opcode;
    return;
  case mac_control::Kind::short_frame:
    ++mac_counters_.rx_short;
    return;
  case mac_control::Kind::not_mac_control:
    return;
  }
  drain_tx(now);
  arm();
}

void PfcPort::buffer_rx(size_t priority, std::span<const std::byte> frame, int64_t now) {
  RxPriority& r = rx_[priority];
  if (r.bytes + frame.size() > options_.rx_buffer_bytes) {
    ++counters_[priority].rx_discards;
    return;
  }
  std::vector<std::byte>& copy = r.queue.emplace_back(frame.begin(), frame.end());
  if (options_.rx_ecn_bytes != 0 && r.bytes > options_.rx_ecn_bytes && mark_ecn_ce(copy))
    ++rx_ecn_marked_[priority];
  r.bytes += frame.size();
  ++counters_[priority].rx_frames;
  counters_[priority].rx_bytes += frame.size();
  if ((enabled_ & (1u << priority)) != 0 && !r.xoff && r.bytes > options_.xoff_bytes) {
    r.xoff = true;
    r.xoff_since = now;
    send_xoff(now);
  }
  if (!rx_serving_)
    start_rx_service(now);
}

// Picks the next priority with a frame waiting, round robin, and starts taking its head.
void PfcPort::start_rx_service(int64_t start) {
  for (size_t i = 0; i < kPriorities; ++i) {
    const size_t p = (rx_next_ + i) % kPriorities;
    if (rx_[p].queue.empty())
      continue;
    rx_serving_ = p;
    rx_next_ = (p + 1) % kPriorities;
    rx_done_ns_ = start + serialization_ns(rx_[p].queue.front().size());
    return;
  }
  rx_serving_.reset();
}

void PfcPort::send_xoff(int64_t now) {
  mac_control::PfcRequest request;
  for (size_t p = 0; p < kPriorities; ++p) {
    if (!rx_[p].xoff)
      continue;
    request.class_enable |= static_cast<uint8_t>(1u << p);
    request.time[p] = kXoffQuanta;
    ++counters_[p].tx_pause;
  }
  ++mac_counters_.tx_pfc;
  inner_->send(mac_control::build_pfc(options_.source_mac, request));
  // Refresh at half the pause time, so a refresh lost or late still lands in time.
  xoff_refresh_ns_ =
      now + std::max<int64_t>(1, mac_control::quanta_ns(kXoffQuanta, options_.speed_mbps) / 2);
}

void PfcPort::send_xon(size_t priority, int64_t now) {
  RxPriority& r = rx_[priority];
  r.xoff = false;
  r.xoff_total_ns += now - r.xoff_since;
  mac_control::PfcRequest request;
  request.class_enable = static_cast<uint8_t>(1u << priority);
  ++mac_counters_.tx_pfc;
  inner_->send(mac_control::build_pfc(options_.source_mac, request));
  if (std::none_of(rx_.begin(), rx_.end(), [](const RxPriority& x) { return x.xoff; }))
    xoff_refresh_ns_ = 0;
}

// ---- time ----

void PfcPort::poll() {
  const int64_t now = clock_();
  const int64_t watchdog_ns = int64_t{options_.watchdog_ms} * 1'000'000;
  for (size_t p = 0; p < kPriorities; ++p) {
    TxPriority& t = tx_[p];
    if (t.paused() && t.paused_until <= now) {
      // Charge the pause up to when it ran out, not to when the timer ran.
      resume(p, std::min(now, t.paused_until));
    } else if (t.paused() && watchdog_ns != 0 && now - t.paused_since >= watchdog_ns) {
      resume(p, now);
      t.storm = true;
      ++counters_[p].tx_pause_storm;
      spdlog::warn("port: priority {} paused for {} ms: pause storm, no longer honouring "
                   "pause",
                   p, options_.watchdog_ms);
    } else if (t.storm && now - t.last_pause_rx >= watchdog_ns) {
      t.storm = false;
      spdlog::info("port: priority {}: pause storm over, honouring pause again", p);
    }
  }
  drain_tx(now);
  while (rx_serving_ && rx_done_ns_ <= now) {
    const size_t p = *rx_serving_;
    RxPriority& r = rx_[p];
    std::vector<std::byte> frame = std::move(r.queue.front());
    r.queue.pop_front();
    r.bytes -= frame.size();
    if (r.xoff && r.bytes <= options_.xon_bytes)
      send_xon(p, now);
    // Back to back: the next frame starts where this one ended, not when the timer ran.
    start_rx_service(rx_done_ns_);
    if (receiver_)
      receiver_(frame);
  }
  if (xoff_refresh_ns_ != 0 && xoff_refresh_ns_ <= now)
    send_xoff(now);
  arm();
}

void PfcPort::arm() {
  if (timer_) {
    loop_.cancel_timer(*timer_);
    timer_.reset();
  }
  const int64_t watchdog_ns = int64_t{options_.watchdog_ms} * 1'000'000;
  int64_t next = kNever;
  for (const TxPriority& t : tx_) {
    if (!t.paused() && !t.queue.empty())
      next = std::min(next, tx_free_ns_);
    if (t.paused()) {
      next = std::min(next, t.paused_until);
      if (watchdog_ns != 0)
        next = std::min(next, t.paused_since + watchdog_ns);
    }
    if (t.storm)
      next = std::min(next, t.last_pause_rx + watchdog_ns);
  }
  if (rx_serving_)
    next = std::min(next, rx_done_ns_);
  if (xoff_refresh_ns_ != 0)
    next = std::min(next, xoff_refresh_ns_);
  if (next == kNever)
    return;
  const int64_t delay = std::max<int64_t>(0, next - clock_());
  timer_ = loop_.add_timer(std::chrono::nanoseconds(delay), [this] {
    timer_.reset();
    poll();
  });
}

} // namespace ornic
