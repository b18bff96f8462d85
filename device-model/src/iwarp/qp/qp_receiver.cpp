// The receive side of a bound QP: the connection's bytes go through the FPDU deframer and the
// segment parser; untagged Sends are placed by MSN and message offset into the receive WQE
// they started (RQ or SRQ), tagged Writes and Read Responses by STag and tagged offset, and
// Read Requests are queued for the Read Responses pump() sends. The checks that need the
// QP's state (MSNs, offsets, receive buffers, STags, bounds, rights) name the TERMINATE
// cause to send; the first one failed ends the stream.
#include <algorithm>

#include "iwarp/qp/qp_engine.hpp"
#include "rdma/fast_reg.hpp"
#include "rdma/memory_access.hpp"
#include "rdma/wqe_fetch.hpp"

namespace ornic::iwarp::qp {
namespace {

// A tagged buffer the peer named (Write, Read Response) failed DDP's checks.
TerminateCause tagged_cause(VendorErr why) {
  switch (why) {
  case ORNIC_VERR_OUT_OF_BOUNDS:
    return cause::ddp_tagged_base_or_bounds;
  case ORNIC_VERR_PD_MISMATCH:
  case ORNIC_VERR_MW_QP:
    return cause::ddp_tagged_stag_not_in_stream;
  case ORNIC_VERR_ACCESS:
    return cause::rdmap_access_rights;
  default:
    return cause::ddp_tagged_invalid_stag;
  }
}

// A Read Request's data source failed RDMAP's checks.
TerminateCause read_source_cause(VendorErr why) {
  switch (why) {
  case ORNIC_VERR_OUT_OF_BOUNDS:
    return cause::rdmap_base_or_bounds;
  case ORNIC_VERR_PD_MISMATCH:
  case ORNIC_VERR_MW_QP:
    return cause::rdmap_stag_not_in_stream;
  case ORNIC_VERR_ACCESS:
    return cause::rdmap_access_rights;
  default:
    return cause::rdmap_invalid_stag;
  }
}

bool wraps(uint64_t to, size_t length) {
  return to + length < to;
}

} // namespace

void QpEngine::received(uint32_t qpn, std::span<const std::byte> bytes) {
  retired_.clear();
  QpStream* s = stream(qpn);
  const QueuePair* qp = core_.resources.qps.find(qpn);
  if (s == nullptr || qp == nullptr || qp->state != ORNIC_QPS_RTS) {
    counters_.bytes_dropped += bytes.size();
    core_.counters.inc(ORNIC_CNT_IW_RX_DROPPED_BYTES, bytes.size());
    return;
  }
  const auto data =
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  const auto fed = s->deframer.feed(
      data, [this, qpn](std::span<const uint8_t> ulpdu) { return on_ulpdu(qpn, ulpdu); });
  if (QpStream* live = stream(qpn)) {
    if (fed.error) {
      core_.counters.inc(ORNIC_CNT_IW_RX_BAD_FPDU);
      terminate(qpn, *live, *fed.error, {}, ORNIC_EQE_QP_FATAL);
      return;
    }
    pump(qpn); // owed Read Responses go out; placed ones may let READs complete
  }
}

bool QpEngine::on_ulpdu(uint32_t qpn, std::span<const uint8_t> ulpdu) {
  QpStream* s = stream(qpn);
  QueuePair* qp = core_.resources.qps.find(qpn);
  if (s == nullptr || qp == nullptr || qp->state != ORNIC_QPS_RTS) {
    counters_.bytes_dropped += ulpdu.size();
    core_.counters.inc(ORNIC_CNT_IW_RX_DROPPED_BYTES, ulpdu.size());
    return false;
  }
  const SegmentParse parse = parse_segment(ulpdu);
  if (!parse.segment) {
    core_.counters.inc(ORNIC_CNT_IW_RX_BAD_SEGMENT);
    // A ULPDU shorter than its own header is a framing error (MPA's layer), fatal to the
    // stream; a well-framed bad header is the peer's invalid request.
    const bool framing = parse.error.layer == TerminateLayer::llp;
    return terminate(qpn, *s, parse.error, ulpdu,
                     framing ? ORNIC_EQE_QP_FATAL : ORNIC_EQE_QP_REQ_ERR);
  }
  const Segment& seg = *parse.segment;
  switch (seg.opcode) {
  case RdmapOpcode::write:
    return on_write(qpn, *qp, *s, seg, ulpdu);
  case RdmapOpcode::read_request:
    return on_read_request(qpn, *qp, *s, seg, ulpdu);
  case RdmapOpcode::read_response:
    return on_read_response(qpn, *qp, *s, seg, ulpdu);
  case RdmapOpcode::terminate:
    core_.log.warn("qp {}: TERMINATE received ({})", qpn, describe(seg.terminate->cause));
    ++counters_.terminates_received;
    core_.counters.inc(ORNIC_CNT_IW_TERMINATES_RECEIVED);
    give_up(qpn, true, ORNIC_EQE_QP_FATAL);
    return false;
  default:
    return on_send(qpn, *qp, *s, seg, ulpdu);
  }
}

QpEngine::Take QpEngine::take_receive(uint32_t qpn, QueuePair& qp) {
  for (;;) {
    const QueueMemory* memory = &qp.rq_memory;
    RingState* ring = &qp.rq;
    SharedReceiveQueue* srq = nullptr;
    if (qp.srqn) {
      srq = core_.resources.srqs.find(*qp.srqn);
      if (srq == nullptr)
        return Take::none;
      memory = &srq->memory;
      ring = &srq->ring;
    }
    DoorbellRecord record(core_.memory(), core_.counters, *memory, *ring);
    if (ring->used() == 0 && record.refresh() != DoorbellRecord::Read::advanced)
      return Take::none;
    RecvWqe wqe;
    const auto error = fetch_recv_wqe(core_, *memory, *ring, ring->consumer, ring->used(), wqe);
    if (!error) {
      if (srq != nullptr) {
        ring->consumer += wqe.blocks;
        if (srq->limit != 0)
          (void)record.refresh();
        if (srq->limit != 0 && ring->used() < srq->limit) {
          srq->limit = 0;
          core_.post_async_event(ORNIC_EQE_SRQ_LIMIT, *qp.srqn, 0);
        }
      }
      ReceiveInProgress& recv = qp.transport.resp.recv;
      recv = ReceiveInProgress{};
      recv.active = true;
      recv.from_srq = srq != nullptr;
      recv.pd = qp.pd;
      recv.cqn = qp.recv_cqn;
      recv.wqe_index = wqe.index;
      recv.blocks = wqe.blocks;
      recv.wr_id = wqe.wr_id;
      recv.sges = wqe.sges;
      return Take::ok;
    }
    if (error->ring_unreadable) {
      core_.post_async_event(srq ? ORNIC_EQE_SRQ_ERROR : ORNIC_EQE_QP_FATAL, srq ? *qp.srqn : qpn,
                             0);
      return Take::failed;
    }
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
    core_.complete(qp.recv_cqn, cqe);
    return Take::failed;
  }
}

void QpEngine::complete_recv(uint32_t qpn, QueuePair& qp, uint8_t status, uint8_t vendor_err,
                             std::optional<uint32_t> invalidated, bool solicited) {
  ReceiveInProgress& recv = qp.transport.resp.recv;
  ornic_cqe cqe{};
  cqe.wr_id = to_le(recv.wr_id);
  cqe.byte_len = to_le(static_cast<uint32_t>(recv.offset));
  cqe.qpn = to_le(qpn);
  cqe.wqe_index = to_le(static_cast<uint16_t>(recv.wqe_index));
  cqe.opcode = ORNIC_CQE_OP_RECV;
  cqe.status = status;
  cqe.vendor_err = vendor_err;
  if (invalidated) {
    cqe.flags = ORNIC_CQE_FLAG_INV;
    cqe.imm_data = to_le(*invalidated);
  }
  if (!recv.from_srq)
    qp.rq.consumer = recv.wqe_index + recv.blocks;
  const uint32_t cqn = recv.cqn;
  if (status == ORNIC_CQE_SUCCESS) {
    ++qp.counters.recv_wqes;
    qp.counters.recv_bytes += recv.offset;
  }
  recv = ReceiveInProgress{};
  core_.complete(cqn, cqe, solicited);
}

bool QpEngine::on_send(uint32_t qpn, QueuePair& qp, QpStream& s, const Segment& seg,
                       std::span<const uint8_t> ulpdu) {
  ReceiveInProgress& recv = qp.transport.resp.recv;
  if (seg.ddp.msn != s.expect_send_msn)
    return terminate(qpn, s, cause::ddp_untagged_msn_range, ulpdu, ORNIC_EQE_QP_REQ_ERR);
  if (!recv.active) {
    if (seg.ddp.message_offset != 0)
      return terminate(qpn, s, cause::ddp_untagged_invalid_mo, ulpdu, ORNIC_EQE_QP_REQ_ERR);
    const Take took = take_receive(qpn, qp);
    if (took == Take::none)
      return terminate(qpn, s, cause::ddp_untagged_no_buffer, ulpdu, ORNIC_EQE_QP_REQ_ERR);
    if (took == Take::failed)
      return terminate(qpn, s, cause::ddp_local_catastrophic, ulpdu, 0);
  } else if (seg.ddp.message_offset != recv.offset) {
    return terminate(qpn, s, cause::ddp_untagged_invalid_mo, ulpdu, ORNIC_EQE_QP_REQ_ERR);
  }
  if (recv.offset + seg.payload.size() > limits::kMaxMsgSize) {
    complete_recv(qpn, qp, ORNIC_CQE_LOC_LEN_ERR, ORNIC_VERR_MSG_TOO_LONG, std::nullopt, false);
    return terminate(qpn, s, cause::ddp_untagged_too_long, ulpdu, ORNIC_EQE_QP_REQ_ERR);
  }
  const SgeOutcome put = scatter(core_, recv.pd, recv.sges, recv.offset, seg.payload);
  if (put.result != SgeResult::ok) {
    const bool too_long = put.result == SgeResult::too_small;
    complete_recv(qpn, qp,
                  too_long                              ? ORNIC_CQE_LOC_LEN_ERR
                  : put.result == SgeResult::protection ? ORNIC_CQE_LOC_PROT_ERR
                                                        : ORNIC_CQE_LOC_QP_OP_ERR,
                  put.vendor_err, std::nullopt, false);
    return terminate(qpn, s,
                     too_long ? cause::ddp_untagged_too_long : cause::ddp_local_catastrophic, ulpdu,
                     too_long ? ORNIC_EQE_QP_REQ_ERR : ORNIC_EQE_QP_FATAL);
  }
  recv.offset += seg.payload.size();
  if (!seg.ddp.last)
    return true;
  ++s.expect_send_msn;
  if (seg.invalidate_stag) {
    // The key is invalid before the CQE that reports it is written, as on RoCE.
    const uint8_t why = remote_invalidate(core_.resources, qpn, recv.pd, *seg.invalidate_stag);
    if (why != ORNIC_VERR_NONE) {
      core_.counters.inc(ORNIC_CNT_WQE_ERRORS);
      ++qp.counters.wqe_errors;
      complete_recv(qpn, qp, ORNIC_CQE_REM_INV_REQ_ERR, why, seg.invalidate_stag, false);
      return terminate(qpn, s, cause::rdmap_cannot_invalidate_protection, ulpdu,
                       ORNIC_EQE_QP_REQ_ERR);
    }
  }
  complete_recv(qpn, qp, ORNIC_CQE_SUCCESS, ORNIC_VERR_NONE, seg.invalidate_stag,
                rdmap_opcode_solicits(seg.opcode));
  return qp.state == ORNIC_QPS_RTS;
}

bool QpEngine::on_write(uint32_t qpn, QueuePair& qp, QpStream& s, const Segment& seg,
                        std::span<const uint8_t> ulpdu) {
  const uint64_t to = seg.ddp.tagged_offset;
  if (wraps(to, seg.payload.size()))
    return terminate(qpn, s, cause::ddp_tagged_to_wrap, ulpdu, ORNIC_EQE_QP_ACCESS_ERR);
  if (seg.payload.empty())
    return true;
  if ((le(qp.attr.access_flags) & ORNIC_ACCESS_REMOTE_WRITE) == 0)
    return terminate(qpn, s, cause::rdmap_access_rights, ulpdu, ORNIC_EQE_QP_ACCESS_ERR);
  const RemoteTarget target = check_remote(core_.resources, qpn, qp.pd, seg.ddp.stag, to,
                                           seg.payload.size(), ORNIC_ACCESS_REMOTE_WRITE);
  if (target.why != ORNIC_VERR_NONE)
    return terminate(qpn, s, tagged_cause(target.why), ulpdu, ORNIC_EQE_QP_ACCESS_ERR);
  if (!mr_write(core_.memory(), *target.mr, to, seg.payload)) {
    core_.counters.inc(ORNIC_CNT_DMA_ERRORS);
    return terminate(qpn, s, cause::ddp_local_catastrophic, ulpdu, ORNIC_EQE_QP_FATAL);
  }
  return true;
}

bool QpEngine::on_read_request(uint32_t qpn, QueuePair& qp, QpStream& s, const Segment& seg,
                               std::span<const uint8_t> ulpdu) {
  const ReadRequest& rr = *seg.read_request;
  // Queue 1 takes no more Read Requests than the IRD this side offered.
  if (seg.ddp.msn != s.expect_read_msn ||
      s.reads_owed.size() >= std::max<uint16_t>(s.params.ird, 1))
    return terminate(qpn, s, cause::ddp_untagged_msn_range, ulpdu, ORNIC_EQE_QP_REQ_ERR);
  ++s.expect_read_msn;
  if (wraps(rr.source_to, rr.size) || wraps(rr.sink_to, rr.size))
    return terminate(qpn, s, cause::rdmap_to_wrap, ulpdu, ORNIC_EQE_QP_ACCESS_ERR);
  if (rr.size != 0) {
    if ((le(qp.attr.access_flags) & ORNIC_ACCESS_REMOTE_READ) == 0)
      return terminate(qpn, s, cause::rdmap_access_rights, ulpdu, ORNIC_EQE_QP_ACCESS_ERR);
    const RemoteTarget target = check_remote(core_.resources, qpn, qp.pd, rr.source_stag,
                                             rr.source_to, rr.size, ORNIC_ACCESS_REMOTE_READ);
    if (target.why != ORNIC_VERR_NONE)
      return terminate(qpn, s, read_source_cause(target.why), ulpdu, ORNIC_EQE_QP_ACCESS_ERR);
  }
  s.reads_owed.push_back({rr, 0});
  return true;
}

bool QpEngine::send_read_responses(uint32_t qpn, QueuePair& qp, QpStream& s) {
  const size_t room = s.max_ulpdu - kDdpTaggedHeaderSize;
  std::vector<uint8_t> chunk;
  while (!s.reads_owed.empty() && s.tx_pending() < kTxHighWater) {
    QpStream::OwedRead& owed = s.reads_owed.front();
    const ReadRequest& rr = owed.request;
    const auto n = static_cast<size_t>(std::min<uint64_t>(room, rr.size - owed.sent));
    chunk.resize(n);
    if (n != 0) {
      // The MR may have gone or changed since the request was accepted.
      const RemoteTarget target =
          check_remote(core_.resources, qpn, qp.pd, rr.source_stag, rr.source_to + owed.sent, n,
                       ORNIC_ACCESS_REMOTE_READ);
      if (target.why != ORNIC_VERR_NONE)
        return terminate(qpn, s, read_source_cause(target.why), {}, ORNIC_EQE_QP_ACCESS_ERR);
      if (!mr_read(core_.memory(), *target.mr, rr.source_to + owed.sent, chunk)) {
        core_.counters.inc(ORNIC_CNT_DMA_ERRORS);
        return terminate(qpn, s, cause::rdmap_local_catastrophic, {}, ORNIC_EQE_QP_FATAL);
      }
    }
    Segment seg;
    seg.opcode = RdmapOpcode::read_response;
    seg.rdmap.opcode = static_cast<uint8_t>(RdmapOpcode::read_response);
    seg.ddp.tagged = true;
    seg.ddp.stag = rr.sink_stag;
    seg.ddp.tagged_offset = rr.sink_to + owed.sent;
    owed.sent += n;
    seg.ddp.last = owed.sent == rr.size;
    seg.payload = chunk;
    append_segment(s, seg);
    if (seg.ddp.last)
      s.reads_owed.pop_front();
  }
  return true;
}

bool QpEngine::on_read_response(uint32_t qpn, QueuePair& qp, QpStream& s, const Segment& seg,
                                std::span<const uint8_t> ulpdu) {
  RequesterState& req = qp.transport.req;
  // Responses come in the order of the requests: they fill the oldest unfinished READ.
  size_t i = 0;
  while (i < s.tracks.size() && !(s.tracks[i].read && !s.tracks[i].done))
    ++i;
  if (i == s.tracks.size() || i >= req.ops.size())
    return terminate(qpn, s, cause::rdmap_unexpected_opcode, ulpdu, ORNIC_EQE_QP_REQ_ERR);
  OpTrack& track = s.tracks[i];
  const SendOp& op = req.ops[i];
  const WqeSge& sink = op.sges[0];
  if (seg.ddp.stag != sink.lkey)
    return terminate(qpn, s, cause::ddp_tagged_invalid_stag, ulpdu, ORNIC_EQE_QP_ACCESS_ERR);
  const uint64_t to = seg.ddp.tagged_offset;
  if (wraps(to, seg.payload.size()))
    return terminate(qpn, s, cause::ddp_tagged_to_wrap, ulpdu, ORNIC_EQE_QP_ACCESS_ERR);
  if (to != sink.addr + track.placed || track.placed + seg.payload.size() > sink.length ||
      (seg.ddp.last && track.placed + seg.payload.size() != op.length))
    return terminate(qpn, s, cause::ddp_tagged_base_or_bounds, ulpdu, ORNIC_EQE_QP_ACCESS_ERR);
  if (!seg.payload.empty()) {
    const SgeOutcome put =
        scatter(core_, qp.pd, std::span<const WqeSge>(&sink, 1), track.placed, seg.payload);
    if (put.result != SgeResult::ok)
      return terminate(qpn, s, cause::ddp_tagged_invalid_stag, ulpdu, ORNIC_EQE_QP_ACCESS_ERR);
  }
  track.placed += seg.payload.size();
  if (seg.ddp.last) {
    track.done = true;
    retire(qpn, qp, s);
  }
  return qp.state == ORNIC_QPS_RTS;
}

} // namespace ornic::iwarp::qp
