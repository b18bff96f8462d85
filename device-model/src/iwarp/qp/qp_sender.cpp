// The send side of a bound QP: SQ WQEs become RDMAP messages cut into DDP segments of at
// most max_ulpdu_for_mss(MSS) bytes, one FPDU each, queued on the connection's byte stream.
// A Send or Write completes once TCP has had its last byte acknowledged; a Read once its
// last Read Response is placed (qp_receiver.cpp). The local WQEs put nothing on the stream.
#include <algorithm>

#include "iwarp/fpdu.hpp"
#include "iwarp/qp/qp_engine.hpp"
#include "rdma/fast_reg.hpp"
#include "rdma/memory_access.hpp"
#include "rdma/wqe_fetch.hpp"

namespace ornic::iwarp::qp {
namespace {

Segment message_header(RdmapOpcode opcode) {
  Segment seg;
  seg.opcode = opcode;
  seg.rdmap.opcode = static_cast<uint8_t>(opcode);
  seg.ddp.tagged = rdmap_opcode_is_tagged(opcode);
  if (!seg.ddp.tagged)
    seg.ddp.queue_number = rdmap_queue_of(opcode);
  return seg;
}

uint8_t status_of(SgeResult result) {
  return result == SgeResult::protection ? ORNIC_CQE_LOC_PROT_ERR : ORNIC_CQE_LOC_QP_OP_ERR;
}

} // namespace

void QpEngine::append_segment(QpStream& s, const Segment& segment) {
  const auto ulpdu = build_segment(segment);
  if (!ulpdu)
    return; // the sizes above keep every segment buildable
  const size_t before = s.tx.size();
  append_fpdu(s.tx, *ulpdu, s.params.crc);
  s.queued += s.tx.size() - before;
}

bool QpEngine::append_message(QpStream& s, Segment header, uint64_t length, PayloadSource data) {
  const size_t room = s.max_ulpdu > header.ddp.size() ? s.max_ulpdu - header.ddp.size() : 1;
  std::vector<uint8_t> chunk;
  uint64_t offset = 0;
  do {
    const auto n = static_cast<size_t>(std::min<uint64_t>(room, length - offset));
    chunk.resize(n);
    if (n != 0 && !data(offset, std::span<uint8_t>(chunk)))
      return false;
    Segment seg = header;
    if (seg.ddp.tagged)
      seg.ddp.tagged_offset = header.ddp.tagged_offset + offset;
    else
      seg.ddp.message_offset = static_cast<uint32_t>(offset);
    seg.ddp.last = offset + n == length;
    seg.payload = chunk;
    append_segment(s, seg);
    offset += n;
  } while (offset < length);
  return true;
}

void QpEngine::pump(uint32_t qpn) {
  QueuePair* qp = core_.resources.qps.find(qpn);
  QpStream* s = stream(qpn);
  if (qp == nullptr || s == nullptr || qp->state != ORNIC_QPS_RTS)
    return;
  // Read Responses go before new WQEs: the peer's READs wait on them.
  if (!send_read_responses(qpn, *qp, *s))
    return;
  (void)core_.sq_record(*qp).refresh();
  start_wqes(qpn, *qp, *s);
  if (QpStream* live = stream(qpn))
    push_tx(*live);
}

void QpEngine::start_wqes(uint32_t qpn, QueuePair& qp, QpStream& s) {
  RequesterState& req = qp.transport.req;
  for (;;) {
    while (qp.state == ORNIC_QPS_RTS && s.tx_pending() < kTxHighWater &&
           req.sq_next != qp.sq.producer) {
      if (!start_wqe(qpn, qp, s))
        return;
    }
    if (qp.state != ORNIC_QPS_RTS || req.sq_next != qp.sq.producer)
      return;
    // Out of known work: software may have posted meanwhile without a doorbell.
    DoorbellRecord record = core_.sq_record(qp);
    if (!record.going_idle())
      return;
    (void)record.set_kick(false);
  }
}

bool QpEngine::start_wqe(uint32_t qpn, QueuePair& qp, QpStream& s) {
  RequesterState& req = qp.transport.req;
  SendOp op;
  std::optional<WqeError> error = fetch_send_wqe(core_, qp, req.sq_next, op);
  if (error && error->ring_unreadable) {
    give_up(qpn, true, ORNIC_EQE_QP_FATAL);
    return false;
  }
  // Fails the WQE, whose error the caller has counted.
  const auto fail_counted = [&](uint8_t status, uint8_t vendor_err) {
    // In order: what was started before it is flushed, then it carries the error.
    while (!req.ops.empty()) {
      const SendOp earlier = pop_op(req);
      s.tracks.pop_front();
      qp.sq.consumer = earlier.wqe_index + earlier.blocks;
      complete_send(qpn, qp, earlier, ORNIC_CQE_WR_FLUSH_ERR, ORNIC_VERR_NONE);
    }
    qp.sq.consumer = op.wqe_index + op.blocks;
    req.sq_next = qp.sq.consumer;
    complete_send(qpn, qp, op, status, vendor_err);
    give_up(qpn, true, 0);
    return false;
  };
  const auto fail = [&](uint8_t status, uint8_t vendor_err) {
    core_.counters.inc(ORNIC_CNT_WQE_ERRORS);
    ++qp.counters.wqe_errors;
    return fail_counted(status, vendor_err);
  };
  if (error)
    return fail(error->status, error->vendor_err);
  // A fenced WQE may use what the READs before it fetch: it starts once they all have their
  // data (received() pumps again as Read Responses land).
  if ((op.flags & ORNIC_WQE_FLAG_FENCE) &&
      std::any_of(s.tracks.begin(), s.tracks.end(),
                  [](const OpTrack& t) { return t.read && !t.done; }))
    return false;
  if (is_local_op(op.opcode)) {
    // REG_MR, LOCAL_INV and BIND_MW send nothing: they run as on RoCE, once every earlier
    // WQE has completed (retire() pumps again) and before the next one starts.
    const LocalOpOutcome outcome = run_local_op(core_, qpn, qp, op);
    if (outcome.run == LocalOpRun::failed)
      return fail_counted(outcome.error.status, outcome.error.vendor_err);
    if (outcome.run == LocalOpRun::waiting)
      return false;
    if (op.flags & ORNIC_WQE_FLAG_SIGNALED)
      complete_send(qpn, qp, op, ORNIC_CQE_SUCCESS, ORNIC_VERR_NONE);
    return true;
  }

  const size_t tx_before = s.tx.size();
  const uint64_t queued_before = s.queued;
  const auto payload = [&](uint64_t offset, std::span<uint8_t> out) {
    if (op.flags & ORNIC_WQE_FLAG_INLINE) {
      std::copy_n(op.inline_data.begin() + static_cast<ptrdiff_t>(offset), out.size(), out.begin());
      return true;
    }
    const SgeOutcome got = gather(core_, qp.pd, op.sges, offset, out);
    if (got.result != SgeResult::ok) {
      error = WqeError{status_of(got.result), got.vendor_err, false};
      return false;
    }
    return true;
  };
  OpTrack track;
  switch (op.opcode) {
  case ORNIC_WQE_OP_SEND:
  case ORNIC_WQE_OP_SEND_INV: {
    const bool inv = op.opcode == ORNIC_WQE_OP_SEND_INV;
    const bool se = (op.flags & ORNIC_WQE_FLAG_SOLICITED) != 0;
    Segment header =
        message_header(inv ? (se ? RdmapOpcode::send_se_invalidate : RdmapOpcode::send_invalidate)
                           : (se ? RdmapOpcode::send_se : RdmapOpcode::send));
    if (inv)
      header.invalidate_stag = op.invalidate_rkey;
    header.ddp.msn = s.send_msn;
    if (!append_message(s, header, op.length, payload))
      break;
    ++s.send_msn;
    break;
  }
  case ORNIC_WQE_OP_RDMA_WRITE: {
    Segment header = message_header(RdmapOpcode::write);
    header.ddp.stag = op.rkey;
    header.ddp.tagged_offset = op.remote_addr;
    (void)append_message(s, header, op.length, payload);
    break;
  }
  case ORNIC_WQE_OP_RDMA_READ:
  case ORNIC_WQE_OP_RDMA_READ_INV: {
    if (op.sges.size() != 1)
      return fail(ORNIC_CQE_LOC_QP_OP_ERR, ORNIC_VERR_BAD_SGE_COUNT);
    if (s.reads_outstanding >= std::max<uint16_t>(s.params.ord, 1))
      return false; // a Read Response's completion starts it
    Segment header = message_header(RdmapOpcode::read_request);
    header.ddp.msn = s.read_msn++;
    ReadRequest rr;
    rr.sink_stag = op.sges[0].lkey;
    rr.sink_to = op.sges[0].addr;
    rr.size = op.length;
    rr.source_stag = op.rkey;
    rr.source_to = op.remote_addr;
    header.read_request = rr;
    append_segment(s, header);
    track.read = true;
    ++s.reads_outstanding;
    break;
  }
  default:
    // Immediate data, atomics, FLUSH and ATOMIC_WRITE have no RDMAP message (iwarp-cm.rst).
    return fail(ORNIC_CQE_LOC_QP_OP_ERR, ORNIC_VERR_BAD_OPCODE);
  }
  if (error) {
    s.tx.resize(tx_before);
    s.queued = queued_before;
    return fail(error->status, error->vendor_err);
  }
  track.stream_end = s.queued;
  req.sq_next = op.wqe_index + op.blocks;
  push_op(req, std::move(op));
  s.tracks.push_back(track);
  return true;
}

void QpEngine::push_tx(QpStream& s) {
  if (io_ == nullptr)
    return;
  // FPDU by FPDU, each in a TCP segment of its own (tx holds whole FPDUs only).
  while (s.tx_pending() >= kFpduLengthSize) {
    const size_t ulpdu = (size_t{s.tx[s.tx_head]} << 8) | s.tx[s.tx_head + 1];
    const size_t size = std::min(fpdu_size(ulpdu), s.tx_pending());
    const size_t took = io_->stream_send_record(
        s.params.conn_id, std::as_bytes(std::span<const uint8_t>(s.tx).subspan(s.tx_head, size)));
    if (took == 0)
      break;
    s.tx_head += took;
  }
  if (s.tx_head == s.tx.size()) {
    s.tx.clear();
    s.tx_head = 0;
  } else if (s.tx_head > kTxHighWater) {
    s.tx.erase(s.tx.begin(), s.tx.begin() + static_cast<ptrdiff_t>(s.tx_head));
    s.tx_head = 0;
  }
}

void QpEngine::acknowledged(uint32_t qpn, size_t bytes) {
  QueuePair* qp = core_.resources.qps.find(qpn);
  QpStream* s = stream(qpn);
  if (qp == nullptr || s == nullptr)
    return;
  retired_.clear();
  s->acked += bytes;
  retire(qpn, *qp, *s);
  pump(qpn);
}

// WQEs complete in order: the oldest once TCP has acknowledged all of it (a READ: once its
// responses are all placed).
void QpEngine::retire(uint32_t qpn, QueuePair& qp, QpStream& s) {
  RequesterState& req = qp.transport.req;
  while (qp.state == ORNIC_QPS_RTS && !req.ops.empty() && !s.tracks.empty()) {
    const OpTrack& track = s.tracks.front();
    if (track.read ? !track.done : track.stream_end > s.acked)
      return;
    if (track.read)
      --s.reads_outstanding;
    s.tracks.pop_front();
    const SendOp op = pop_op(req);
    qp.sq.consumer = op.wqe_index + op.blocks;
    if (op.opcode == ORNIC_WQE_OP_RDMA_READ_INV) {
      // The sink's key goes once its data is all placed, as a LOCAL_INV would take it.
      SendOp inv;
      inv.opcode = ORNIC_WQE_OP_LOCAL_INV;
      inv.invalidate_rkey = op.sges[0].lkey;
      if (const auto error = execute_local_op(core_, qpn, qp, inv)) {
        core_.counters.inc(ORNIC_CNT_WQE_ERRORS);
        ++qp.counters.wqe_errors;
        complete_send(qpn, qp, op, error->status, error->vendor_err);
        give_up(qpn, true, 0);
        return;
      }
    }
    if (op.flags & ORNIC_WQE_FLAG_SIGNALED)
      complete_send(qpn, qp, op, ORNIC_CQE_SUCCESS, ORNIC_VERR_NONE);
  }
}

void QpEngine::complete_send(uint32_t qpn, QueuePair& qp, const SendOp& op, uint8_t status,
                             uint8_t vendor_err) {
  ornic_cqe cqe{};
  cqe.wr_id = to_le(op.wr_id);
  cqe.byte_len = to_le(op.length);
  cqe.qpn = to_le(qpn);
  cqe.wqe_index = to_le(static_cast<uint16_t>(op.wqe_index));
  cqe.opcode = cqe_opcode_for_send(op.opcode);
  cqe.status = status;
  cqe.vendor_err = vendor_err;
  core_.complete(qp.send_cqn, cqe);
}

} // namespace ornic::iwarp::qp
