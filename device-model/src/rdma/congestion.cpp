#include "rdma/congestion.hpp"

#include "core/qp_type.hpp"
#include "rdma/transport_engine.hpp"

namespace ornic {

void Congestion::on_packet(uint32_t qpn, QueuePair& qp, const iba::ReceivedPacket& packet) {
  if (!packet.congestion_experienced)
    return;
  core_.counters.inc(ORNIC_CNT_CC_CE_RECEIVED);
  ++qp.transport.cc.ce_received;
  // UD has no flow to name in a CNP's destination QP that is known to slow down.
  if (!core_.cc.np_enabled || is_datagram_qp(qp.type))
    return;
  const int64_t now = timer_.now_ns();
  cc::CcQpState& state = qp.transport.cc;
  const int64_t interval = int64_t{core_.cc.np_min_time_between_cnps_us} * 1000;
  if (state.last_cnp_sent_ns != 0 && now - state.last_cnp_sent_ns < interval)
    return;
  state.last_cnp_sent_ns = now;
  send_cnp(qpn, qp);
}

void Congestion::send_cnp(uint32_t qpn, QueuePair& qp) {
  iba::Route route;
  if (!engine_.address_rc(qpn, qp, route))
    return; // no route back: as for an ACK, nothing goes out
  const uint32_t peer_qpn = le(qp.attr.dest_qpn) & iba::kQpnMask;
  if (!engine_.framing_.build_congestion_notification(route, peer_qpn, frame_))
    return;
  core_.counters.inc(ORNIC_CNT_CC_CNPS_SENT);
  core_.counters.inc(ORNIC_CNT_TX_RDMA_PACKETS);
  core_.counters.inc(ORNIC_CNT_TX_RDMA_BYTES, frame_.size());
  ++qp.transport.cc.cnps_sent;
  engine_.send_frame(frame_, route);
}

void Congestion::on_notification(const iba::ReceivedPacket& packet, bool from_wire) {
  const uint32_t qpn = packet.bth.destination_qp;
  QueuePair* qp = core_.resources.qps.find(qpn);
  if (qp == nullptr || is_datagram_qp(qp->type) ||
      (qp->state != ORNIC_QPS_RTS && qp->state != ORNIC_QPS_SQD)) {
    core_.counters.inc(ORNIC_CNT_RX_UNKNOWN_QP);
    return;
  }
  // Only the peer may slow a QP down (roce.rst, "Connected peer").
  if (!engine_.framing_.from_connected_peer(qp->attr, packet, from_wire)) {
    core_.counters.inc(ORNIC_CNT_RX_PEER_MISMATCH);
    return;
  }
  core_.counters.inc(ORNIC_CNT_CC_CNPS_HANDLED);
  cc::CcQpState& state = qp->transport.cc;
  ++state.cnps_handled;
  if (!core_.cc.rp_enabled)
    return;
  const int64_t now = timer_.now_ns();
  if (!state.rate) {
    state.rate.emplace(core_.cc.rp, now);
    state.bucket = cc::TokenBucket{};
  }
  state.rate->on_cnp(now);
  return;
}

bool Congestion::may_send(uint32_t qpn, QueuePair& qp) {
  cc::CcQpState& state = qp.transport.cc;
  if (!state.rate)
    return true;
  const int64_t now = timer_.now_ns();
  state.rate->advance(now);
  if (!core_.cc.rp_enabled || !state.rate->limited()) {
    state.rate.reset(); // back at the full rate: no state, no pacing
    return true;
  }
  const int64_t wait = state.bucket.wait_ns(state.rate->current_mbps(), now);
  if (wait == 0)
    return true;
  qp.transport.req.pace_until = now + wait;
  engine_.watch(qpn, qp);
  return false;
}

void Congestion::charge(QueuePair& qp, uint64_t bytes) {
  cc::CcQpState& state = qp.transport.cc;
  if (!state.rate)
    return;
  state.bucket.take(bytes);
  state.rate->on_sent(bytes, timer_.now_ns());
}

} // namespace ornic
