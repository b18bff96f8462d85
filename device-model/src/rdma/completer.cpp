// The completer: ACKs, NAKs, READ responses and atomic ACKs retire WQEs in order; loss is
// recovered by go-back-N from the NAK's PSN or, on the ACK timeout, from the oldest PSN
// not acknowledged; RNR NAKs wait min_rnr_timer and retry.
#include "rdma/completer.hpp"

#include <algorithm>
#include <array>

#include "iba/aeth_syndrome.hpp"
#include "iba/psn.hpp"
#include "rdma/memory_access.hpp"
#include "rdma/qp_wire.hpp"
#include "rdma/transport_engine.hpp"

namespace ornic {
namespace {

bool is_atomic(const SendOp& op) {
  return op.opcode == ORNIC_WQE_OP_ATOMIC_CMP_SWP || op.opcode == ORNIC_WQE_OP_ATOMIC_FETCH_ADD;
}

// FLUSH and ATOMIC WRITE are answered by an RDMA READ Response Only without payload.
bool answered_by_empty_read_response(const SendOp& op) {
  return op.opcode == ORNIC_WQE_OP_FLUSH || op.opcode == ORNIC_WQE_OP_ATOMIC_WRITE;
}

bool has_response(const SendOp& op) {
  return op.opcode == ORNIC_WQE_OP_RDMA_READ || is_atomic(op) ||
         answered_by_empty_read_response(op);
}

uint32_t end_psn(const SendOp& op) {
  return iba::psn_add(op.first_psn, op.packets);
}

bool contains(const SendOp& op, uint32_t psn) {
  return iba::psn_offset(op.first_psn, psn) < op.packets;
}

// Ordering of PSNs a requester has outstanding: relative to its oldest unacknowledged.
int32_t at(const RequesterState& req, uint32_t psn) {
  return iba::psn_from_una(req.una_psn, psn);
}

// IBA table 45: the RNR NAK timer codes, in microseconds (code 0 is the longest).
constexpr std::array<uint32_t, 32> kRnrTimerUs = {
    655360, 10,    20,    30,    40,    60,     80,     120,    160,    240,   320,
    480,    640,   960,   1280,  1920,  2560,   3840,   5120,   7680,   10240, 15360,
    20480,  30720, 40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520};

// Where the oldest unfinished work restarts: a READ/atomic from its first missing
// response, anything else from the oldest PSN not acknowledged.
uint32_t restart_psn(const RequesterState& req) {
  for (const SendOp& op : req.ops) {
    if (has_response(op))
      return iba::psn_add(op.first_psn, op.responses);
    if (at(req, end_psn(op)) > 0)
      return at(req, op.first_psn) < 0 ? req.una_psn : op.first_psn;
  }
  return req.una_psn;
}

} // namespace

void Completer::restart_ack_timer(uint32_t qpn, QueuePair& qp) {
  RequesterState& req = qp.transport.req;
  const uint8_t timeout = qp.attr.timeout;
  if (req.ops.empty() || timeout == 0 || req.rnr_until != 0 || req.odp_stalled) {
    req.ack_deadline = 0;
    return;
  }
  req.ack_deadline = timer_.now_ns() + (int64_t{4096} << timeout);
  engine_.watch(qpn, qp);
}

void Completer::acknowledge_up_to(QueuePair& qp, uint32_t psn) {
  RequesterState& req = qp.transport.req;
  const uint32_t next = iba::psn_add(psn, 1);
  // Never past what was sent: anything else is bogus.
  if (at(req, next) > at(req, req.send_high))
    return;
  if (at(req, next) > at(req, req.acked_psn))
    req.acked_psn = next;
  // A READ or atomic is done only with its own responses: a later ACK or response says
  // its request was executed, not that its answer arrived. So the oldest answer still
  // missing holds una back (its responses, and a retry from there, stay in the window),
  // and una moves up to what was acknowledged once that answer is in.
  uint32_t una = req.acked_psn;
  for (const SendOp& op : req.ops) {
    if (at(req, op.first_psn) >= at(req, una))
      break;
    if (has_response(op) && op.responses < (is_atomic(op) ? 1u : op.packets)) {
      const uint32_t missing = iba::psn_add(op.first_psn, op.responses);
      if (at(req, missing) < at(req, una))
        una = missing;
      break;
    }
  }
  // Only forward: anything else is stale.
  if (at(req, una) <= 0)
    return;
  req.window = std::min(kRcSendWindow, req.window + static_cast<uint32_t>(at(req, una)));
  req.una_psn = una;
  req.retries_left = qp.attr.retry_cnt;
  req.rnr_retries_left = qp.attr.rnr_retry;
}

void Completer::rewind(QueuePair& qp, uint32_t psn) {
  RequesterState& req = qp.transport.req;
  req.sent_ops = 0; // the requester looks for the first op to resend from the front
  for (SendOp& op : qp.transport.req.ops) {
    if (at(req, end_psn(op)) <= at(req, psn))
      continue; // wholly before the restart point
    if (has_response(op))
      op.next_send_psn = iba::psn_add(op.first_psn, op.responses);
    else
      op.next_send_psn = at(req, op.first_psn) < at(req, psn) ? psn : op.first_psn;
  }
}

void Completer::on_ack_timeout(uint32_t qpn, QueuePair& qp, int64_t) {
  RequesterState& req = qp.transport.req;
  req.ack_deadline = 0;
  if (req.ops.empty())
    return;
  core_.counters.inc(ORNIC_CNT_TIMEOUTS);
  ++qp.counters.timeouts;
  if (req.retries_left == 0) {
    core_.log.warn("qp {}: transport retries exhausted (PSN {:#x}) — QP to error", qpn,
                   restart_psn(req));
    SendOp failed = pop_op(req);
    engine_.requester_.fail_send(qpn, qp, failed, ORNIC_CQE_RETRY_EXC_ERR, ORNIC_VERR_NONE);
    return;
  }
  --req.retries_left;
  req.window = kRcRecoveryWindow;
  rewind(qp, restart_psn(req));
  restart_ack_timer(qpn, qp);
  engine_.schedule(qpn);
}

bool Completer::odp_resume(uint32_t qpn, QueuePair& qp) {
  RequesterState& req = qp.transport.req;
  if (!req.odp_stalled)
    return false;
  req.odp_stalled = false;
  // Responses dropped while stalled are asked for again; a packet never sent goes now.
  rewind(qp, restart_psn(req));
  restart_ack_timer(qpn, qp);
  engine_.schedule(qpn);
  return true;
}

void Completer::on_response(uint32_t qpn, QueuePair& qp, const iba::ReceivedPacket& packet) {
  RequesterState& req = qp.transport.req;
  const iba::ReceivedPacket& d = packet;
  const uint32_t psn = d.bth.psn;
  const iba::OpcodeInfo& info = packet.opcode_info;
  // Responses name PSNs this QP has sent; anything else is stale or forged.
  if (at(req, psn) >= at(req, req.send_high) ||
      at(req, psn) < -static_cast<int32_t>(TransportEngine::kSendWindow)) {
    core_.counters.inc(ORNIC_CNT_RX_PSN_ERRORS);
    return;
  }
  const uint8_t syndrome = d.aeth ? d.aeth->syndrome : iba::make_ack_syndrome();
  const iba::AckKind kind = iba::ack_kind(syndrome);
  const uint32_t before = iba::psn_add(psn, iba::kPsnMask);

  if (iba::rc_equivalent(d.bth.opcode) == static_cast<uint8_t>(iba::Opcode::rc_acknowledge)) {
    if (kind == iba::AckKind::ack) {
      acknowledge_up_to(qp, psn);
    } else if (kind == iba::AckKind::rnr_nak) {
      acknowledge_up_to(qp, before);
      engine_.requester_.retire(qpn, qp);
      if (qp.state == ORNIC_QPS_ERR || req.ops.empty())
        return;
      if (qp.attr.rnr_retry != 7) {
        if (req.rnr_retries_left == 0) {
          SendOp failed = pop_op(req);
          return engine_.requester_.fail_send(qpn, qp, failed, ORNIC_CQE_RNR_RETRY_EXC_ERR,
                                              ORNIC_VERR_NONE);
        }
        --req.rnr_retries_left;
      }
      rewind(qp, psn);
      req.ack_deadline = 0;
      req.rnr_until = timer_.now_ns() + int64_t{kRnrTimerUs[iba::syndrome_value(syndrome)]} * 1000;
      engine_.watch(qpn, qp);
      return;
    } else if (kind == iba::AckKind::nak) {
      core_.counters.inc(ORNIC_CNT_NAKS_RECEIVED);
      ++qp.counters.naks_received;
      acknowledge_up_to(qp, before);
      engine_.requester_.retire(qpn, qp);
      if (qp.state == ORNIC_QPS_ERR || req.ops.empty())
        return;
      const auto code = static_cast<iba::NakCode>(iba::syndrome_value(syndrome));
      if (code == iba::NakCode::psn_sequence_error) {
        req.window = std::max(kRcRecoveryWindow, req.window / 2);
        rewind(qp, psn);
        restart_ack_timer(qpn, qp);
        engine_.schedule(qpn);
        return;
      }
      uint8_t status = ORNIC_CQE_REM_OP_ERR;
      if (code == iba::NakCode::invalid_request)
        status = ORNIC_CQE_REM_INV_REQ_ERR;
      else if (code == iba::NakCode::remote_access_error)
        status = ORNIC_CQE_REM_ACCESS_ERR;
      core_.log.warn("qp {}: NAK code {} at PSN {:#x} — QP to error", qpn, static_cast<int>(code),
                     psn);
      SendOp failed = pop_op(req);
      return engine_.requester_.fail_send(qpn, qp, failed, status, ORNIC_VERR_NONE);
    } else {
      return;
    }
  } else {
    SendOp* op = nullptr;
    for (SendOp& candidate : req.ops)
      if (contains(candidate, psn)) {
        op = &candidate;
        break;
      }
    if (op == nullptr || !has_response(*op) || psn != iba::psn_add(op->first_psn, op->responses)) {
      core_.counters.inc(ORNIC_CNT_RX_PSN_ERRORS); // duplicate or out of order
      // A response beyond the next one expected means some were lost: read the rest
      // again at once (once per gap) instead of waiting for the ACK timeout.
      if (op != nullptr && op->opcode == ORNIC_WQE_OP_RDMA_READ) {
        const uint32_t expected = iba::psn_add(op->first_psn, op->responses);
        if (at(req, expected) < at(req, psn) &&
            !(req.read_gap_pending && req.read_gap_psn == expected)) {
          req.read_gap_pending = true;
          req.read_gap_psn = expected;
          rewind(qp, expected);
          restart_ack_timer(qpn, qp);
          engine_.schedule(qpn);
        }
      }
      return;
    }
    req.read_gap_pending = false;
    const bool atomic_op = is_atomic(*op);
    if (atomic_op != info.has(iba::kAtomic)) {
      core_.counters.inc(ORNIC_CNT_RX_BAD_HEADER);
      return;
    }
    if (answered_by_empty_read_response(*op)) {
      // Nothing to place: the response only says the FLUSH / ATOMIC WRITE was executed.
      if (d.bth.opcode != static_cast<uint8_t>(iba::Opcode::rc_rdma_read_response_only) ||
          !packet.payload.empty()) {
        core_.counters.inc(ORNIC_CNT_RX_BAD_HEADER);
        return;
      }
    } else if (atomic_op) {
      const uint64_t original = to_le(d.atomic_ack_eth->original_data);
      const auto bytes = std::as_bytes(std::span<const uint64_t, 1>(&original, 1));
      const SgeOutcome put =
          scatter(core_, qp.pd, op->sges, 0,
                  std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), 8));
      if (put.result == SgeResult::page_fault) {
        // Dropped: after ODP_RESUME the atomic is asked again and answered from the
        // responder's saved result.
        return engine_.requester_.requester_fault(qpn, qp, put.fault);
      }
      if (put.result != SgeResult::ok) {
        return engine_.requester_.fail_started(
            qpn, qp, *op,
            put.result == SgeResult::dma ? ORNIC_CQE_LOC_ACCESS_ERR : ORNIC_CQE_LOC_PROT_ERR,
            put.vendor_err);
      }
    } else {
      const uint32_t mtu = path_mtu_bytes(engine_.framing_, qp);
      const uint32_t index = op->responses;
      const bool first = index == 0, last = index + 1 == op->packets;
      const uint64_t offset = uint64_t{index} * mtu;
      const uint64_t expected = last ? op->length - offset : mtu;
      // A READ retried from its middle is answered as a new, shorter READ (FIRST or ONLY
      // again), so only where the message ends is checked.
      (void)first;
      if (info.has(iba::kLast) != last || packet.payload.size() != expected) {
        core_.counters.inc(ORNIC_CNT_RX_BAD_HEADER);
        return;
      }
      const SgeOutcome put = scatter(core_, qp.pd, op->sges, offset, packet.payload);
      if (put.result == SgeResult::page_fault) {
        // Dropped: after ODP_RESUME the READ is asked again from this response on.
        return engine_.requester_.requester_fault(qpn, qp, put.fault);
      }
      if (put.result != SgeResult::ok) {
        return engine_.requester_.fail_started(
            qpn, qp, *op,
            put.result == SgeResult::dma ? ORNIC_CQE_LOC_ACCESS_ERR : ORNIC_CQE_LOC_PROT_ERR,
            put.vendor_err);
      }
    }
    ++op->responses;
    // A response means every request before it was executed.
    acknowledge_up_to(qp, psn);
  }
  engine_.requester_.retire(qpn, qp);
  if (qp.state == ORNIC_QPS_ERR)
    return;
  restart_ack_timer(qpn, qp);
  engine_.schedule(qpn);
}

} // namespace ornic
