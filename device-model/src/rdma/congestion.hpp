// Congestion control in the packet engine (spec: roce.rst, "Congestion control"): the
// notification point answers CE-marked packets with CNPs, at most one per QP per
// np_min_time_between_cnps; the reaction point runs DCQCN (cc/dcqcn.hpp) for a QP that got
// a CNP and paces its requests with a token bucket at the DCQCN rate, through the same
// pace_until deadline UC's port pacing uses, so a QP out of tokens waits for the transport
// timer instead of spinning. The engine calls in at three places: a received packet, a
// received CNP, and before and after each request packet.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/nic_core.hpp"
#include "core/transport_timer.hpp"
#include "iba/framing.hpp"

namespace ornic {

class TransportEngine;

class Congestion {
public:
  Congestion(TransportEngine& engine, NicCore& core, TransportTimer& timer)
      : engine_(engine), core_(core), timer_(timer) {}
  Congestion(const Congestion&) = delete;
  Congestion& operator=(const Congestion&) = delete;

  // Notification point: `packet` was accepted for QP `qpn`.
  void on_packet(uint32_t qpn, QueuePair& qp, const iba::ReceivedPacket& packet);
  // Reaction point: the framing parsed a congestion notification (a CNP) for
  // packet.bth.destination_qp; acted on, or dropped and counted.
  void on_notification(const iba::ReceivedPacket& packet, bool from_wire);
  // Before a request packet: true if the QP's rate lets it go now; otherwise the QP's
  // pace_until is set and watched, and the timer schedules it again.
  bool may_send(uint32_t qpn, QueuePair& qp);
  // After a request packet of `bytes` frame bytes went out.
  void charge(QueuePair& qp, uint64_t bytes);

private:
  void send_cnp(uint32_t qpn, QueuePair& qp);

  TransportEngine& engine_;
  NicCore& core_;
  TransportTimer& timer_;
  std::vector<uint8_t> frame_; // reused for every CNP
};

} // namespace ornic
