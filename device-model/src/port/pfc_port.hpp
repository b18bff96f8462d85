// Decorator for IEEE 802.1Qbb priority-based flow control on the port (pfc_options.hpp for
// the knobs, mac_control.hpp for the frames).
//
// Transmit: a queue per priority (the 802.1Q PCP of the frame, 0 untagged). A received PFC
// frame stops exactly the PFC-enabled priorities of its class-enable vector for its time
// in quanta of 512 bit times at the port speed (time 0 resumes); frames of a stopped
// priority wait in its queue, up to the transmit buffer, and drop beyond it; the other
// priorities keep going. A priority's backlog leaves at the port speed once it may send
// again, round robin with the other priorities' backlogs, as a MAC would send it (frames of
// a priority with nothing queued go straight out, at no cost). An 802.3x PAUSE stops every
// priority, but only while no priority has PFC on: 802.1Q forbids PAUSE and PFC on one link, and a
// MAC discards an opcode it does not support (802.3 Annex 31A), so with PFC on a PAUSE is counted
// and ignored.
//
// Receive: MAC Control frames are consumed here and never reach the NIC. With a receive
// rate, data frames wait in a buffer per priority that the NIC's receiver drains at that
// rate, round robin between priorities. A PFC-enabled priority whose buffer passes XOFF
// makes the port send a PFC frame stopping it for the longest time (0xffff quanta),
// repeated at half that time while the buffer stays above XON, and a PFC frame with time
// 0 once it has drained to XON; a full buffer drops (a lossy priority's only recourse).
// With an ECN threshold (PfcOptions::rx_ecn_bytes), an ECN-capable IP frame arriving while
// its priority's buffer holds more than that is marked CE on its way in, as a switch marks
// in front of a slow port: ECN signals first, PFC catches what it does not. Without a
// receive rate, frames pass straight through.
//
// Watchdog (storm prevention, as ethtool's pfc-prevention-tout): a priority kept stopped
// for the watchdog time stops honouring pause (its queue goes out, tx_pause_storm counts
// the event) until no pause for it has arrived for the watchdog time again.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "common/event_loop.hpp"
#include "port/mac_control.hpp"
#include "port/pfc_options.hpp"
#include "port/port.hpp"

namespace ornic {

// Per priority, as NICs report them in ethtool -S (the `_prio_N` counters).
struct PfcPriorityCounters {
  uint64_t tx_frames = 0; // data frames handed to the wire
  uint64_t tx_bytes = 0;
  uint64_t rx_frames = 0; // data frames taken from the wire (into the buffer, if any)
  uint64_t rx_bytes = 0;
  uint64_t tx_pause = 0;             // PFC frames sent with this priority's bit and a nonzero time
  uint64_t rx_pause = 0;             // PFC frames (or PAUSEs) received asking this priority to stop
  uint64_t tx_pause_duration_us = 0; // how long this port has been asking the peer to stop
  uint64_t rx_pause_duration_us = 0; // how long this priority's transmit has been stopped
  uint64_t rx_pause_transitions = 0; // times the transmit went from running to stopped
  uint64_t tx_discards = 0;          // transmit buffer full
  uint64_t rx_discards = 0;          // receive buffer full
  uint64_t tx_pause_storm = 0;       // watchdog trips
};

// MAC Control frames received and sent, whatever their priorities.
struct MacControlCounters {
  uint64_t rx_pfc = 0;
  uint64_t rx_pfc_reserved_bits = 0; // of rx_pfc: reserved vector bits set (ignored)
  uint64_t rx_pause = 0;             // 802.3x PAUSE frames
  uint64_t rx_pause_ignored = 0;     // of rx_pause: ignored because PFC is on
  uint64_t rx_unknown_opcode = 0;
  uint64_t rx_short = 0;
  uint64_t tx_pfc = 0;
};

class PfcPort final : public Port {
public:
  using Clock = std::function<int64_t()>; // monotonic nanoseconds
  static constexpr size_t kPriorities = mac_control::kPriorities;
  static constexpr uint16_t kXoffQuanta = 0xffff;

  // `clock` for tests; the default is the steady clock the EventLoop's timers use.
  PfcPort(EventLoop& loop, std::unique_ptr<Port> inner, const PfcOptions& options,
          Clock clock = {});
  ~PfcPort() override;

  void send(std::span<const std::byte> frame) override;
  void set_receiver(Receiver rx) override;
  bool link_up() const override { return inner_->link_up(); }
  PortCounters counters() const override { return inner_->counters(); }
  size_t tx_backlog() const override;
  void set_link_listener(LinkListener listener) override {
    inner_->set_link_listener(std::move(listener));
  }

  // Bit n: priority n is lossless (sends and honours PFC). The DCB configuration's pfc_en.
  void set_pfc_enabled(uint8_t mask);
  // The DSCP map of the device's priority rule (mac_control::frame_priority): the engine is
  // where every frame is classified, once, and counted.
  void set_dscp_map(const mac_control::DscpMap& dscp) { dscp_ = dscp; }

  // Zero copy (the shm: port's ring slot) while no priority holds a pause or a backlog:
  // the frame would then go straight out in send() too.
  std::span<std::byte> reserve_tx(size_t bytes) override;
  void commit_tx(size_t length) override;
  uint8_t pfc_enabled() const { return enabled_; }
  // Durations include a pause still running.
  PfcPriorityCounters priority_counters(size_t priority) const;
  // Zeroes priority_counters() (a device reset); pauses in force go on.
  void clear_priority_counters();
  std::array<PfcPriorityCounters, kPriorities> priority_counters() const;
  const MacControlCounters& mac_control_counters() const { return mac_counters_; }
  // Frames of the priority marked CE on arrival; a device reset leaves them, as it leaves
  // the MAC control counts, so the log at exit still has them.
  uint64_t rx_ecn_marked(size_t priority) const { return rx_ecn_marked_[priority]; }

  bool tx_paused(size_t priority) const { return tx_[priority].paused(); }
  bool xoff_sent(size_t priority) const { return rx_[priority].xoff; }
  size_t tx_queued_bytes(size_t priority) const { return tx_[priority].bytes; }
  size_t rx_buffered_bytes(size_t priority) const { return rx_[priority].bytes; }

  // Does everything due by now (pause expiry, the watchdog, receive drain, XOFF refresh)
  // and arms the timer for the next; the timer calls it, and so can a test that owns the
  // clock.
  void poll();

private:
  struct TxPriority {
    std::deque<std::vector<std::byte>> queue;
    size_t bytes = 0;
    int64_t paused_until = 0; // 0: running
    int64_t paused_since = 0;
    bool storm = false;            // the watchdog tripped: pause is not honoured
    int64_t last_pause_rx = 0;     // when the peer last asked for a pause
    int64_t paused_total_ns = 0;   // closed pauses
    int64_t paused_cleared_ns = 0; // the duration at clear_priority_counters()
    bool paused() const { return paused_until != 0; }
  };
  struct RxPriority {
    std::deque<std::vector<std::byte>> queue;
    size_t bytes = 0;
    bool xoff = false;
    int64_t xoff_since = 0;
    int64_t xoff_total_ns = 0;   // closed XOFF periods
    int64_t xoff_cleared_ns = 0; // the duration at clear_priority_counters()
  };

  size_t priority_of(std::span<const std::byte> frame) const;
  void on_receive(std::span<const std::byte> frame);
  void on_mac_control(const mac_control::Parsed& parsed);
  void pause(size_t priority, uint16_t quanta, int64_t now);
  void resume(size_t priority, int64_t now);
  void drain_tx(int64_t now);
  int64_t wire_ns(size_t bytes) const;
  void transmit(size_t priority, std::span<const std::byte> frame);
  void buffer_rx(size_t priority, std::span<const std::byte> frame, int64_t now);
  void start_rx_service(int64_t now);
  void send_xoff(int64_t now);
  void send_xon(size_t priority, int64_t now);
  int64_t serialization_ns(size_t bytes) const;
  void arm();

  EventLoop& loop_;
  std::unique_ptr<Port> inner_;
  PfcOptions options_;
  Clock clock_;
  Receiver receiver_;
  uint8_t enabled_ = 0;
  std::array<TxPriority, kPriorities> tx_;
  std::array<RxPriority, kPriorities> rx_;
  std::array<PfcPriorityCounters, kPriorities> counters_{};
  MacControlCounters mac_counters_;
  std::array<uint64_t, kPriorities> rx_ecn_marked_{};
  // The frame the NIC's receiver is taking: its priority and when it is done.
  std::optional<size_t> rx_serving_;
  int64_t rx_done_ns_ = 0;
  size_t rx_next_ = 0;          // round-robin cursor
  int64_t tx_free_ns_ = 0;      // when the backlog's last frame is fully on the wire
  size_t tx_next_ = 0;          // round-robin cursor
  int64_t xoff_refresh_ns_ = 0; // 0: no XOFF in force
  std::optional<EventLoop::TimerId> timer_;
  mac_control::DscpMap dscp_;
  std::span<std::byte> direct_slot_; // reserve_tx() handed out the inner port's buffer
  bool direct_ = false;
};

} // namespace ornic
