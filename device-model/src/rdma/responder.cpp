// The responder: checks PSNs, executes SEND / WRITE / READ / atomic requests against the
// receive queue and the MR table, acknowledges (coalesced), and NAKs what it cannot do.
// UC requests (checked by uc_responder.cpp) execute here too, dropped instead of NAKed.
// UD receives check the Q_Key and deliver the GRH with the data.
#include "rdma/responder.hpp"

#include <atomic>
#include <bit>
#include <cstring>

#include "core/device_limits.hpp"
#include "core/qp_type.hpp"
#include "iba/aeth_syndrome.hpp"
#include "iba/psn.hpp"
#include "rdma/fast_reg.hpp"
#include "rdma/memory_access.hpp"
#include "rdma/qp_wire.hpp"
#include "rdma/transport_engine.hpp"

namespace ornic {
namespace {

using iba::Opcode;

uint32_t number_to_wire(uint32_t number) {
  return std::endian::native == std::endian::little ? __builtin_bswap32(number) : number;
}

} // namespace

void Responder::send_ack(uint32_t qpn, QueuePair& qp, uint8_t syndrome, uint32_t psn) {
  iba::OutboundPacket packet = engine_.outbound(qp);
  if (!engine_.address_rc(qpn, qp, packet.route))
    return;
  packet.bth.opcode = wire_opcode(qp, Opcode::rc_acknowledge);
  packet.bth.destination_qp = le(qp.attr.dest_qpn) & iba::kQpnMask;
  packet.bth.psn = psn;
  packet.aeth = iba::Aeth{syndrome, qp.transport.resp.msn & iba::kPsnMask};
  const iba::AckKind kind = iba::ack_kind(syndrome);
  const bool fatal =
      kind == iba::AckKind::nak &&
      static_cast<iba::NakCode>(iba::syndrome_value(syndrome)) != iba::NakCode::psn_sequence_error;
  if (!fatal && responses_pending(qp.transport.resp)) {
    // Nothing may overtake the READ responses still to go (roce.rst, "Responder
    // resources"): an ACK waits for them, an RNR or PSN sequence NAK is not sent (the
    // requester's timeout recovers).
    if (kind == iba::AckKind::ack)
      qp.transport.resp.ack_pending = true;
    return;
  }
  if (kind == iba::AckKind::nak) {
    core_.counters.inc(ORNIC_CNT_NAKS_SENT);
    ++qp.counters.naks_sent;
  }
  engine_.transmit(qp, packet, {});
}

void Responder::nak_and_fail(uint32_t qpn, QueuePair& qp, uint8_t nak_code, uint32_t psn,
                             ornic_eqe_type event) {
  core_.log.warn("qp {}: request at PSN {:#x} refused (NAK {}) — QP to error", qpn, psn, nak_code);
  send_ack(qpn, qp, iba::make_nak_syndrome(static_cast<iba::NakCode>(nak_code)), psn);
  core_.post_async_event(event, qpn, 0);
  core_.move_qp_to_error(qpn);
}

void Responder::refuse(uint32_t qpn, QueuePair& qp, iba::NakCode code, uint32_t psn,
                       ornic_eqe_type event) {
  if (qp.type != ORNIC_QPT_UC)
    return nak_and_fail(qpn, qp, static_cast<uint8_t>(code), psn, event);
  if (event == ORNIC_EQE_QP_FATAL) {
    core_.log.warn("qp {}: UC request at PSN {:#x} cannot be placed — QP to error", qpn, psn);
    core_.post_async_event(event, qpn, 0);
    core_.move_qp_to_error(qpn);
    return;
  }
  core_.log.warn("qp {}: UC request at PSN {:#x} refused (NAK code {} not sent) — message dropped",
                 qpn, psn, static_cast<int>(code));
  drop_uc_message(qp, ORNIC_CNT_RX_UC_DROPPED);
}

void Responder::responder_fault(uint32_t qpn, QueuePair& qp, const OdpFault& fault, uint32_t psn) {
  ResponderState& resp = qp.transport.resp;
  const int64_t now = timer_.now_ns();
  if (resp.fault_reported_ns < 0 || resp.fault_key != fault.key || resp.fault_page != fault.page ||
      now - resp.fault_reported_ns >= TransportEngine::kFaultReportIntervalNs) {
    post_page_fault(core_, fault, qpn, false);
    resp.fault_key = fault.key;
    resp.fault_page = fault.page;
    resp.fault_reported_ns = now;
  } else {
    core_.counters.inc(ORNIC_CNT_ODP_RESP_FAULTS); // the fault, not its report
  }
  core_.counters.inc(ORNIC_CNT_RNR_NAKS);
  ++qp.counters.rnr_naks;
  send_ack(qpn, qp, iba::make_rnr_nak_syndrome(qp.attr.min_rnr_timer), psn);
}

bool Responder::responder_odp_ready(uint32_t qpn, QueuePair& qp, uint32_t rkey, uint64_t va,
                                    uint64_t length, bool write, uint32_t psn, bool duplicate) {
  const MemoryRegion* mr = find_mr(core_.resources, rkey);
  if (length == 0 || mr == nullptr || !mr->odp)
    return true;
  const OdpProbeResult probe = odp_check(core_, *mr, rkey, va, length, write);
  switch (probe.result) {
  case OdpProbe::ok:
    return true;
  case OdpProbe::fault:
    responder_fault(qpn, qp, probe.fault, psn);
    return false;
  case OdpProbe::error:
    if (!duplicate)
      nak_and_fail(qpn, qp, static_cast<uint8_t>(iba::NakCode::remote_access_error), psn,
                   ORNIC_EQE_QP_ACCESS_ERR);
    return false;
  case OdpProbe::table:
    if (!duplicate)
      nak_and_fail(qpn, qp, static_cast<uint8_t>(iba::NakCode::remote_operational_error), psn,
                   ORNIC_EQE_QP_FATAL);
    return false;
  }
  return false;
}

void Responder::on_rc_request(uint32_t qpn, QueuePair& qp, const iba::ReceivedPacket& packet) {
  ResponderState& resp = qp.transport.resp;
  const uint32_t psn = packet.bth.psn;
  const int32_t distance = iba::psn_distance(resp.epsn, psn);
  if (distance < 0)
    return on_duplicate(qpn, qp, packet);
  if (distance > 0) {
    core_.counters.inc(ORNIC_CNT_RX_PSN_ERRORS);
    if (!resp.nak_sent && !responses_pending(resp)) {
      resp.nak_sent = true;
      send_ack(qpn, qp, iba::make_nak_syndrome(iba::NakCode::psn_sequence_error), resp.epsn);
    }
    return;
  }
  resp.nak_sent = false;
  const iba::OpcodeInfo& info = packet.opcode_info;
  using InMessage = ResponderState::InMessage;
  const bool starts = info.has(iba::kStartsMessage);
  const InMessage kind = info.has(iba::kWrite) ? InMessage::write : InMessage::send;
  if (starts ? resp.in_message != InMessage::none
             : (!info.has(iba::kRead) && !info.has(iba::kAtomic) && resp.in_message != kind))
    return nak_and_fail(qpn, qp, static_cast<uint8_t>(iba::NakCode::invalid_request), psn,
                        ORNIC_EQE_QP_REQ_ERR);
  RequestTarget target = own_target(qp);
  if (qp.type == ORNIC_QPT_XRC_TGT) {
    // An SRQ of another domain, or one the message did not start with, is an invalid
    // request: nothing of it runs and the target QP fails (xrc.rst, "Responder").
    const auto xrc = xrc_target(qp, packet);
    if (!xrc || (!starts && *xrc->xrc_srqn != resp.message_srqn)) {
      core_.log.warn("qp {}: XRC request names SRQ {} outside its domain {}", qpn,
                     packet.xrceth->srqn, qp.xrcd);
      return nak_and_fail(qpn, qp, static_cast<uint8_t>(iba::NakCode::invalid_request), psn,
                          ORNIC_EQE_QP_REQ_ERR);
    }
    target = *xrc;
    if (starts)
      resp.message_srqn = *xrc->xrc_srqn;
  }
  if (info.has(iba::kRead))
    return execute_read(qpn, qp, packet, target, false);
  if (info.has(iba::kAtomic)) {
    (void)execute_atomic(qpn, qp, packet, target);
    return;
  }
  if (info.has(iba::kFlush))
    return execute_flush(qpn, qp, packet, false);
  if (info.has(iba::kAtomicWrite))
    return execute_atomic_write(qpn, qp, packet);
  const bool done = kind == InMessage::write ? execute_write(qpn, qp, packet, target)
                                             : execute_send(qpn, qp, packet, target);
  if (!done)
    return;
  // AckReq or not, one ACK per receive batch (roce.rst, "ACK"): the batch a port delivers
  // ends before the ACK for everything in it goes out.
  resp.ack_pending = true;
  schedule_ack(qpn);
}

void Responder::on_duplicate(uint32_t qpn, QueuePair& qp, const iba::ReceivedPacket& packet) {
  const iba::OpcodeInfo& info = packet.opcode_info;
  const uint32_t psn = packet.bth.psn;
  if (info.has(iba::kRead)) {
    // Answered again after the checks of a new READ if still held; an XRC SRQ gone since
    // is not answered.
    std::optional<RequestTarget> target = own_target(qp);
    if (qp.type == ORNIC_QPT_XRC_TGT)
      target = xrc_target(qp, packet);
    if (target)
      execute_read(qpn, qp, packet, *target, true);
    return;
  }
  // A FLUSH changes no data: executing it again is harmless and answers it.
  if (info.has(iba::kFlush))
    return execute_flush(qpn, qp, packet, true);
  // An atomic or ATOMIC WRITE is never executed twice (a later store may have followed
  // it): its saved answer goes out again while its entry is in the ring; an older one is
  // dropped and the requester's timeout gives up eventually.
  if (info.has(iba::kAtomicWrite) || info.has(iba::kAtomic)) {
    const auto kind =
        info.has(iba::kAtomic) ? ReadResource::Kind::atomic : ReadResource::Kind::atomic_write;
    if (ReadResource* entry = find_resource(qp, psn, kind))
      answer_resource(qpn, *entry);
    return;
  }
  acknowledge(qpn, qp);
}

std::optional<Responder::RequestTarget>
Responder::xrc_target(const QueuePair& qp, const iba::ReceivedPacket& packet) const {
  if (!packet.xrceth)
    return std::nullopt;
  const uint32_t srqn = packet.xrceth->srqn;
  const SharedReceiveQueue* srq = core_.resources.srqs.find(srqn);
  if (srq == nullptr || !srq->is_xrc() || srq->xrcd != qp.xrcd)
    return std::nullopt;
  return RequestTarget{srq->pd, srqn};
}

bool Responder::take_receive_or_rnr(uint32_t qpn, QueuePair& qp, const RequestTarget& target,
                                    uint32_t psn) {
  // A request that met an ODP page fault keeps the receive WQE it took for its retry; an
  // XRC retry must name the SRQ that WQE came from.
  if (qp.transport.resp.recv.active) {
    if (qp.transport.resp.recv.xrc_srqn == target.xrc_srqn)
      return true;
    nak_and_fail(qpn, qp, static_cast<uint8_t>(iba::NakCode::invalid_request), psn,
                 ORNIC_EQE_QP_REQ_ERR);
    return false;
  }
  RecvWqe wqe;
  const Take took = take_receive(qpn, qp, target, wqe);
  if (took == Take::failed)
    return false;
  if (took == Take::none && qp.type == ORNIC_QPT_UC) {
    drop_uc_message(qp, ORNIC_CNT_RX_UC_NO_RECV); // UC has no RNR: the message is lost
    return false;
  }
  if (took == Take::none) {
    core_.counters.inc(ORNIC_CNT_RNR_NAKS);
    ++qp.counters.rnr_naks;
    send_ack(qpn, qp, iba::make_rnr_nak_syndrome(qp.attr.min_rnr_timer), psn);
    return false;
  }
  begin_receive(qp, target, wqe);
  return true;
}

Responder::Take Responder::take_receive(uint32_t qpn, QueuePair& qp, const RequestTarget& target,
                                        RecvWqe& wqe) {
  // An XRC request names its SRQ; any other QP has its RQ or the SRQ it was created with.
  const std::optional<uint32_t> srqn = target.xrc_srqn ? target.xrc_srqn : qp.srqn;
  for (;;) {
    const QueueMemory* memory = &qp.rq_memory;
    RingState* ring = &qp.rq;
    SharedReceiveQueue* srq = nullptr;
    if (srqn) {
      srq = core_.resources.srqs.find(*srqn);
      if (srq == nullptr)
        return Take::none;
      memory = &srq->memory;
      ring = &srq->ring;
    }
    // Doorbell records (doorbells.rst): an RQ or SRQ is read when a receive needs a WQE
    // the device does not know of yet, so software rings no doorbell for it.
    DoorbellRecord record(core_.memory(), core_.counters, *memory, *ring);
    if (ring->used() == 0 && record.refresh() != DoorbellRecord::Read::advanced)
      return Take::none;
    const auto error = fetch_recv_wqe(core_, *memory, *ring, ring->consumer, ring->used(), wqe);
    if (!error) {
      if (srq != nullptr) {
        ring->consumer += wqe.blocks;
        if (srq->limit != 0)
          (void)record.refresh(); // the limit counts what software posted, rung or not
        if (srq->limit != 0 && ring->used() < srq->limit) {
          srq->limit = 0; // one event per arming (MODIFY_SRQ)
          core_.post_async_event(ORNIC_EQE_SRQ_LIMIT, *srqn, 0);
        }
      }
      return Take::ok;
    }
    if (error->ring_unreadable) {
      core_.post_async_event(srq ? ORNIC_EQE_SRQ_ERROR : ORNIC_EQE_QP_FATAL, srq ? *srqn : qpn, 0);
      if (srq == nullptr)
        core_.move_qp_to_error(qpn);
      return Take::failed;
    }
    // A malformed receive WQE completes in error on this QP and is skipped.
    core_.counters.inc(ORNIC_CNT_WQE_ERRORS);
    ++qp.counters.wqe_errors;
    ring->consumer += wqe.blocks;
    ornic_cqe cqe{};
    cqe.wr_id = to_le(wqe.wr_id);
    cqe.qpn = to_le(qpn);
    cqe.wqe_index = to_le(static_cast<uint16_t>(wqe.index));
    cqe.opcode = ORNIC_CQE_OP_RECV;
    cqe.status = error->status;
    cqe.vendor_err = error->vendor_err;
    if (target.xrc_srqn) {
      cqe.flags = ORNIC_CQE_FLAG_XRC;
      cqe.src_qp = to_le(*target.xrc_srqn);
    }
    core_.complete(target.xrc_srqn ? srq->cqn : qp.recv_cqn, cqe);
    if (!is_datagram_qp(qp.type)) { // RC, UC and XRC (IBTA class A); UD takes the next one
      core_.move_qp_to_error(qpn);
      return Take::failed;
    }
    if (qp.state == ORNIC_QPS_ERR)
      return Take::failed;
  }
}

void Responder::begin_receive(QueuePair& qp, const RequestTarget& target, const RecvWqe& wqe) {
  ReceiveInProgress& recv = qp.transport.resp.recv;
  recv.active = true;
  recv.from_srq = qp.srqn.has_value() || target.xrc_srqn.has_value();
  recv.pd = target.pd;
  recv.cqn = qp.recv_cqn;
  recv.xrc_srqn = target.xrc_srqn;
  if (target.xrc_srqn)
    if (const SharedReceiveQueue* srq = core_.resources.srqs.find(*target.xrc_srqn))
      recv.cqn = srq->cqn;
  recv.wqe_index = wqe.index;
  recv.blocks = wqe.blocks;
  recv.wr_id = wqe.wr_id;
  recv.sges = wqe.sges;
  recv.offset = 0;
}

void Responder::complete_receive(uint32_t qpn, QueuePair& qp, const ReceiveResult& result) {
  ReceiveInProgress& recv = qp.transport.resp.recv;
  ornic_cqe cqe{};
  cqe.wr_id = to_le(recv.wr_id);
  cqe.byte_len = to_le(result.byte_len);
  cqe.qpn = to_le(qpn);
  cqe.src_qp = to_le(result.src_qp);
  cqe.wqe_index = to_le(static_cast<uint16_t>(recv.wqe_index));
  cqe.opcode = result.write_imm ? ORNIC_CQE_OP_RECV_RDMA_IMM : ORNIC_CQE_OP_RECV;
  cqe.status = result.status;
  cqe.vendor_err = result.vendor_err;
  cqe.flags = result.flags;
  if ((result.flags & ORNIC_CQE_FLAG_VLAN) && result.origin.vlan_tci) {
    cqe.src_qp = to_le((result.src_qp & ORNIC_QPN_MASK) | uint32_t{*result.origin.vlan_tci} << 24);
    cqe.vlan_tci_hi = static_cast<uint8_t>(*result.origin.vlan_tci >> 8);
  }
  if (recv.xrc_srqn) {
    cqe.flags |= ORNIC_CQE_FLAG_XRC;
    cqe.src_qp = to_le(*recv.xrc_srqn);
  }
  if (result.flags & ORNIC_CQE_FLAG_IMM)
    cqe.imm_data = number_to_wire(result.immediate);
  else if (result.flags & ORNIC_CQE_FLAG_INV)
    cqe.imm_data = to_le(result.immediate);
  if (!recv.from_srq)
    qp.rq.consumer = recv.wqe_index + recv.blocks;
  const uint32_t cqn = recv.cqn;
  recv = ReceiveInProgress{};
  if (result.status == ORNIC_CQE_SUCCESS) {
    ++qp.counters.recv_wqes;
    qp.counters.recv_bytes += result.byte_len;
  }
  core_.complete(cqn, cqe, result.solicited, result.origin);
}

// Completes the receive in error, NAKs and moves the QP to ERR.
void Responder::fail_receive(uint32_t qpn, QueuePair& qp, const SgeOutcome& outcome, uint32_t psn) {
  ReceiveResult result;
  result.status = outcome.result == SgeResult::too_small ? ORNIC_CQE_LOC_LEN_ERR
                  : outcome.result == SgeResult::dma     ? ORNIC_CQE_LOC_ACCESS_ERR
                                                         : ORNIC_CQE_LOC_PROT_ERR;
  result.vendor_err = outcome.vendor_err;
  result.byte_len = static_cast<uint32_t>(qp.transport.resp.recv.offset);
  core_.counters.inc(ORNIC_CNT_WQE_ERRORS);
  ++qp.counters.wqe_errors;
  complete_receive(qpn, qp, result);
  if (qp.type == ORNIC_QPT_UC) {
    // No NAK: the receive carries the error and the rest of the message is dropped; only a
    // failed DMA (the device's own trouble) ends the QP.
    if (outcome.result == SgeResult::dma) {
      core_.post_async_event(ORNIC_EQE_QP_FATAL, qpn, 0);
      core_.move_qp_to_error(qpn);
    } else {
      qp.transport.resp.in_message = ResponderState::InMessage::dropping;
    }
    return;
  }
  const auto code = outcome.result == SgeResult::too_small ? iba::NakCode::invalid_request
                                                           : iba::NakCode::remote_operational_error;
  nak_and_fail(qpn, qp, static_cast<uint8_t>(code), psn, ORNIC_EQE_QP_REQ_ERR);
}

// A SEND_WITH_INV whose rkey cannot be invalidated (IB responder class J): the receive
// completes with REM_INV_REQ_ERR, the requester gets NAK invalid request, the QP goes to ERR.
void Responder::fail_invalidate(uint32_t qpn, QueuePair& qp, ReceiveResult result,
                                uint8_t vendor_err, uint32_t psn) {
  result.status = ORNIC_CQE_REM_INV_REQ_ERR;
  result.vendor_err = vendor_err;
  core_.counters.inc(ORNIC_CNT_WQE_ERRORS);
  ++qp.counters.wqe_errors;
  core_.log.warn("qp {}: SEND_WITH_INV of key {:#x} refused (vendor_err {})", qpn, result.immediate,
                 vendor_err);
  qp.transport.resp.in_message = ResponderState::InMessage::none;
  complete_receive(qpn, qp, result);
  nak_and_fail(qpn, qp, static_cast<uint8_t>(iba::NakCode::invalid_request), psn,
               ORNIC_EQE_QP_REQ_ERR);
}

bool Responder::execute_send(uint32_t qpn, QueuePair& qp, const iba::ReceivedPacket& packet,
                             const RequestTarget& target) {
  ResponderState& resp = qp.transport.resp;
  const iba::OpcodeInfo& info = packet.opcode_info;
  const uint32_t psn = packet.bth.psn;
  const uint32_t mtu = path_mtu_bytes(engine_.framing_, qp);
  const bool last = info.has(iba::kLast);
  if (packet.payload.size() > mtu || (!last && packet.payload.size() != mtu)) {
    refuse(qpn, qp, iba::NakCode::invalid_request, psn, ORNIC_EQE_QP_REQ_ERR);
    return false;
  }
  // A message longer than max_msg_sz (a SEND that never ends) is an invalid request.
  if (!info.has(iba::kStartsMessage) &&
      resp.recv.offset + packet.payload.size() > limits::kMaxMsgSize) {
    refuse(qpn, qp, iba::NakCode::invalid_request, psn, ORNIC_EQE_QP_REQ_ERR);
    return false;
  }
  if (info.has(iba::kStartsMessage)) {
    if (!take_receive_or_rnr(qpn, qp, target, psn))
      return false;
    resp.in_message = ResponderState::InMessage::send;
  }
  ReceiveInProgress& recv = resp.recv;
  const SgeOutcome put = scatter(core_, recv.pd, recv.sges, recv.offset, packet.payload);
  if (put.result == SgeResult::page_fault) {
    // The retry of a first packet starts the message again, with the same receive WQE.
    if (info.has(iba::kStartsMessage))
      resp.in_message = ResponderState::InMessage::none;
    responder_fault(qpn, qp, put.fault, psn);
    return false;
  }
  if (put.result != SgeResult::ok) {
    fail_receive(qpn, qp, put, psn);
    return false;
  }
  recv.offset += packet.payload.size();
  resp.epsn = iba::psn_add(psn, 1);
  if (last) {
    ReceiveResult result;
    result.origin = engine_.framing_.origin_of(packet);
    result.byte_len = static_cast<uint32_t>(recv.offset); // at most kMaxMsgSize
    result.solicited = packet.bth.solicited;
    if (packet.immdt) {
      result.flags |= ORNIC_CQE_FLAG_IMM;
      result.immediate = packet.immdt->immediate;
    } else if (packet.ieth) {
      result.flags |= ORNIC_CQE_FLAG_INV;
      result.immediate = packet.ieth->rkey;
      // The MR is FREE before the CQE that reports it is written (IB remote invalidate).
      const uint8_t why = remote_invalidate(core_.resources, qpn, recv.pd, result.immediate);
      if (why != ORNIC_VERR_NONE) {
        fail_invalidate(qpn, qp, result, why, psn);
        return false;
      }
    }
    resp.in_message = ResponderState::InMessage::none;
    resp.msn = iba::psn_add(resp.msn, 1);
    complete_receive(qpn, qp, result);
  }
  return qp.state != ORNIC_QPS_ERR;
}

// The QP's REMOTE_* rights and the MR's (or window's), under the PD of the request's target.
std::optional<const MemoryRegion*> Responder::remote_allowed(uint32_t qpn, const QueuePair& qp,
                                                             uint32_t pd, uint32_t rkey,
                                                             uint64_t va, uint64_t length,
                                                             uint32_t access) const {
  if ((le(qp.attr.access_flags) & access) != access)
    return std::nullopt;
  if (length == 0)
    return nullptr; // IB: a zero-length request names no memory
  const RemoteTarget reached = check_remote(core_.resources, qpn, pd, rkey, va, length, access);
  if (reached.why != ORNIC_VERR_NONE)
    return std::nullopt;
  return reached.mr;
}

bool Responder::execute_write(uint32_t qpn, QueuePair& qp, const iba::ReceivedPacket& packet,
                              const RequestTarget& target) {
  ResponderState& resp = qp.transport.resp;
  const iba::OpcodeInfo& info = packet.opcode_info;
  const iba::ReceivedPacket& d = packet;
  const uint32_t psn = d.bth.psn;
  const uint32_t mtu = path_mtu_bytes(engine_.framing_, qp);
  const bool last = info.has(iba::kLast);
  const bool first = info.has(iba::kStartsMessage);
  const uint32_t length = static_cast<uint32_t>(packet.payload.size());
  if (first && d.reth->dma_length > limits::kMaxMsgSize) {
    refuse(qpn, qp, iba::NakCode::invalid_request, psn, ORNIC_EQE_QP_REQ_ERR);
    return false;
  }
  if (first) {
    if (!remote_allowed(qpn, qp, target.pd, d.reth->rkey, d.reth->virtual_address,
                        d.reth->dma_length, ORNIC_ACCESS_REMOTE_WRITE)) {
      refuse(qpn, qp, iba::NakCode::remote_access_error, psn, ORNIC_EQE_QP_ACCESS_ERR);
      return false;
    }
  }
  const uint32_t remaining = first ? d.reth->dma_length : resp.write_remaining;
  if (length > mtu || (!last && length != mtu) || length > remaining ||
      (last && length != remaining)) {
    refuse(qpn, qp, iba::NakCode::invalid_request, psn, ORNIC_EQE_QP_REQ_ERR);
    return false;
  }
  // ODP: the first packet asks for the whole message's pages, later ones for their own
  // (an invalidation may have come in between).
  if (!responder_odp_ready(qpn, qp, first ? d.reth->rkey : resp.write_rkey,
                           first ? d.reth->virtual_address : resp.write_va,
                           first ? d.reth->dma_length : length, true, psn))
    return false;
  // The receive WQE of a WRITE with immediate is taken before any data moves, so an RNR
  // NAK leaves nothing half done.
  if (info.has(iba::kImmediate)) {
    if (!take_receive_or_rnr(qpn, qp, target, psn))
      return false;
  }
  if (first) {
    resp.write_va = d.reth->virtual_address;
    resp.write_rkey = d.reth->rkey;
    resp.write_length = d.reth->dma_length;
  }
  if (length != 0) {
    // Every packet again: the MR or window may be gone since the first.
    const RemoteTarget reached = check_remote(core_.resources, qpn, target.pd, resp.write_rkey,
                                              resp.write_va, length, ORNIC_ACCESS_REMOTE_WRITE);
    const MemoryRegion* mr = reached.mr;
    if (reached.why != ORNIC_VERR_NONE || mr == nullptr) {
      refuse(qpn, qp, iba::NakCode::remote_access_error, psn, ORNIC_EQE_QP_ACCESS_ERR);
      return false;
    }
    if (!mr_write(core_.memory(), *mr, resp.write_va, packet.payload)) {
      core_.counters.inc(ORNIC_CNT_DMA_ERRORS);
      refuse(qpn, qp, iba::NakCode::remote_operational_error, psn, ORNIC_EQE_QP_FATAL);
      return false;
    }
  }
  resp.write_va += length;
  resp.write_remaining = remaining - length;
  resp.epsn = iba::psn_add(psn, 1);
  resp.in_message = last ? ResponderState::InMessage::none : ResponderState::InMessage::write;
  if (last) {
    resp.msn = iba::psn_add(resp.msn, 1);
    qp.counters.recv_bytes += resp.write_length;
    if (info.has(iba::kImmediate)) {
      ReceiveResult result;
      result.origin = engine_.framing_.origin_of(packet);
      result.byte_len = resp.write_length;
      result.write_imm = true;
      result.solicited = d.bth.solicited;
      result.flags = ORNIC_CQE_FLAG_IMM;
      result.immediate = d.immdt->immediate;
      complete_receive(qpn, qp, result);
    }
  }
  return qp.state != ORNIC_QPS_ERR;
}

// A new READ takes an entry of the read-resource ring and is answered from it, a bounded
// number of packets per turn (read_resources.cpp). A duplicate is answered again, from its
// own PSN and RETH, only while its READ is still in the ring and only for a part of it.
void Responder::execute_read(uint32_t qpn, QueuePair& qp, const iba::ReceivedPacket& packet,
                             const RequestTarget& target, bool duplicate) {
  ResponderState& resp = qp.transport.resp;
  const iba::ReceivedPacket& d = packet;
  const uint32_t psn = d.bth.psn;
  const uint64_t va = d.reth->virtual_address;
  const uint64_t length = d.reth->dma_length;
  const uint32_t rkey = d.reth->rkey;
  if (length > limits::kMaxMsgSize) {
    if (!duplicate)
      nak_and_fail(qpn, qp, static_cast<uint8_t>(iba::NakCode::invalid_request), psn,
                   ORNIC_EQE_QP_REQ_ERR);
    return;
  }
  const uint32_t mtu = path_mtu_bytes(engine_.framing_, qp);
  const uint32_t count = static_cast<uint32_t>(std::max<uint64_t>(1, (length + mtu - 1) / mtu));
  ReadResource* held = nullptr;
  if (duplicate) {
    held = find_resource(qp, psn, ReadResource::Kind::read);
    if (held == nullptr || held->rkey != rkey || va < held->va || length > held->length ||
        va - held->va > held->length - length ||
        uint64_t{iba::psn_offset(held->psn, psn)} + count > held->packets)
      return; // not (or no longer) held, or not a part of what was asked: dropped
  }
  if (!remote_allowed(qpn, qp, target.pd, rkey, va, length, ORNIC_ACCESS_REMOTE_READ)) {
    if (!duplicate)
      nak_and_fail(qpn, qp, static_cast<uint8_t>(iba::NakCode::remote_access_error), psn,
                   ORNIC_EQE_QP_ACCESS_ERR);
    return;
  }
  if (!responder_odp_ready(qpn, qp, rkey, va, length, false, psn, duplicate))
    return;
  if (!duplicate) {
    held = admit_resource(qpn, qp, psn);
    if (held == nullptr)
      return;
    resp.epsn = iba::psn_add(psn, count);
    resp.msn = iba::psn_add(resp.msn, 1);
    held->kind = ReadResource::Kind::read;
    held->packets = count;
    held->msn = resp.msn;
    held->pd = target.pd;
    held->rkey = rkey;
    held->va = va;
    held->length = length;
  }
  held->pass_psn = psn;
  held->pass_va = va;
  held->pass_length = length;
  held->pass_count = count;
  answer_resource(qpn, *held);
}

bool Responder::execute_atomic(uint32_t qpn, QueuePair& qp, const iba::ReceivedPacket& packet,
                               const RequestTarget& target) {
  ResponderState& resp = qp.transport.resp;
  const iba::ReceivedPacket& d = packet;
  const uint32_t psn = d.bth.psn;
  const iba::AtomicEth& a = *d.atomic_eth;
  if (a.virtual_address % 8 != 0) {
    nak_and_fail(qpn, qp, static_cast<uint8_t>(iba::NakCode::invalid_request), psn,
                 ORNIC_EQE_QP_REQ_ERR);
    return false;
  }
  const auto reached =
      remote_allowed(qpn, qp, target.pd, a.rkey, a.virtual_address, 8, ORNIC_ACCESS_REMOTE_ATOMIC);
  if (!reached) {
    nak_and_fail(qpn, qp, static_cast<uint8_t>(iba::NakCode::remote_access_error), psn,
                 ORNIC_EQE_QP_ACCESS_ERR);
    return false;
  }
  if (!responder_odp_ready(qpn, qp, a.rkey, a.virtual_address, 8, true, psn))
    return false;
  ReadResource* entry = admit_resource(qpn, qp, psn);
  if (entry == nullptr)
    return false;
  const MemoryRegion* mr = *reached;
  std::array<uint8_t, 8> bytes{};
  uint64_t original = 0;
  bool ok = mr_read(core_.memory(), *mr, a.virtual_address, bytes);
  if (ok) {
    std::memcpy(&original, bytes.data(), 8);
    original = le(original);
    const bool swap =
        iba::rc_equivalent(d.bth.opcode) == static_cast<uint8_t>(Opcode::rc_compare_swap);
    const uint64_t updated =
        swap ? (original == a.compare ? a.swap_or_add : original) : original + a.swap_or_add;
    const uint64_t stored = to_le(updated);
    std::memcpy(bytes.data(), &stored, 8);
    ok = mr_write(core_.memory(), *mr, a.virtual_address, bytes);
  }
  if (!ok) {
    core_.counters.inc(ORNIC_CNT_DMA_ERRORS);
    nak_and_fail(qpn, qp, static_cast<uint8_t>(iba::NakCode::remote_operational_error), psn,
                 ORNIC_EQE_QP_FATAL);
    return false;
  }
  resp.epsn = iba::psn_add(psn, 1);
  resp.msn = iba::psn_add(resp.msn, 1);
  entry->kind = ReadResource::Kind::atomic;
  entry->msn = resp.msn;
  entry->original = original;
  answer_resource(qpn, *entry);
  return true;
}

void Responder::send_empty_read_response(uint32_t qpn, QueuePair& qp, uint32_t psn) {
  iba::OutboundPacket response = engine_.outbound(qp);
  if (!engine_.address_rc(qpn, qp, response.route))
    return;
  response.bth.opcode = static_cast<uint8_t>(Opcode::rc_rdma_read_response_only);
  response.bth.destination_qp = le(qp.attr.dest_qpn) & iba::kQpnMask;
  response.bth.psn = psn;
  response.aeth = iba::Aeth{iba::make_ack_syndrome(), qp.transport.resp.msn & iba::kPsnMask};
  engine_.transmit(qp, response, {});
}

// FLUSH (roce.rst, "What a FLUSH guarantees"). Every request before it in PSN order has
// already been stored into guest memory, so global visibility needs only ordering; for
// persistence the memory behind the range is also written back to its file. A duplicate
// is executed again after the same checks (one that fails them now is dropped).
void Responder::execute_flush(uint32_t qpn, QueuePair& qp, const iba::ReceivedPacket& packet,
                              bool duplicate) {
  ResponderState& resp = qp.transport.resp;
  const iba::ReceivedPacket& d = packet;
  const uint32_t psn = d.bth.psn;
  const iba::Feth& feth = *d.feth;
  const uint8_t type = feth.placement_type;
  if (feth.reserved != 0 || type == 0 || (type & ~ORNIC_FLUSH_TYPE_MASK) != 0 ||
      feth.selectivity_level > ORNIC_FLUSH_MR) {
    if (!duplicate)
      nak_and_fail(qpn, qp, static_cast<uint8_t>(iba::NakCode::invalid_request), psn,
                   ORNIC_EQE_QP_REQ_ERR);
    return;
  }
  const uint32_t access = ((type & ORNIC_FLUSH_GLOBAL) ? ORNIC_ACCESS_FLUSH_GLOBAL : 0) |
                          ((type & ORNIC_FLUSH_PERSISTENT) ? ORNIC_ACCESS_FLUSH_PERSISTENT : 0);
  const MemoryRegion* whole = find_mr(core_.resources, d.reth->rkey);
  uint64_t va = d.reth->virtual_address;
  uint64_t length = d.reth->dma_length;
  if (feth.selectivity_level == ORNIC_FLUSH_MR && whole != nullptr) {
    va = whole->iova; // the whole region: the RETH's range is not looked at
    length = whole->length;
  }
  // Unlike a WRITE, a FLUSH of no bytes still names its MR: the key is always checked.
  const RemoteTarget target =
      check_remote(core_.resources, qpn, qp.pd, d.reth->rkey, va, length, access);
  const MemoryRegion* mr = target.mr;
  if ((le(qp.attr.access_flags) & access) != access || target.why != ORNIC_VERR_NONE) {
    if (!duplicate)
      nak_and_fail(qpn, qp, static_cast<uint8_t>(iba::NakCode::remote_access_error), psn,
                   ORNIC_EQE_QP_ACCESS_ERR);
    return;
  }
  ReadResource* entry = nullptr;
  if (!duplicate) {
    entry = admit_resource(qpn, qp, psn);
    if (entry == nullptr)
      return;
  }
  // The stores of the requests before this one precede the response that reports them.
  std::atomic_thread_fence(std::memory_order_release);
  if ((type & ORNIC_FLUSH_PERSISTENT) && length != 0 &&
      !mr_persist(core_.memory(), *mr, va, length)) {
    core_.counters.inc(ORNIC_CNT_DMA_ERRORS);
    if (!duplicate)
      nak_and_fail(qpn, qp, static_cast<uint8_t>(iba::NakCode::remote_operational_error), psn,
                   ORNIC_EQE_QP_FATAL);
    return;
  }
  if (duplicate) {
    // Answered in its place among the responses if still held, else at once unless
    // READ responses are still to go (then the requester asks again).
    if (ReadResource* held = find_resource(qp, psn, ReadResource::Kind::flush))
      answer_resource(qpn, *held);
    else if (!responses_pending(resp))
      send_empty_read_response(qpn, qp, psn);
    return;
  }
  resp.epsn = iba::psn_add(psn, 1);
  resp.msn = iba::psn_add(resp.msn, 1);
  entry->kind = ReadResource::Kind::flush;
  entry->msn = resp.msn;
  answer_resource(qpn, *entry);
}

// ATOMIC WRITE: checks in rxe's order (length, key/rights/bounds, alignment), then the 8
// bytes as one store; the PSN is kept so that a duplicate is answered, not executed.
void Responder::execute_atomic_write(uint32_t qpn, QueuePair& qp,
                                     const iba::ReceivedPacket& packet) {
  ResponderState& resp = qp.transport.resp;
  const iba::ReceivedPacket& d = packet;
  const uint32_t psn = d.bth.psn;
  const uint64_t va = d.reth->virtual_address;
  if (d.reth->dma_length != 8 || packet.payload.size() != 8) {
    nak_and_fail(qpn, qp, static_cast<uint8_t>(iba::NakCode::invalid_request), psn,
                 ORNIC_EQE_QP_REQ_ERR);
    return;
  }
  const auto target =
      remote_allowed(qpn, qp, qp.pd, d.reth->rkey, va, 8, ORNIC_ACCESS_REMOTE_WRITE);
  if (!target) {
    nak_and_fail(qpn, qp, static_cast<uint8_t>(iba::NakCode::remote_access_error), psn,
                 ORNIC_EQE_QP_ACCESS_ERR);
    return;
  }
  if (va % 8 != 0) {
    nak_and_fail(qpn, qp, static_cast<uint8_t>(iba::NakCode::invalid_request), psn,
                 ORNIC_EQE_QP_REQ_ERR);
    return;
  }
  if (!responder_odp_ready(qpn, qp, d.reth->rkey, va, 8, true, psn))
    return;
  ReadResource* entry = admit_resource(qpn, qp, psn);
  if (entry == nullptr)
    return;
  const MemoryRegion* mr = *target;
  if (!mr_write_atomic64(core_.memory(), *mr, va, packet.payload.first<8>())) {
    core_.counters.inc(ORNIC_CNT_DMA_ERRORS);
    nak_and_fail(qpn, qp, static_cast<uint8_t>(iba::NakCode::remote_operational_error), psn,
                 ORNIC_EQE_QP_FATAL);
    return;
  }
  resp.epsn = iba::psn_add(psn, 1);
  resp.msn = iba::psn_add(resp.msn, 1);
  qp.counters.recv_bytes += 8;
  entry->kind = ReadResource::Kind::atomic_write;
  entry->msn = resp.msn;
  answer_resource(qpn, *entry);
}

bool Responder::on_ud_request(uint32_t qpn, QueuePair& qp, const iba::ReceivedPacket& packet,
                              std::span<const uint8_t> frame) {
  const iba::ReceivedPacket& d = packet;
  const iba::Framing& framing = engine_.framing_;
  uint16_t pkey_index = 0;
  if (!engine_.partition_admits(qp, d.bth.partition_key, pkey_index))
    return false;
  // The SMI QP has no Q_Key (infiniband.rst, "Partitions and Q_Keys").
  if (qp.type != ORNIC_QPT_SMI && d.deth->qkey != le(qp.attr.qkey)) {
    core_.counters.inc(ORNIC_CNT_RX_QKEY_ERRORS);
    framing.count_qkey_violation();
    return false;
  }
  // A receive WQE still taken is one whose datagram met an ODP page fault.
  if (!qp.transport.resp.recv.active) {
    RecvWqe wqe;
    const RequestTarget target = own_target(qp);
    if (take_receive(qpn, qp, target, wqe) != Take::ok) {
      core_.counters.inc(ORNIC_CNT_RX_UD_NO_RECV); // UD has no RNR: the datagram is lost
      framing.count_undelivered(packet);
      return false;
    }
    begin_receive(qp, target, wqe);
  }
  // The receive buffer starts with 40 bytes of GRH, whether or not one came (IBA 11.4.1.1).
  const iba::UdGrh grh = framing.ud_grh(packet, frame);
  ReceiveResult result;
  result.origin = framing.origin_of(packet);
  result.origin.pkey_index = pkey_index;
  result.byte_len = static_cast<uint32_t>(grh.bytes.size() + packet.payload.size());
  result.src_qp = d.deth->source_qp;
  result.solicited = d.bth.solicited;
  result.flags = static_cast<uint8_t>((grh.present ? ORNIC_CQE_FLAG_GRH : 0) |
                                      (grh.ipv4 ? ORNIC_CQE_FLAG_IPV4 : 0) |
                                      (grh.roce_v1 ? ORNIC_CQE_FLAG_ROCE_V1 : 0) |
                                      (result.origin.vlan_tci ? ORNIC_CQE_FLAG_VLAN : 0));
  if (d.immdt) {
    result.flags |= ORNIC_CQE_FLAG_IMM;
    result.immediate = d.immdt->immediate;
  }
  SgeOutcome put = scatter(core_, qp.pd, qp.transport.resp.recv.sges, 0, grh.bytes);
  if (put.result == SgeResult::ok)
    put = scatter(core_, qp.pd, qp.transport.resp.recv.sges, grh.bytes.size(), packet.payload);
  if (put.result == SgeResult::page_fault) {
    // UD has no RNR: this datagram is lost, the WQE waits for the next one, which finds
    // the pages the driver made resident meanwhile.
    post_page_fault(core_, put.fault, qpn, false);
    return false;
  }
  if (put.result != SgeResult::ok) {
    core_.counters.inc(ORNIC_CNT_WQE_ERRORS);
    ++qp.counters.wqe_errors;
    result.status = put.result == SgeResult::too_small ? ORNIC_CQE_LOC_LEN_ERR
                    : put.result == SgeResult::dma     ? ORNIC_CQE_LOC_ACCESS_ERR
                                                       : ORNIC_CQE_LOC_PROT_ERR;
    result.vendor_err = put.vendor_err;
  }
  complete_receive(qpn, qp, result);
  return true;
}

void Responder::on_multicast(const iba::ReceivedPacket& packet, std::span<const uint8_t> frame) {
  const iba::ReceivedPacket& d = packet;
  // The IBA's multicast QPN: a datagram to a group names no single QP.
  if (!packet.opcode_info.has(iba::kDatagram) || d.bth.destination_qp != ORNIC_QPN_MULTICAST) {
    core_.counters.inc(ORNIC_CNT_RX_BAD_HEADER);
    return;
  }
  const std::vector<uint32_t> members =
      core_.resources.mcast.members(d.route.global.destination_gid);
  if (members.empty()) {
    core_.counters.inc(ORNIC_CNT_RX_MCAST_NO_GROUP);
    return;
  }
  // Each attached QP is a separate receiver: what happens at one does not affect the next.
  for (const uint32_t qpn : members) {
    QueuePair* qp = core_.resources.qps.find(qpn);
    if (qp == nullptr || qp->type != ORNIC_QPT_UD)
      continue;
    const ornic_qp_state state = qp->state;
    if (state != ORNIC_QPS_RTR && state != ORNIC_QPS_RTS && state != ORNIC_QPS_SQD &&
        state != ORNIC_QPS_SQE)
      continue;
    ++qp->counters.packets_received;
    if (on_ud_request(qpn, *qp, packet, frame))
      core_.counters.inc(ORNIC_CNT_RX_MCAST_DELIVERED);
  }
}

} // namespace ornic
