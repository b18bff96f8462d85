// Reads send and receive WQEs from their rings and validates them as wqe.rst says, so the
// engine only ever works on well-formed requests with checked local buffers.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/nic_core.hpp"
#include "core/qp_transport.hpp"

namespace ornic {

struct WqeError {
  uint8_t status = ORNIC_CQE_LOC_QP_OP_ERR; // ornic_cqe_status
  uint8_t vendor_err = ORNIC_VERR_NONE;
  bool ring_unreadable = false; // the ring itself failed DMA: QP_FATAL, not a CQE
};

// The send WQE whose first block is `index` (< qp.sq.producer). On error `op` still holds
// what the error CQE needs (wr_id, opcode, wqe_index, blocks to skip).
std::optional<WqeError> fetch_send_wqe(NicCore& core, const QueuePair& qp, uint32_t index,
                                       SendOp& op);

struct RecvWqe {
  uint32_t index = 0;
  uint32_t blocks = 1;
  uint64_t wr_id = 0;
  std::vector<WqeSge> sges;
  uint64_t capacity = 0; // sum of SGE lengths
};

// A receive WQE at `index` of an RQ or SRQ ring holding `available` blocks from there on.
std::optional<WqeError> fetch_recv_wqe(NicCore& core, const QueueMemory& ring_memory,
                                       const RingState& ring, uint32_t index, uint32_t available,
                                       RecvWqe& wqe);

} // namespace ornic
