// The IB transport engine (roce.rst, qp.rst, wqe.rst, cqe.rst, errors.rst): three roles,
// each owning its part of the work — the Requester turns SQ WQEs into packets, the
// Responder executes incoming requests and acknowledges them, the Completer retires WQEs on
// ACKs/responses and recovers from loss with timeouts and go-back-N. UC QPs use the
// requester and responder without any of the acknowledging. The engine itself is the
// TransportHooks the core calls, the dispatcher that routes frames, doorbells and timer
// expiries to the roles, and the owner of what they share: the QPs' turns on the EventLoop
// (bounded batches), the transport timer and the wire (port and loopback queue). What the
// fabric adds — addressing, headers below the BTH, CRCs, what a group or a peer is — it
// leaves to the iba::Framing it is given (RoCEv2: RoceFraming, in the roce layer), so the same
// engine runs over any fabric that carries the IB transport.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <queue>
#include <set>
#include <span>
#include <vector>

#include "common/event_loop.hpp"
#include "common/function_ref.hpp"
#include "core/lifetime_token.hpp"
#include "core/nic_core.hpp"
#include "core/transport_hooks.hpp"
#include "core/transport_timer.hpp"
#include "iba/framing.hpp"
#include "rdma/completer.hpp"
#include "rdma/congestion.hpp"
#include "rdma/requester.hpp"
#include "rdma/responder.hpp"

namespace ornic {

class Port;

class TransportEngine final : public TransportHooks {
public:
  // PSNs one QP may have sent and not had acknowledged (roce.rst, "Send window"): enough
  // for a stream of small messages to go on while ACKs are on their way, and a bound on
  // what one QP puts on the link and what a loss costs to resend.
  static constexpr uint32_t kSendWindow = kRcSendWindow;
  // The requester sets AckReq at least once per quarter window, so the window reopens a
  // quarter at a time while the rest is in flight.
  static constexpr uint32_t kAckRequestInterval = kSendWindow / 4;
  // Packets the whole engine sends per EventLoop turn before yielding.
  static constexpr unsigned kPacketsPerTurn = 64;
  // UC has no window: a UC QP sends while the port holds fewer frames than this waiting for
  // the wire, and otherwise looks again after kUcPaceNs, so the port delays its burst
  // instead of dropping it.
  static constexpr size_t kUcBacklogLimit = 256;
  static constexpr int64_t kUcPaceNs = 100'000;
  // A responder reports a fault of the same ODP pages at most this often (memory.rst).
  static constexpr int64_t kFaultReportIntervalNs = 1'000'000;
  // Frames sent to a local GID wait here for the next turn; beyond this many they are
  // dropped (and counted) like frames the wire loses: RC recovers them by retransmission.
  static constexpr size_t kMaxLoopbackFrames = 4096;

  // `framing` outlives the engine.
  TransportEngine(EventLoop& loop, NicCore& core, Port* port, TransportTimer& timer,
                  const iba::Framing& framing);
  ~TransportEngine() override;
  TransportEngine(const TransportEngine&) = delete;
  TransportEngine& operator=(const TransportEngine&) = delete;

  void sq_doorbell(uint32_t qpn) override;
  void qp_modified(uint32_t qpn, ornic_qp_state from, ornic_qp_state to) override;
  void qp_entering_error(uint32_t qpn) override;
  void receive(std::span<const std::byte> frame) override;
  void odp_resume(uint32_t qpn) override;
  // Device reset: scheduled work and frames in flight are forgotten.
  void reset() override;

  // Looped-back frames waiting for the next turn, and those dropped because too many did.
  size_t loopback_backlog() const { return loopback_.size(); }
  uint64_t loopback_dropped() const { return loopback_dropped_; }

private:
  // The roles call back into what the engine owns.
  friend class Requester;
  friend class Responder;
  friend class Completer;
  friend class Congestion;

  // Scheduling (transport_engine.cpp): a QP with work gets a turn.
  void schedule(uint32_t qpn);
  void run_scheduled();
  // The transport timer: the QPs' deadlines (ACK timeout, RNR wait, pacing) wait in a
  // min-heap, so a frame or turn costs O(log QPs), not a look at every QP. Whoever sets a
  // deadline calls watch(); update_timer() arms the device timer for the earliest one.
  void watch(uint32_t qpn, QueuePair& qp);
  void update_timer();
  void on_timer();
  void fire_due(uint32_t qpn, QueuePair& qp, int64_t now);
  // Dispatch. `from_wire`: received from the port, not looped back by this NIC.
  void process_frame(std::span<const uint8_t> frame, bool from_wire);
  static bool transport_matches(ornic_qp_type type, const iba::OpcodeInfo& info);

  // A packet to fill, in the partition of the QP's P_Key table entry (or of entry
  // `pkey_index`, a management QP's datagram).
  iba::OutboundPacket outbound(const QueuePair& qp) const {
    return outbound(le(qp.attr.pkey_index));
  }
  iba::OutboundPacket outbound(uint16_t pkey_index) const {
    iba::OutboundPacket packet;
    packet.bth.partition_key = framing_.partition_key(pkey_index);
    return packet;
  }
  // Whether P_Key `packet_pkey` admits a packet to `qp` (IBA 10.9.3; the SMI QP checks
  // none, the GSI QP takes any entry of the table); the entry that did goes to `index`.
  bool partition_admits(const QueuePair& qp, uint16_t packet_pkey, uint16_t& index) const;

  // The wire (transport_engine.cpp). The route of connected QP `qpn` to its peer.
  bool address_rc(uint32_t qpn, const QueuePair& qp, iba::Route& route) const;
  // A packet's payload source: copies exactly the span's size of payload into it (from
  // guest memory); false if the source failed, and then the packet is not sent.
  using PayloadWriter = FunctionRef<bool(std::span<uint8_t>)>;
  // Builds the frame where the port sends it from (the shm: port's ring slot, else the
  // port's scratch buffer) and has `write_payload` copy the payload straight into it, so
  // the payload is copied once on its way to the wire. False only when write_payload
  // failed: nothing was sent, and the caller reports its error as before.
  bool transmit(QueuePair& qp, const iba::OutboundPacket& packet, size_t payload_bytes,
                PayloadWriter write_payload);
  void transmit(QueuePair& qp, const iba::OutboundPacket& packet, std::span<const uint8_t> payload);
  void loop_back(std::span<const uint8_t> frame);
  // A frame built outside transmit() (a CNP) along `route`: looped back or to the port.
  void send_frame(std::span<const uint8_t> frame, const iba::Route& route);
  // The port (or the loopback queue) holds enough frames not yet on the wire.
  bool transmit_backlogged() const;

  EventLoop& loop_;
  NicCore& core_;
  Port* port_;
  TransportTimer& timer_;
  const iba::Framing& framing_;
  LifetimeToken lifetime_;

  Requester requester_;
  Responder responder_;
  Completer completer_;
  Congestion cc_;

  std::set<uint32_t> ready_; // QPs with work to send
  // An entry per QP with a deadline: the earliest one when it was queued (the QP's
  // QpTransport::timer_queued). A deadline that moved later leaves its entry, which is
  // re-queued at the real deadline when it comes to the top; one of a QP gone, reset or
  // queued again since is dropped there.
  struct TimerEntry {
    int64_t deadline;
    uint32_t qpn;
    bool operator>(const TimerEntry& other) const { return deadline > other.deadline; }
  };
  std::priority_queue<TimerEntry, std::vector<TimerEntry>, std::greater<>> timers_;
  bool run_posted_ = false;
  std::deque<std::vector<uint8_t>> loopback_;
  uint64_t loopback_dropped_ = 0;
  bool loopback_posted_ = false;
  int64_t armed_deadline_ = 0;

  std::vector<uint8_t> frame_; // frames that do not go to the port (loopback, no port)
};

} // namespace ornic
