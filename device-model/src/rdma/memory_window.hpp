// Memory windows on the data path (memory.rst "Memory windows", wqe.rst "BIND_MW"): binding
// from a send queue and the invalidation of type-2 windows by LOCAL_INV and SEND_WITH_INV.
// The checks of a remote request through a window live with the other access checks
// (memory_access.hpp).
#pragma once

#include <cstdint>
#include <optional>

#include "core/qp_transport.hpp"
#include "core/resources.hpp"
#include "rdma/wqe_fetch.hpp"

namespace ornic {

// The shape of a BIND_MW WQE whose block 0 is `w` (one block, RC or XRC_INI, reserved fields
// zero); fills op.bind. The window and the MR are looked at when it executes.
std::optional<WqeError> fetch_bind_mw(const QueuePair& qp, const ornic_send_wqe& w, SendOp& op);

// Binds (or, type 1 with length 0, unbinds) the window for QP `qpn`, in SQ order. On any
// error the window is unchanged and the error is MW_BIND_ERR.
std::optional<WqeError> execute_bind_mw(Resources& resources, uint32_t qpn, const QueuePair& qp,
                                        const BindMwRequest& bind);

// LOCAL_INV (no receiving QP) or SEND_WITH_INV (received on `receiving_qpn`) of the window
// `entry` under `key` by a QP of `pd`: ORNIC_VERR_NONE and the window is FREE, or why not.
uint8_t invalidate_window(Resources& resources, MemoryRegion& entry, uint32_t pd, uint32_t key,
                          std::optional<uint32_t> receiving_qpn);

} // namespace ornic
