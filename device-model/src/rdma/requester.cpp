// The requester: starts SQ WQEs in order, segments them into packets of the path MTU and
// (re)transmits within the send window; UC messages go out paced by the port and complete
// when their last packet is sent; UD sends go out and complete at once.
#include "rdma/requester.hpp"

#include <bit>

#include "core/qp_type.hpp"
#include "iba/psn.hpp"
#include "port/port.hpp"
#include "rdma/address_vector.hpp"
#include "rdma/fast_reg.hpp"
#include "rdma/memory_access.hpp"
#include "rdma/qp_wire.hpp"
#include "rdma/transport_engine.hpp"

namespace ornic {
namespace {

using iba::Opcode;

bool is_read(const SendOp& op) {
  return op.opcode == ORNIC_WQE_OP_RDMA_READ;
}
bool is_atomic(const SendOp& op) {
  return op.opcode == ORNIC_WQE_OP_ATOMIC_CMP_SWP || op.opcode == ORNIC_WQE_OP_ATOMIC_FETCH_ADD;
}
// FLUSH and ATOMIC WRITE (IBTA 1.5) are answered by an empty READ response.
bool is_flush_or_atomic_write(const SendOp& op) {
  return op.opcode == ORNIC_WQE_OP_FLUSH || op.opcode == ORNIC_WQE_OP_ATOMIC_WRITE;
}
bool has_response(const SendOp& op) {
  return op_has_response(op);
}
uint32_t end_psn(const SendOp& op) {
  return iba::psn_add(op.first_psn, op.packets);
}

// The ImmDt number of a WQE's imm_data, which the WQE holds in wire byte order.
uint32_t wire_to_number(uint32_t raw) {
  return std::endian::native == std::endian::little ? __builtin_bswap32(raw) : raw;
}

Opcode position_opcode(uint8_t wqe_opcode, bool first, bool last) {
  const bool only = first && last;
  switch (wqe_opcode) {
  case ORNIC_WQE_OP_SEND_IMM:
    if (only)
      return Opcode::rc_send_only_with_immediate;
    if (last)
      return Opcode::rc_send_last_with_immediate;
    break;
  case ORNIC_WQE_OP_SEND_INV:
    if (only)
      return Opcode::rc_send_only_with_invalidate;
    if (last)
      return Opcode::rc_send_last_with_invalidate;
    break;
  case ORNIC_WQE_OP_RDMA_WRITE:
  case ORNIC_WQE_OP_RDMA_WRITE_IMM: {
    const bool imm = wqe_opcode == ORNIC_WQE_OP_RDMA_WRITE_IMM;
    if (only)
      return imm ? Opcode::rc_rdma_write_only_with_immediate : Opcode::rc_rdma_write_only;
    if (last)
      return imm ? Opcode::rc_rdma_write_last_with_immediate : Opcode::rc_rdma_write_last;
    return first ? Opcode::rc_rdma_write_first : Opcode::rc_rdma_write_middle;
  }
  default:
    break;
  }
  if (only)
    return Opcode::rc_send_only;
  if (last)
    return Opcode::rc_send_last;
  return first ? Opcode::rc_send_first : Opcode::rc_send_middle;
}

} // namespace

bool Requester::requester_work(uint32_t qpn, QueuePair& qp, unsigned& budget) {
  RequesterState& req = qp.transport.req;
  // Doorbell records (doorbells.rst): every turn of a busy SQ picks up what software
  // posted since, without a doorbell.
  if (qp.state == ORNIC_QPS_RTS)
    (void)core_.sq_record(qp).refresh();
  // Before the last packet of the newest op goes, the next WQE is started if it can be, so
  // that send_rc_packet knows whether that packet ends the burst (and asks for an ACK).
  bool looked_ahead = false;
  for (;;) {
    if (qp.state != ORNIC_QPS_RTS && qp.state != ORNIC_QPS_SQD)
      return false;
    if (req.rnr_until != 0 || req.pace_until != 0)
      return false; // the RNR wait's or the pacing's timer schedules the QP again
    if (req.odp_stalled)
      return false; // ODP_RESUME schedules the QP again
    // The first op with packets to (re)send: everything before req.sent_ops has none.
    req.sent_ops = std::min(req.sent_ops, req.ops.size());
    while (req.sent_ops < req.ops.size() &&
           req.ops[req.sent_ops].next_send_psn == end_psn(req.ops[req.sent_ops]))
      ++req.sent_ops;
    SendOp* pending = req.sent_ops < req.ops.size() ? &req.ops[req.sent_ops] : nullptr;
    if (pending != nullptr) {
      if (qp_is_reliable(qp.type) && iba::psn_from_una(req.una_psn, pending->next_send_psn) >=
                                         static_cast<int32_t>(req.window))
        return false; // the window opens on an ACK, which schedules the QP
      if (qp.type == ORNIC_QPT_UC && !uc_may_send(qpn, qp))
        return false;
      if (budget == 0)
        return true;
      if (!looked_ahead && pending == &req.ops.back() &&
          iba::psn_add(pending->next_send_psn, 1) == end_psn(*pending) && may_start(qp)) {
        looked_ahead = true;
        (void)start_wqe(qpn, qp); // started or not, look again: it may have failed the QP
        continue;
      }
      if (!engine_.cc_.may_send(qpn, qp))
        return false; // paced: the transport timer schedules the QP again
      looked_ahead = false;
      --budget;
      // Charged by what the frame cost on the wire, whichever way it was built.
      const uint64_t tx_bytes = core_.counters.get(ORNIC_CNT_TX_RDMA_BYTES);
      send_rc_packet(qpn, qp, *pending, pending->next_send_psn);
      engine_.cc_.charge(qp, core_.counters.get(ORNIC_CNT_TX_RDMA_BYTES) - tx_bytes);
      continue;
    }
    // Out of known work: set kick and read the record once more; carry on if software
    // posted meanwhile (then it need not ring either, so kick goes back to 0).
    if (qp.state == ORNIC_QPS_RTS && req.sq_next == qp.sq.producer) {
      DoorbellRecord record = core_.sq_record(qp);
      if (record.going_idle()) {
        (void)record.set_kick(false);
        continue;
      }
    }
    if (qp.state != ORNIC_QPS_RTS || req.sq_next == qp.sq.producer) {
      maybe_report_drained(qpn, qp);
      return false;
    }
    if (!may_start(qp))
      return false;
    if (budget == 0)
      return true;
    if (!start_wqe(qpn, qp))
      return false;
    if (is_datagram_qp(qp.type))
      --budget; // a UD send went out whole
  }
}

bool Requester::may_start(const QueuePair& qp) const {
  const RequesterState& req = qp.transport.req;
  if (qp.state != ORNIC_QPS_RTS || req.sq_next == qp.sq.producer)
    return false;
  // Only RC and XRC wait for ACKs; UC and UD have none, so their PSNs never open a window.
  return !qp_is_reliable(qp.type) || iba::psn_from_una(req.una_psn, req.next_psn) <
                                         static_cast<int32_t>(TransportEngine::kSendWindow);
}

bool Requester::start_wqe(uint32_t qpn, QueuePair& qp) {
  RequesterState& req = qp.transport.req;
  SendOp op;
  if (const auto error = fetch_send_wqe(core_, qp, req.sq_next, op)) {
    if (error->ring_unreadable) {
      core_.log.warn("qp {}: send queue unreadable at {} — QP to error", qpn, req.sq_next);
      core_.post_async_event(ORNIC_EQE_QP_FATAL, qpn, 0);
      core_.move_qp_to_error(qpn);
      return false;
    }
    // Completions stay in order: the bad WQE completes after the ones before it.
    if (!req.ops.empty())
      return false;
    core_.counters.inc(ORNIC_CNT_WQE_ERRORS);
    ++qp.counters.wqe_errors;
    core_.log.warn("qp {}: bad send WQE at {} (status {}, vendor_err {})", qpn, req.sq_next,
                   error->status, error->vendor_err);
    fail_send(qpn, qp, op, error->status, error->vendor_err);
    return false;
  }
  if (is_local_op(op.opcode))
    return run_local_op(qpn, qp, op);
  if ((op.flags & ORNIC_WQE_FLAG_FENCE) && req.response_ops > 0)
    return false; // started again when the reads/atomics before it complete
  if (has_response(op) && req.response_ops >= std::max<uint32_t>(1, qp.attr.max_rd_atomic))
    return false;
  // ODP: every local page the WQE reads (or a READ/atomic's response writes) must be
  // resident before it starts, so a fault stalls before anything is sent.
  if (op.inline_data.empty()) {
    const SgeOutcome probe =
        probe_sges(core_, qp.pd, op.sges, is_atomic(op) ? 8 : op.length, has_response(op));
    if (probe.result == SgeResult::page_fault) {
      requester_fault(qpn, qp, probe.fault);
      return false;
    }
  }
  req.sq_next += op.blocks;
  if (is_datagram_qp(qp.type)) {
    send_ud(qpn, qp, op);
    return qp.state == ORNIC_QPS_RTS || qp.state == ORNIC_QPS_SQD;
  }
  const uint32_t mtu = path_mtu_bytes(engine_.framing_, qp);
  op.first_psn = op.next_send_psn = req.next_psn;
  op.packets = is_atomic(op) || is_flush_or_atomic_write(op)
                   ? 1
                   : std::max<uint32_t>(1, (op.length + mtu - 1) / mtu);
  req.next_psn = iba::psn_add(req.next_psn, op.packets);
  push_op(req, std::move(op));
  return true;
}

// REG_MR / LOCAL_INV / BIND_MW: in SQ order as on every transport (fast_reg.hpp).
bool Requester::run_local_op(uint32_t qpn, QueuePair& qp, SendOp& op) {
  const LocalOpOutcome outcome = ornic::run_local_op(core_, qpn, qp, op);
  if (outcome.run == LocalOpRun::failed)
    fail_send(qpn, qp, op, outcome.error.status, outcome.error.vendor_err);
  if (outcome.run != LocalOpRun::done)
    return false; // waiting: started again when the last outstanding WQE retires
  if (op.flags & ORNIC_WQE_FLAG_SIGNALED)
    complete_send(qpn, qp, op, ORNIC_CQE_SUCCESS, ORNIC_VERR_NONE);
  return true;
}

bool Requester::uc_may_send(uint32_t qpn, QueuePair& qp) {
  if (port_ == nullptr || port_->tx_backlog() < TransportEngine::kUcBacklogLimit)
    return true;
  qp.transport.req.pace_until = timer_.now_ns() + TransportEngine::kUcPaceNs;
  engine_.watch(qpn, qp);
  return false;
}

// One packet of an RC or UC message (UC: no AckReq, nothing to wait for).
void Requester::send_rc_packet(uint32_t qpn, QueuePair& qp, SendOp& op, uint32_t psn) {
  RequesterState& req = qp.transport.req;
  const uint32_t mtu = path_mtu_bytes(engine_.framing_, qp);
  const uint32_t index = iba::psn_offset(op.first_psn, psn);
  iba::OutboundPacket packet = engine_.outbound(qp);
  const bool addressed = engine_.address_rc(qpn, qp, packet.route);
  packet.bth.destination_qp = le(qp.attr.dest_qpn) & iba::kQpnMask;
  packet.bth.psn = psn;
  // Every XRC request packet names the remote XRC SRQ of its WQE (xrc.rst).
  if (qp.type == ORNIC_QPT_XRC_INI)
    packet.xrceth = iba::Xrceth{op.xrc_srqn};
  std::span<const uint8_t> payload;
  bool sent_in_place = false; // the payload was gathered into the frame as it went out

  if (is_read(op)) {
    const uint64_t offset = uint64_t{index} * mtu;
    packet.bth.opcode = wire_opcode(qp, Opcode::rc_rdma_read_request);
    packet.bth.ack_request = true;
    packet.reth =
        iba::Reth{op.remote_addr + offset, op.rkey,
                  static_cast<uint32_t>(op.length - std::min<uint64_t>(offset, op.length))};
    op.next_send_psn = end_psn(op);
  } else if (is_atomic(op)) {
    const bool swap = op.opcode == ORNIC_WQE_OP_ATOMIC_CMP_SWP;
    packet.bth.opcode = wire_opcode(qp, swap ? Opcode::rc_compare_swap : Opcode::rc_fetch_add);
    packet.bth.ack_request = true;
    packet.atomic_eth = iba::AtomicEth{op.remote_addr, op.rkey, swap ? op.swap : op.compare_add,
                                       swap ? op.compare_add : 0};
    op.next_send_psn = end_psn(op);
  } else if (op.opcode == ORNIC_WQE_OP_FLUSH) {
    packet.bth.opcode = static_cast<uint8_t>(Opcode::rc_flush);
    packet.bth.ack_request = true;
    packet.feth = iba::Feth{
        .placement_type = op.flush_type, .selectivity_level = op.flush_level, .reserved = 0};
    packet.reth = iba::Reth{op.remote_addr, op.rkey, op.flush_length};
    op.next_send_psn = end_psn(op);
  } else if (op.opcode == ORNIC_WQE_OP_ATOMIC_WRITE) {
    packet.bth.opcode = static_cast<uint8_t>(Opcode::rc_atomic_write);
    packet.bth.ack_request = true;
    packet.reth = iba::Reth{op.remote_addr, op.rkey, 8};
    payload = op.atomic_write_data;
    op.next_send_psn = end_psn(op);
  } else {
    const bool first = index == 0;
    const bool last = index + 1 == op.packets;
    const uint32_t offset = index * mtu;
    const uint32_t length = std::min(mtu, op.length - offset);
    const Opcode rc = position_opcode(op.opcode, first, last);
    packet.bth.opcode =
        qp.type == ORNIC_QPT_UC ? static_cast<uint8_t>(iba::uc_opcode(rc)) : wire_opcode(qp, rc);
    const bool write =
        op.opcode == ORNIC_WQE_OP_RDMA_WRITE || op.opcode == ORNIC_WQE_OP_RDMA_WRITE_IMM;
    if (write && first)
      packet.reth = iba::Reth{op.remote_addr, op.rkey, op.length};
    if (last && (op.opcode == ORNIC_WQE_OP_SEND_IMM || op.opcode == ORNIC_WQE_OP_RDMA_WRITE_IMM))
      packet.immdt = iba::ImmDt{wire_to_number(op.imm_data)};
    if (last && op.opcode == ORNIC_WQE_OP_SEND_INV)
      packet.ieth = iba::Ieth{op.invalidate_rkey};
    packet.bth.solicited = last && (op.flags & ORNIC_WQE_FLAG_SOLICITED);
    // AckReq (roce.rst, "ACK"): once per quarter window, on the packet that fills the
    // window, and on the last packet of a message nothing is queued behind (the
    // requester looked ahead): the end of a burst, after which it waits for the ACK.
    const bool burst_ends = last && &op == &req.ops.back();
    const bool window_fills =
        iba::psn_from_una(req.una_psn, iba::psn_add(psn, 1)) >= static_cast<int32_t>(req.window);
    packet.bth.ack_request = qp_is_reliable(qp.type) &&
                             (++req.packets_since_ack_req >= TransportEngine::kAckRequestInterval ||
                              burst_ends || window_fills);
    if (!op.inline_data.empty()) {
      payload = std::span<const uint8_t>(op.inline_data).subspan(offset, length);
    } else {
      // Gathered straight into the frame (TransportEngine::transmit). A packet that cannot
      // be addressed is lost on the way out, but its payload is still read, so that a
      // failing SGE fails as always.
      SgeOutcome got;
      const auto gather_into = [&](std::span<uint8_t> area) {
        got = gather(core_, qp.pd, op.sges, offset, area);
        return got.result == SgeResult::ok;
      };
      if (addressed) {
        sent_in_place = true;
        engine_.transmit(qp, packet, length, gather_into);
      } else {
        payload_.resize(length);
        gather_into(payload_);
      }
      if (got.result == SgeResult::page_fault) {
        // Invalidated since the WQE started: this packet goes out after ODP_RESUME.
        return requester_fault(qpn, qp, got.fault);
      }
      if (got.result != SgeResult::ok) {
        // The MR went away or its memory is unmapped since the WQE started.
        const uint8_t status =
            got.result == SgeResult::dma ? ORNIC_CQE_LOC_ACCESS_ERR : ORNIC_CQE_LOC_PROT_ERR;
        core_.counters.inc(ORNIC_CNT_WQE_ERRORS);
        ++qp.counters.wqe_errors;
        return fail_started(qpn, qp, op, status, got.vendor_err);
      }
    }
    op.next_send_psn = iba::psn_add(psn, 1);
  }
  if (packet.bth.ack_request)
    req.packets_since_ack_req = 0;
  const int32_t high = iba::psn_from_una(req.una_psn, req.send_high);
  if (iba::psn_from_una(req.una_psn, psn) < high) {
    core_.counters.inc(ORNIC_CNT_RETRANSMITS);
    ++qp.counters.retransmits;
  }
  if (high < iba::psn_from_una(req.una_psn, op.next_send_psn))
    req.send_high = op.next_send_psn;
  op.sent_once = true;
  if (addressed && !sent_in_place)
    engine_.transmit(qp, packet, payload);
  if (qp.type == ORNIC_QPT_UC) {
    // Nothing is acknowledged: the message is done once its last packet is out.
    if (op.next_send_psn == end_psn(op)) {
      req.una_psn = req.acked_psn = op.next_send_psn;
      retire(qpn, qp); // may pop `op`
    }
    return;
  }
  if (req.ack_deadline == 0)
    engine_.completer_.restart_ack_timer(qpn, qp);
}

// The address of a UD send: the WQE's own vector (kernel QPs, checked by fetch_send_wqe) or
// its AH, which must exist and belong to the QP's PD.
std::optional<ornic_wqe_av> Requester::ud_address(const QueuePair& qp, const SendOp& op) const {
  if (op.av)
    return op.av;
  const AddressHandle* ah = core_.resources.ahs.find(op.rkey);
  if (ah == nullptr || ah->pd != qp.pd)
    return std::nullopt;
  return address_vector_of(ah->attr);
}

void Requester::send_ud(uint32_t qpn, QueuePair& qp, SendOp& op) {
  RequesterState& req = qp.transport.req;
  // The management QPs name each datagram's partition in its WQE (wqe.rst).
  iba::OutboundPacket packet =
      is_management_qp(qp.type) ? engine_.outbound(op.pkey_index) : engine_.outbound(qp);
  const std::optional<ornic_wqe_av> av = ud_address(qp, op);
  const uint32_t remote_qpn = static_cast<uint32_t>(op.remote_addr) & iba::kQpnMask;
  if (!av || !engine_.framing_.route(*av, qpn, remote_qpn, packet.route)) {
    core_.counters.inc(ORNIC_CNT_WQE_ERRORS);
    ++qp.counters.wqe_errors;
    return fail_send(qpn, qp, op, ORNIC_CQE_LOC_QP_OP_ERR, ORNIC_VERR_BAD_AH);
  }
  if (op.length > path_mtu_bytes(engine_.framing_, qp)) {
    core_.counters.inc(ORNIC_CNT_WQE_ERRORS);
    ++qp.counters.wqe_errors;
    return fail_send(qpn, qp, op, ORNIC_CQE_LOC_LEN_ERR, ORNIC_VERR_MSG_TOO_LONG);
  }
  const bool imm = op.opcode == ORNIC_WQE_OP_SEND_IMM;
  packet.bth.opcode =
      static_cast<uint8_t>(imm ? Opcode::ud_send_only_with_immediate : Opcode::ud_send_only);
  packet.bth.destination_qp = remote_qpn;
  packet.bth.psn = req.next_psn;
  packet.bth.solicited = (op.flags & ORNIC_WQE_FLAG_SOLICITED) != 0;
  req.next_psn = iba::psn_add(req.next_psn, 1);
  const uint32_t qkey_field = static_cast<uint32_t>(op.compare_add);
  const uint32_t qkey = (qkey_field & 0x80000000u) ? le(qp.attr.qkey) : qkey_field;
  packet.deth = iba::Deth{qkey, qpn};
  if (imm)
    packet.immdt = iba::ImmDt{wire_to_number(op.imm_data)};
  if (!op.inline_data.empty()) {
    engine_.transmit(qp, packet, op.inline_data);
  } else {
    SgeOutcome got;
    engine_.transmit(qp, packet, op.length, [&](std::span<uint8_t> area) {
      got = gather(core_, qp.pd, op.sges, 0, area);
      return got.result == SgeResult::ok;
    });
    if (got.result != SgeResult::ok) {
      core_.counters.inc(ORNIC_CNT_WQE_ERRORS);
      ++qp.counters.wqe_errors;
      return fail_send(qpn, qp, op,
                       got.result == SgeResult::dma ? ORNIC_CQE_LOC_ACCESS_ERR
                                                    : ORNIC_CQE_LOC_PROT_ERR,
                       got.vendor_err);
    }
  }
  qp.sq.consumer = op.wqe_index + op.blocks;
  ++qp.counters.send_wqes;
  qp.counters.send_bytes += op.length;
  if (op.flags & ORNIC_WQE_FLAG_SIGNALED)
    complete_send(qpn, qp, op, ORNIC_CQE_SUCCESS, ORNIC_VERR_NONE);
}

void Requester::complete_send(uint32_t qpn, QueuePair& qp, const SendOp& op, uint8_t status,
                              uint8_t vendor_err) {
  core_.complete(qp.send_cqn, send_cqe(qpn, op, status, vendor_err));
}

ornic_cqe Requester::send_cqe(uint32_t qpn, const SendOp& op, uint8_t status, uint8_t vendor_err) {
  ornic_cqe cqe{};
  cqe.wr_id = to_le(op.wr_id);
  cqe.byte_len = to_le(is_atomic(op) ? uint32_t{8} : op.length);
  cqe.qpn = to_le(qpn);
  cqe.wqe_index = to_le(static_cast<uint16_t>(op.wqe_index));
  cqe.opcode = cqe_opcode_for_send(op.opcode);
  cqe.status = status;
  cqe.vendor_err = vendor_err;
  return cqe;
}

// `op` is no longer in the ops list; everything before it has been retired.
void Requester::fail_send(uint32_t qpn, QueuePair& qp, const SendOp& op, uint8_t status,
                          uint8_t vendor_err) {
  qp.sq.consumer = op.wqe_index + op.blocks;
  if (qp.transport.req.sq_next == op.wqe_index)
    qp.transport.req.sq_next = qp.sq.consumer; // a WQE that never started
  complete_send(qpn, qp, op, status, vendor_err);
  if (qp_is_reliable(qp.type))
    core_.move_qp_to_error(qpn);
  else
    core_.move_qp_to_send_error(qpn);
}

void Requester::fail_started(uint32_t qpn, QueuePair& qp, const SendOp& op, uint8_t status,
                             uint8_t vendor_err) {
  RequesterState& req = qp.transport.req;
  // In order: the WQEs before it are flushed, this one carries the error.
  while (!req.ops.empty() && &req.ops.front() != &op) {
    const SendOp earlier = pop_op(req);
    qp.sq.consumer = earlier.wqe_index + earlier.blocks;
    complete_send(qpn, qp, earlier, ORNIC_CQE_WR_FLUSH_ERR, ORNIC_VERR_NONE);
  }
  if (req.ops.empty())
    return;
  SendOp failed = pop_op(req);
  fail_send(qpn, qp, failed, status, vendor_err);
}

void Requester::retire(uint32_t qpn, QueuePair& qp) {
  RequesterState& req = qp.transport.req;
  while (!req.ops.empty()) {
    const SendOp& op = req.ops.front();
    const bool done = has_response(op) ? op.responses == (is_atomic(op) ? 1u : op.packets)
                                       : iba::psn_from_una(req.una_psn, end_psn(op)) <= 0;
    if (!done)
      break;
    qp.sq.consumer = op.wqe_index + op.blocks;
    ++qp.counters.send_wqes;
    qp.counters.send_bytes += op.length;
    const bool signaled = (op.flags & ORNIC_WQE_FLAG_SIGNALED) != 0;
    const ornic_cqe cqe = send_cqe(qpn, op, ORNIC_CQE_SUCCESS, ORNIC_VERR_NONE);
    drop_op(req); // `op` is gone: the CQE holds what completing it needs
    if (signaled)
      core_.complete(qp.send_cqn, cqe);
    if (qp.state == ORNIC_QPS_ERR)
      return;
  }
  maybe_report_drained(qpn, qp);
}

void Requester::requester_fault(uint32_t qpn, QueuePair& qp, const OdpFault& fault) {
  RequesterState& req = qp.transport.req;
  req.odp_stalled = true;
  req.ack_deadline = 0; // a stalled QP does not time out: its peer is not the one waiting
  post_page_fault(core_, fault, qpn, true);
}

void Requester::maybe_report_drained(uint32_t qpn, QueuePair& qp) {
  RequesterState& req = qp.transport.req;
  if (qp.state != ORNIC_QPS_SQD || !req.ops.empty() || req.sq_drained_reported)
    return;
  req.sq_drained_reported = true;
  if (qp.attr.en_sqd_async_notify)
    core_.post_async_event(ORNIC_EQE_QP_SQ_DRAINED, qpn, 0);
}

} // namespace ornic
