// The per-QP state of the packet engine (roce.rst "Reliability"): what the requester has
// started and not yet retired, and where the responder is in the incoming stream. Plain
// data kept inside the QP, so destroying or resetting a QP forgets it with the QP; hence in
// the shared layer with QueuePair, though only the packet engine (rdma/) reads it.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "cc/cc_state.hpp"
#include "core/device_limits.hpp"
#include "core/fixed_vector.hpp"
#include "core/hw.hpp"
#include "core/ring_queue.hpp"

namespace ornic {

// UD, GSI and SMI QPs address every datagram themselves; RC and UC QPs are connected to one
// peer.
inline bool is_datagram_qp(ornic_qp_type type) {
  return type == ORNIC_QPT_UD || type == ORNIC_QPT_GSI || type == ORNIC_QPT_SMI;
}

// The management QPs (QP 0 and QP 1) take the P_Key of each datagram from its WQE.
inline bool is_management_qp(ornic_qp_type type) {
  return type == ORNIC_QPT_GSI || type == ORNIC_QPT_SMI;
}

struct WqeSge {
  uint64_t addr = 0;
  uint32_t length = 0;
  uint32_t lkey = 0;
};

// What a REG_MR WQE asks for (ornic_wqe_reg_mr_seg + ornic_wqe_reg_mr_ext, host order).
struct FastRegRequest {
  uint32_t key = 0;
  uint32_t access = 0;
  uint8_t page_shift = 0;
  uint32_t num_pages = 0;
  uint64_t pbl_addr = 0;
  uint64_t iova = 0;
  uint64_t length = 0;
};

// What a BIND_MW WQE asks for (ornic_wqe_bind_mw_seg, host order).
struct BindMwRequest {
  uint32_t mw_key = 0; // window index, new variant
  uint32_t mr_key = 0;
  uint64_t addr = 0;
  uint64_t length = 0; // 0: unbind (type 1)
  uint32_t access = 0;
};

// A send WQE's SGEs, inline: a WQE started costs no allocation for them.
using SendSges = FixedVector<WqeSge, limits::kMaxSendSge>;

// A send WQE the requester has validated and started.
struct SendOp {
  uint32_t wqe_index = 0; // first block
  uint32_t blocks = 1;
  uint64_t wr_id = 0;
  uint8_t opcode = 0;           // ornic_wqe_opcode
  uint8_t flags = 0;            // ORNIC_WQE_FLAG_*
  uint32_t imm_data = 0;        // wire order, as the WQE holds it
  uint32_t invalidate_rkey = 0; // host order
  uint32_t xrc_srqn = 0;        // XRC_INI: the XRCETH of every packet
  uint64_t remote_addr = 0;
  uint32_t rkey = 0;
  uint64_t compare_add = 0;
  uint64_t swap = 0;
  uint16_t pkey_index = 0; // GSI/SMI on an InfiniBand port: the datagram's P_Key entry
  SendSges sges;
  std::vector<uint8_t> inline_data;
  uint32_t length = 0;
  // UD/GSI with ORNIC_WQE_FLAG_AV: the address vector of block 1, used instead of an AH.
  std::optional<ornic_wqe_av> av;
  std::optional<FastRegRequest> reg; // REG_MR
  std::optional<BindMwRequest> bind; // BIND_MW
  // FLUSH: the RETH's DMA length (`length` is 0: a FLUSH moves no data) and the FETH.
  uint32_t flush_length = 0;
  uint8_t flush_type = 0;                     // ORNIC_FLUSH_GLOBAL / _PERSISTENT
  uint8_t flush_level = 0;                    // enum ornic_flush_level
  std::array<uint8_t, 8> atomic_write_data{}; // ATOMIC_WRITE: the bytes to store

  // PSNs [first_psn, first_psn + packets); a READ owns one per response packet.
  uint32_t first_psn = 0;
  uint32_t packets = 1;
  uint32_t next_send_psn = 0; // next packet of this op to (re)transmit
  uint32_t responses = 0;     // READ response packets / atomic acks placed
  bool sent_once = false;
};

// Read-class: answered by a response, counted against max_rd_atomic, waited for by FENCE.
inline bool op_has_response(const SendOp& op) {
  return op.opcode == ORNIC_WQE_OP_RDMA_READ || op.opcode == ORNIC_WQE_OP_ATOMIC_CMP_SWP ||
         op.opcode == ORNIC_WQE_OP_ATOMIC_FETCH_ADD || op.opcode == ORNIC_WQE_OP_FLUSH ||
         op.opcode == ORNIC_WQE_OP_ATOMIC_WRITE;
}

// PSNs one RC/XRC QP may have sent and not had acknowledged (roce.rst, "Send window").
inline constexpr uint32_t kRcSendWindow = 1024;
// Where the window restarts after an ACK timeout (roce.rst, "Send window").
inline constexpr uint32_t kRcRecoveryWindow = 8;

struct RequesterState {
  RingQueue<SendOp> ops; // started, not yet retired, in order
  // Up to a send window of ops may be outstanding, so nothing per packet or per WQE scans
  // them: the leading ops known to have every packet sent (a lower bound: a rewind resets
  // it), and how many ops are read-class.
  size_t sent_ops = 0;
  uint32_t response_ops = 0;
  uint32_t sq_next = 0;   // next SQ block index to start
  uint32_t next_psn = 0;  // next PSN never used
  uint32_t una_psn = 0;   // oldest PSN not acknowledged (nor answered, for READs/atomics)
  uint32_t acked_psn = 0; // one past the highest PSN an ACK or response acknowledged
  uint32_t send_high = 0; // one past the highest PSN ever sent: below it is a retransmit
  uint8_t retries_left = 0;
  uint8_t rnr_retries_left = 0;
  // PSNs past una_psn the requester may have in flight: the whole send window until an ACK
  // timeout (kRcRecoveryWindow after it) or a NAK (half) shrinks it; every ACK that moves
  // una_psn widens it again by what it acknowledged. A peer too slow to ACK in time is not
  // buried under one window-sized retransmission after another.
  uint32_t window = kRcSendWindow;
  uint32_t packets_since_ack_req = 0;
  int64_t ack_deadline = 0; // ns on the transport clock; 0 = not armed
  int64_t rnr_until = 0;    // ns; no (re)transmission before this
  int64_t pace_until = 0;   // ns; UC waits for the port's transmit queue until then
  bool sq_drained_reported = false;
  // A local ODP page was missing (memory.rst "On-demand paging"): nothing is sent and the
  // ACK timer stays off until ODP_RESUME.
  bool odp_stalled = false;
  // A READ response gap already answered by re-reading from this PSN (once per gap).
  bool read_gap_pending = false;
  uint32_t read_gap_psn = 0;
};

// A receive WQE the responder is filling (a multi-packet SEND).
struct ReceiveInProgress {
  bool active = false;
  bool from_srq = false;
  // Where its data is checked and its CQE goes: the QP's PD and receive CQ, or those of
  // the XRC SRQ it came from (xrc.rst), whose number the CQE then carries.
  uint32_t pd = 0;
  uint32_t cqn = 0;
  std::optional<uint32_t> xrc_srqn;
  uint32_t wqe_index = 0;
  uint32_t blocks = 1;
  uint64_t wr_id = 0;
  std::vector<WqeSge> sges;
  uint64_t offset = 0; // bytes placed so far, at most limits::kMaxMsgSize
};

// A read-class request (READ, atomic, ATOMIC WRITE, FLUSH) the responder accepted: one
// entry of its read-resource ring (roce.rst, "Responder resources"). The responses go out
// from here in PSN order, a bounded number per turn, and a duplicate request is answered
// again only while its entry is still in the ring.
struct ReadResource {
  enum class Kind : uint8_t { read, atomic, atomic_write, flush };
  Kind kind = Kind::read;
  uint32_t psn = 0;      // the request's PSN
  uint32_t packets = 1;  // PSNs it takes (a READ: one per response packet)
  uint32_t msn = 0;      // the MSN its responses carry
  uint64_t original = 0; // CMP_SWP / FETCH_ADD: the value before
  // READ: the range its RETH named, checked again for every response packet.
  uint32_t pd = 0;
  uint32_t rkey = 0;
  uint64_t va = 0;
  uint64_t length = 0;
  // The pass being answered: the original request, or a duplicate's part of it.
  uint32_t pass_psn = 0;
  uint64_t pass_va = 0;
  uint64_t pass_length = 0;
  uint32_t pass_count = 1; // response packets of the pass
  uint32_t next = 0;       // the next of them to send
  bool pending = false;    // responses still to send
  bool answered = false;   // a pass has ended: the entry no longer holds a resource
};

struct ResponderState {
  // `dropping` (UC only): a message was dropped; packets are ignored up to the next
  // FIRST/ONLY (roce.rst, "Unreliable connected").
  enum class InMessage : uint8_t { none, send, write, dropping };
  uint32_t epsn = 0; // expected PSN
  uint32_t msn = 0;
  bool nak_sent = false; // a PSN sequence NAK is outstanding for the current gap
  InMessage in_message = InMessage::none;
  uint32_t message_srqn = 0; // XRC target: the SRQ every packet of the message must name
  uint64_t write_va = 0;
  uint32_t write_rkey = 0;
  uint32_t write_remaining = 0;
  uint32_t write_length = 0; // the whole WRITE, for a WRITE with immediate's byte_len
  ReceiveInProgress recv;
  bool ack_pending = false;
  // At most max(1, max_dest_rd_atomic) entries, oldest first (responder.cpp).
  std::deque<ReadResource> resources;
  // The last ODP fault reported (memory.rst): a request retried after its RNR NAK while
  // the driver is still resolving it does not report the same pages again at once.
  uint32_t fault_key = 0;
  uint32_t fault_page = 0;
  int64_t fault_reported_ns = -1;
};

struct QpTransport {
  RequesterState req;
  ResponderState resp;
  // The earliest of the requester's deadlines (ack_deadline, rnr_until, pace_until) the
  // engine's timer queue holds an entry for; 0 = none (transport_engine.cpp).
  int64_t timer_queued = 0;
  // Congestion control (roce.rst, "Congestion control"): notification and reaction point.
  cc::CcQpState cc;
};

// Every op enters and leaves the ops list through these, which keep the counts above.
inline void push_op(RequesterState& req, SendOp&& op) {
  req.response_ops += op_has_response(op) ? 1 : 0;
  req.ops.push_back(std::move(op));
}
// Drops the oldest op; for a caller done with it, which saves moving it out.
inline void drop_op(RequesterState& req) {
  req.response_ops -= op_has_response(req.ops.front()) ? 1 : 0;
  req.ops.pop_front();
  if (req.sent_ops > 0)
    --req.sent_ops;
}
inline SendOp pop_op(RequesterState& req) {
  SendOp op = std::move(req.ops.front());
  drop_op(req);
  return op;
}

} // namespace ornic
