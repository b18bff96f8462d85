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

// What run_local_op did with the local operation at the head of an SQ.
enum class LocalOpRun : uint8_t {
  waiting, // earlier WQEs have not all completed: nothing done
  done,    // executed; the SQ is past it (its CQE is the caller's to write)
  failed,  // `error` says why (counted); the caller completes it and moves the QP to ERR
};
struct LocalOpOutcome {
  LocalOpRun run = LocalOpRun::waiting;
  WqeError error{};
};

// The fetched local operation `op`, the next WQE of QP `qpn`'s SQ, in SQ order on every
// transport: it executes once every earlier WQE has completed (an implicit fence: a
// LOCAL_INV never pulls an MR from under a WQE still using it), and before the next WQE
// starts, so that one may already use the new key.
LocalOpOutcome run_local_op(NicCore& core, uint32_t qpn, QueuePair& qp, const SendOp& op);

// SEND_WITH_INV received on QP `qpn`: `rkey` must name a VALID fast-reg MR of `pd`, or a
// VALID type-2 window of `pd` bound through `qpn`, which becomes FREE. ORNIC_VERR_NONE or
// why not.
uint8_t remote_invalidate(Resources& resources, uint32_t qpn, uint32_t pd, uint32_t rkey);

} // namespace ornic
