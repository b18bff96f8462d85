#include "rdma/wqe_fetch.hpp"

#include <cstring>

#include "core/device_limits.hpp"
#include "core/qp_type.hpp"
#include "rdma/fast_reg.hpp"
#include "rdma/memory_access.hpp"

namespace ornic {
namespace {

constexpr uint8_t kKnownFlags = ORNIC_WQE_FLAG_SIGNALED | ORNIC_WQE_FLAG_SOLICITED |
                                ORNIC_WQE_FLAG_FENCE | ORNIC_WQE_FLAG_INLINE | ORNIC_WQE_FLAG_AV;

bool read_block(NicCore& core, const QueueMemory& memory, const RingState& ring, uint32_t index,
                std::span<std::byte> out) {
  if (memory.read(core.memory(), uint64_t{ring.slot(index)} * ORNIC_WQE_BLOCK_SIZE, out))
    return true;
  core.counters.inc(ORNIC_CNT_DMA_ERRORS);
  return false;
}

WqeError op_error(uint8_t vendor_err) {
  return WqeError{ORNIC_CQE_LOC_QP_OP_ERR, vendor_err, false};
}

bool is_read_or_atomic(uint8_t opcode) {
  return opcode == ORNIC_WQE_OP_RDMA_READ || opcode == ORNIC_WQE_OP_ATOMIC_CMP_SWP ||
         opcode == ORNIC_WQE_OP_ATOMIC_FETCH_ADD;
}

bool is_rdma(uint8_t opcode) {
  return opcode == ORNIC_WQE_OP_RDMA_WRITE || opcode == ORNIC_WQE_OP_RDMA_WRITE_IMM ||
         opcode == ORNIC_WQE_OP_RDMA_READ;
}

bool is_atomic(uint8_t opcode) {
  return opcode == ORNIC_WQE_OP_ATOMIC_CMP_SWP || opcode == ORNIC_WQE_OP_ATOMIC_FETCH_ADD;
}

// The opcode segment's own reserved words must be zero where the opcode uses it. A UD
// segment's P_Key index is the management QPs' on an InfiniBand port (wqe.rst), below the
// P_Key table's length; elsewhere it is reserved.
bool segment_reserved_clear(const NicCore& core, const QueuePair& qp, const ornic_send_wqe& w,
                            bool ud) {
  if (ud) {
    const bool pkey_index_ok = core.is_ib() && is_management_qp(qp.type)
                                   ? le(w.ud.pkey_index) < kIbPkeyTableSize
                                   : w.ud.pkey_index == 0;
    return pkey_index_ok && w.ud.reserved0 == 0 && all_zero(bytes_of(w.ud.reserved));
  }
  if (is_rdma(w.opcode))
    return all_zero(bytes_of(w.rdma.reserved));
  if (is_atomic(w.opcode))
    return w.atomic.reserved == 0;
  return true;
}

// Reads `count` SGEs starting in block `first_block` (relative to `index`) at SGE slot
// `first_slot`, four per 64-byte block, appending them to `sges` (a std::vector or a
// SendSges with room for them).
template <typename Sges>
bool read_sges(NicCore& core, const QueueMemory& memory, const RingState& ring, uint32_t index,
               uint32_t first_block, uint32_t count, Sges& sges) {
  std::array<ornic_sge, ORNIC_SGES_PER_BLOCK> block{};
  for (uint32_t i = 0; i < count; ++i) {
    const uint32_t slot = i % ORNIC_SGES_PER_BLOCK;
    if (slot == 0 && !read_block(core, memory, ring, index + first_block + i / ORNIC_SGES_PER_BLOCK,
                                 bytes_of(block)))
      return false;
    sges.push_back(WqeSge{le(block[slot].addr), le(block[slot].length), le(block[slot].lkey)});
  }
  return true;
}

// Block 1 of a send with ORNIC_WQE_FLAG_AV (wqe.rst, "Inline address vector"). Only the
// driver's own QPs may address packets themselves: user space must never pick its MACs/GIDs.
std::optional<WqeError> fetch_av(NicCore& core, const QueuePair& qp, const ornic_send_wqe& w,
                                 uint32_t index, SendOp& op) {
  if (!is_datagram_qp(qp.type) || qp.db_page != ORNIC_DB_PAGE_KERNEL || w.ud.ah != 0)
    return op_error(ORNIC_VERR_BAD_AH);
  if (op.blocks < 2)
    return op_error(ORNIC_VERR_BAD_BLOCKS);
  ornic_wqe_av av{};
  if (!read_block(core, qp.sq_memory, qp.sq, index + 1, bytes_of(av)))
    return WqeError{ORNIC_CQE_LOC_ACCESS_ERR, ORNIC_VERR_DMA, true};
  if (av.reserved0 != 0 || !all_zero(bytes_of(av.reserved1)) || !av_fields_valid(core, av) ||
      le(av.flow_label) > 0xfffff)
    return op_error(ORNIC_VERR_RESERVED_NONZERO);
  op.av = av;
  return std::nullopt;
}

// FLUSH and ATOMIC_WRITE (wqe.rst, "FLUSH and ATOMIC_WRITE"): one bare block of an RC
// QP; everything about the remote side is the responder's to check.
std::optional<WqeError> fetch_ibta15_op(const QueuePair& qp, const ornic_send_wqe& w, SendOp& op) {
  if (qp.type != ORNIC_QPT_RC)
    return op_error(ORNIC_VERR_BAD_OPCODE);
  const bool flush = w.opcode == ORNIC_WQE_OP_FLUSH;
  const bool segment_clear =
      flush ? all_zero(bytes_of(w.flush.reserved0)) && all_zero(bytes_of(w.flush.reserved1))
            : w.atomic_write.reserved0 == 0 && w.atomic_write.reserved1 == 0;
  if ((w.flags & ~kKnownFlags) || w.reserved0 != 0 || w.reserved1 != 0 || !segment_clear)
    return op_error(ORNIC_VERR_RESERVED_NONZERO);
  if (w.flags & ORNIC_WQE_FLAG_INLINE)
    return op_error(ORNIC_VERR_BAD_OPCODE);
  if (w.flags & ORNIC_WQE_FLAG_AV)
    return op_error(ORNIC_VERR_BAD_AH);
  if (w.num_sge != 0)
    return op_error(ORNIC_VERR_BAD_SGE_COUNT);
  if (w.inline_len != 0)
    return op_error(ORNIC_VERR_BAD_INLINE_LEN);
  if (op.blocks != 1)
    return op_error(ORNIC_VERR_BAD_BLOCKS);
  if (flush) {
    const uint8_t type = w.flush.type;
    if (type == 0 || (type & ~ORNIC_FLUSH_TYPE_MASK) || w.flush.level > ORNIC_FLUSH_MR)
      return op_error(ORNIC_VERR_FLUSH_TYPE);
    op.remote_addr = le(w.flush.remote_addr);
    op.rkey = le(w.flush.rkey);
    op.flush_length = le(w.flush.length);
    op.flush_type = type;
    op.flush_level = w.flush.level;
    op.length = 0;
  } else {
    op.remote_addr = le(w.atomic_write.remote_addr);
    op.rkey = le(w.atomic_write.rkey);
    std::memcpy(op.atomic_write_data.data(), w.atomic_write.data, op.atomic_write_data.size());
    op.length = 8;
  }
  return std::nullopt;
}

} // namespace

std::optional<WqeError> fetch_send_wqe(NicCore& core, const QueuePair& qp, uint32_t index,
                                       SendOp& op) {
  op = SendOp{};
  op.wqe_index = index;
  op.blocks = 1;
  ornic_send_wqe w{};
  if (!read_block(core, qp.sq_memory, qp.sq, index, bytes_of(w)))
    return WqeError{ORNIC_CQE_LOC_ACCESS_ERR, ORNIC_VERR_DMA, true};
  op.wr_id = le(w.wr_id);
  op.opcode = w.opcode;
  op.flags = w.flags;
  const uint32_t available = qp.sq.producer - index;
  if (w.num_blocks == 0 || w.num_blocks > ORNIC_WQE_MAX_BLOCKS || w.num_blocks > available)
    return op_error(ORNIC_VERR_BAD_BLOCKS);
  op.blocks = w.num_blocks;
  // An iWARP port's READ whose sink key is invalidated when it completes (wqe.rst): shaped
  // and checked as a READ; the key is the sink SGE's, invalidate_rkey is reserved.
  if (w.opcode == ORNIC_WQE_OP_RDMA_READ_INV) {
    if (!core.is_iwarp() || qp.type != ORNIC_QPT_RC)
      return op_error(ORNIC_VERR_BAD_OPCODE);
    if (w.invalidate_rkey != 0)
      return op_error(ORNIC_VERR_RESERVED_NONZERO);
    w.opcode = ORNIC_WQE_OP_RDMA_READ;
  }
  if (is_local_op(w.opcode)) { // on any QP type: they send nothing
    if (w.reserved0 != 0 || w.reserved1 != 0 || w.xrc_srqn != 0)
      return op_error(ORNIC_VERR_RESERVED_NONZERO);
    return fetch_local_op(core, qp, w, index, op);
  }
  if (w.opcode == ORNIC_WQE_OP_FLUSH || w.opcode == ORNIC_WQE_OP_ATOMIC_WRITE)
    return fetch_ibta15_op(qp, w, op);
  const bool ud = is_datagram_qp(qp.type);
  if (w.opcode > ORNIC_WQE_OP_ATOMIC_FETCH_ADD)
    return op_error(ORNIC_VERR_BAD_OPCODE);
  if (ud && w.opcode != ORNIC_WQE_OP_SEND && w.opcode != ORNIC_WQE_OP_SEND_IMM)
    return op_error(ORNIC_VERR_BAD_OPCODE);
  // UC carries SENDs and WRITEs only: no READ, atomic or invalidate exists on it.
  if (qp.type == ORNIC_QPT_UC && (is_read_or_atomic(w.opcode) || w.opcode == ORNIC_WQE_OP_SEND_INV))
    return op_error(ORNIC_VERR_BAD_OPCODE);
  if ((w.flags & ~kKnownFlags) || w.reserved0 != 0 || w.reserved1 != 0 ||
      !segment_reserved_clear(core, qp, w, ud))
    return op_error(ORNIC_VERR_RESERVED_NONZERO);

  // The remote XRC SRQ travels with each XRC_INI WQE; elsewhere the field is reserved.
  if (qp.type != ORNIC_QPT_XRC_INI && w.xrc_srqn != 0)
    return op_error(ORNIC_VERR_RESERVED_NONZERO);
  if (le(w.xrc_srqn) > ORNIC_QPN_MASK)
    return op_error(ORNIC_VERR_XRC_SRQN);
  op.xrc_srqn = le(w.xrc_srqn);
  op.imm_data = w.imm_data;
  op.invalidate_rkey = le(w.invalidate_rkey);
  if (ud) {
    op.rkey = le(w.ud.ah); // UD: the AH index travels in rkey, remote QPN in remote_addr
    op.remote_addr = le(w.ud.remote_qpn);
    op.compare_add = le(w.ud.qkey);
    op.pkey_index = le(w.ud.pkey_index);
  } else if (is_atomic(w.opcode)) {
    op.remote_addr = le(w.atomic.remote_addr);
    op.rkey = le(w.atomic.rkey);
    op.compare_add = le(w.atomic.compare_add);
    op.swap = le(w.atomic.swap);
  } else if (is_rdma(w.opcode)) {
    op.remote_addr = le(w.rdma.remote_addr);
    op.rkey = le(w.rdma.rkey);
  }
  if (w.flags & ORNIC_WQE_FLAG_AV)
    if (auto error = fetch_av(core, qp, w, index, op))
      return error;
  const uint32_t data_block = op.av ? 2 : 1; // the first block of SGEs or inline data

  uint64_t length = 0;
  if (w.flags & ORNIC_WQE_FLAG_INLINE) {
    const uint32_t inline_len = le(w.inline_len);
    if (is_read_or_atomic(w.opcode))
      return op_error(ORNIC_VERR_BAD_OPCODE);
    if (w.num_sge != 0)
      return op_error(ORNIC_VERR_BAD_SGE_COUNT);
    if (inline_len > limits::kMaxInlineData)
      return op_error(ORNIC_VERR_BAD_INLINE_LEN);
    if (op.blocks != data_block + ornic_wqe_inline_blocks(inline_len))
      return op_error(ORNIC_VERR_BAD_BLOCKS);
    op.inline_data.resize(inline_len);
    std::array<std::byte, ORNIC_WQE_BLOCK_SIZE> block{};
    for (uint32_t done = 0, b = data_block; done < inline_len; ++b) {
      if (!read_block(core, qp.sq_memory, qp.sq, index + b, block))
        return WqeError{ORNIC_CQE_LOC_ACCESS_ERR, ORNIC_VERR_DMA, true};
      const uint32_t piece = std::min<uint32_t>(inline_len - done, ORNIC_WQE_BLOCK_SIZE);
      std::memcpy(op.inline_data.data() + done, block.data(), piece);
      done += piece;
    }
    length = inline_len;
  } else {
    if (w.inline_len != 0)
      return op_error(ORNIC_VERR_BAD_INLINE_LEN);
    if (w.num_sge > limits::kMaxSendSge)
      return op_error(ORNIC_VERR_BAD_SGE_COUNT);
    if (op.blocks != data_block + ornic_wqe_sge_blocks(w.num_sge))
      return op_error(ORNIC_VERR_BAD_BLOCKS);
    if (!read_sges(core, qp.sq_memory, qp.sq, index, data_block, w.num_sge, op.sges))
      return WqeError{ORNIC_CQE_LOC_ACCESS_ERR, ORNIC_VERR_DMA, true};
    for (const WqeSge& sge : op.sges)
      length += sge.length;
    if (is_atomic(w.opcode) && (op.sges.size() != 1 || length != 8))
      return op_error(ORNIC_VERR_BAD_SGE_COUNT);
  }
  if (length > limits::kMaxMsgSize)
    return WqeError{ORNIC_CQE_LOC_LEN_ERR, ORNIC_VERR_MSG_TOO_LONG, false};
  op.length = static_cast<uint32_t>(length);

  // Local buffers are checked once here; the data path checks each access again.
  const uint32_t access = is_read_or_atomic(w.opcode) ? ORNIC_ACCESS_LOCAL_WRITE : 0;
  for (const WqeSge& sge : op.sges) {
    if (sge.length == 0)
      continue;
    const VendorErr why =
        check_local(core.resources, qp.pd, sge.lkey, sge.addr, sge.length, access);
    if (why != ORNIC_VERR_NONE)
      return WqeError{ORNIC_CQE_LOC_PROT_ERR, why, false};
  }
  return std::nullopt;
}

std::optional<WqeError> fetch_recv_wqe(NicCore& core, const QueueMemory& ring_memory,
                                       const RingState& ring, uint32_t index, uint32_t available,
                                       RecvWqe& wqe) {
  wqe = RecvWqe{};
  wqe.index = index;
  ornic_recv_wqe w{};
  if (!read_block(core, ring_memory, ring, index, bytes_of(w)))
    return WqeError{ORNIC_CQE_LOC_ACCESS_ERR, ORNIC_VERR_DMA, true};
  wqe.wr_id = le(w.wr_id);
  if (w.num_blocks == 0 || w.num_blocks > ORNIC_WQE_MAX_BLOCKS || w.num_blocks > available)
    return op_error(ORNIC_VERR_BAD_BLOCKS);
  wqe.blocks = w.num_blocks;
  if (w.reserved0 != 0 || w.reserved1 != 0)
    return op_error(ORNIC_VERR_RESERVED_NONZERO);
  if (w.num_sge > limits::kMaxRecvSge)
    return op_error(ORNIC_VERR_BAD_SGE_COUNT);
  if (wqe.blocks != ornic_recv_wqe_blocks(w.num_sge))
    return op_error(ORNIC_VERR_BAD_BLOCKS);
  const uint32_t in_block0 = std::min<uint32_t>(w.num_sge, ORNIC_RECV_SGES_BLOCK0);
  const uint32_t extra = w.num_sge - in_block0; // four per block from block 1
  for (uint32_t i = 0; i < in_block0; ++i)
    wqe.sges.push_back(WqeSge{le(w.sge[i].addr), le(w.sge[i].length), le(w.sge[i].lkey)});
  if (!read_sges(core, ring_memory, ring, index, 1, extra, wqe.sges))
    return WqeError{ORNIC_CQE_LOC_ACCESS_ERR, ORNIC_VERR_DMA, true};
  for (const WqeSge& sge : wqe.sges)
    wqe.capacity += sge.length;
  return std::nullopt;
}

} // namespace ornic
