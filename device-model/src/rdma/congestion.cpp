#include "rdma/congestion.hpp"

#include "cc/cnp.hpp"
#include "core/qp_type.hpp"
#include "rdma/transport_engine.hpp"
#include "roce/builder.hpp"

namespace ornic {

uint8_t Congestion::with_ect(const cc::CcConfig& config, uint8_t traffic_class) {
  if (config.ect == ORNIC_CC_ECT_AV)
    return traffic_class;
  return static_cast<uint8_t>((traffic_class & ~cc::kEcnMask) | config.ect);
}

void Congestion::on_packet(uint32_t qpn, QueuePair& qp, const roce::ParsedPacket& packet) {
  if (!cc::ce_marked(packet.description.traffic_class))
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
  roce::PacketDescription addressing;
  if (!engine_.address_rc(qp, addressing))
    return; // no route back: as for an ACK, nothing goes out
  const uint32_t peer_qpn = le(qp.attr.dest_qpn) & roce::kQpnMask;
  addressing.udp_source_port = roce::roce_udp_source_port(le(qp.attr.udp_sport), qpn, peer_qpn);
  // Not ECN-capable: a CNP is never marked, and a mark on one would mean nothing.
  const auto traffic_class = static_cast<uint8_t>(core_.cc.np_cnp_dscp << 2);
  if (!cc::build_cnp(addressing, peer_qpn, traffic_class, frame_))
    return;
  core_.counters.inc(ORNIC_CNT_CC_CNPS_SENT);
  core_.counters.inc(ORNIC_CNT_TX_ROCE_PACKETS);
  core_.counters.inc(ORNIC_CNT_TX_ROCE_BYTES, frame_.size());
  ++qp.transport.cc.cnps_sent;
  engine_.send_frame(frame_, addressing.destination_gid);
}

bool Congestion::on_unknown_opcode(const roce::ParsedPacket& packet, std::span<const uint8_t> frame,
                                   bool from_wire) {
  if (packet.description.bth.opcode != cc::kCnpOpcode)
    return false;
  if (!cc::is_cnp(packet.description, frame)) {
    core_.counters.inc(ORNIC_CNT_RX_ROCE_BAD_HEADER);
    return true;
  }
  const uint32_t qpn = packet.description.bth.destination_qp;
  QueuePair* qp = core_.resources.qps.find(qpn);
  if (qp == nullptr || is_datagram_qp(qp->type) ||
      (qp->state != ORNIC_QPS_RTS && qp->state != ORNIC_QPS_SQD)) {
    core_.counters.inc(ORNIC_CNT_RX_ROCE_UNKNOWN_QP);
    return true;
  }
  // Only the peer may slow a QP down (roce.rst, "Connected peer").
  if (!engine_.from_connected_peer(*qp, packet.description, from_wire)) {
    core_.counters.inc(ORNIC_CNT_RX_ROCE_PEER_MISMATCH);
    return true;
  }
  core_.counters.inc(ORNIC_CNT_CC_CNPS_HANDLED);
  cc::CcQpState& state = qp->transport.cc;
  ++state.cnps_handled;
  if (!core_.cc.rp_enabled)
    return true;
  const int64_t now = timer_.now_ns();
  if (!state.rate) {
    state.rate.emplace(core_.cc.rp, now);
    state.bucket = cc::TokenBucket{};
  }
  state.rate->on_cnp(now);
  return true;
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
