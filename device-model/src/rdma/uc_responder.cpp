// The UC responder's own rules (roce.rst, "Unreliable connected"): PSN and message-sequence
// checks that never NAK. A gap or a packet out of sequence drops the message in progress and
// the responder resynchronizes at the next FIRST/ONLY packet; the packets that pass are
// executed by the same code as RC's (execute_send / execute_write), whose refusals drop the
// message on a UC QP instead of NAKing.
#include "iba/psn.hpp"
#include "rdma/responder.hpp"
#include "rdma/transport_engine.hpp"

namespace ornic {

void Responder::drop_uc_message(QueuePair& qp, ornic_counter_id why) {
  ResponderState& resp = qp.transport.resp;
  if (resp.in_message != ResponderState::InMessage::dropping)
    core_.counters.inc(why); // once per message, not per packet
  resp.in_message = ResponderState::InMessage::dropping;
  // A receive WQE the message had taken stays with the QP, to be filled again from its
  // start by the next SEND or WRITE with immediate (IBTA: the WQE is reused).
  resp.recv.offset = 0;
}

void Responder::on_uc_request(uint32_t qpn, QueuePair& qp, const iba::ReceivedPacket& packet) {
  using InMessage = ResponderState::InMessage;
  ResponderState& resp = qp.transport.resp;
  const iba::OpcodeInfo& info = packet.opcode_info;
  const uint32_t psn = packet.bth.psn;
  const int32_t distance = iba::psn_distance(resp.epsn, psn);
  if (distance < 0) {
    // A duplicate or a late packet of an earlier message: a UC requester never goes back,
    // so it is stale, and the message in progress goes on without it.
    core_.counters.inc(ORNIC_CNT_RX_PSN_ERRORS);
    return;
  }
  if (distance > 0) {
    // Packets were lost: whatever was in progress cannot be completed.
    core_.counters.inc(ORNIC_CNT_RX_PSN_ERRORS);
    if (resp.in_message != InMessage::none)
      drop_uc_message(qp, ORNIC_CNT_RX_UC_DROPPED);
  }
  resp.epsn = iba::psn_add(psn, 1);

  const InMessage kind = info.has(iba::kWrite) ? InMessage::write : InMessage::send;
  if (info.has(iba::kStartsMessage)) {
    // A new message; one its sender never finished is dropped.
    if (resp.in_message == InMessage::send || resp.in_message == InMessage::write)
      drop_uc_message(qp, ORNIC_CNT_RX_UC_DROPPED);
    resp.in_message = InMessage::none;
  } else if (resp.in_message != kind) {
    // MIDDLE/LAST outside a message (its FIRST was lost) or of the other kind: dropped with
    // everything up to the next FIRST/ONLY.
    drop_uc_message(qp, ORNIC_CNT_RX_UC_DROPPED);
    return;
  }
  if (kind == InMessage::write)
    (void)execute_write(qpn, qp, packet, own_target(qp));
  else
    (void)execute_send(qpn, qp, packet, own_target(qp));
}

} // namespace ornic
