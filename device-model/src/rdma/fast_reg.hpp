// Fast registration (memory.rst, "Fast registration"; wqe.rst, "Local operations"): the
// REG_MR and LOCAL_INV work requests and the remote invalidation of SEND_WITH_INV, which
// move a fast-reg MR between FREE and VALID (and, with memory_window.hpp, BIND_MW and the
// invalidation of type-2 windows: every local operation goes through here).
#pragma once

#include <cstdint>
#include <optional>

#include "core/nic_core.hpp"
#include "core/qp_transport.hpp"
#include "rdma/wqe_fetch.hpp"

namespace ornic {

inline bool is_local_op(uint8_t wqe_opcode) {
  return wqe_opcode == ORNIC_WQE_OP_REG_MR || wqe_opcode == ORNIC_WQE_OP_LOCAL_INV ||
         wqe_opcode == ORNIC_WQE_OP_BIND_MW;
}

// Validates a REG_MR / LOCAL_INV / BIND_MW WQE whose block 0 is `w` and fills `op` (op.reg
// for REG_MR, op.invalidate_rkey for LOCAL_INV, op.bind for BIND_MW). Only the shape is
// checked here; the MR or window is looked at when the WQE executes.
std::optional<WqeError> fetch_local_op(NicCore& core, const QueuePair& qp, const ornic_send_wqe& w,
                                       uint32_t index, SendOp& op);

// Executes a fetched local operation of QP `qpn` against the key table, in SQ order.
std::optional<WqeError> execute_local_op(NicCore& core, uint32_t qpn, const QueuePair& qp,
                                         const SendOp& op);

// SEND_WITH_INV received on QP `qpn`: `rkey` must name a VALID fast-reg MR of `pd`, or a
// VALID type-2 window of `pd` bound through `qpn`, which becomes FREE. ORNIC_VERR_NONE or
// why not.
uint8_t remote_invalidate(Resources& resources, uint32_t qpn, uint32_t pd, uint32_t rkey);

} // namespace ornic
