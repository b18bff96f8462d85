#include "rdma/memory_window.hpp"

#include "rdma/memory_access.hpp"

namespace ornic {
namespace {

constexpr uint8_t kBindFlags = ORNIC_WQE_FLAG_SIGNALED | ORNIC_WQE_FLAG_FENCE;
constexpr uint32_t kRemoteRights =
    ORNIC_ACCESS_REMOTE_WRITE | ORNIC_ACCESS_REMOTE_READ | ORNIC_ACCESS_REMOTE_ATOMIC;
// LOCAL_WRITE is what verbs consumers often pass along; a window has no local use, so it is
// taken and means nothing.
constexpr uint32_t kWindowRights = kRemoteRights | ORNIC_ACCESS_LOCAL_WRITE;

WqeError op_error(uint8_t vendor_err) {
  return WqeError{ORNIC_CQE_LOC_QP_OP_ERR, vendor_err, false};
}

WqeError bind_error(uint8_t vendor_err) {
  return WqeError{ORNIC_CQE_MW_BIND_ERR, vendor_err, false};
}

uint8_t variant_of(uint32_t key) {
  return static_cast<uint8_t>(key & ORNIC_MR_KEY_VARIANT_MASK);
}

// The MR a window may be bound to: a valid, non-physical MR of the QP's PD that allows
// binding, holding [addr, addr + length), and locally writable if the window may be written.
uint8_t check_target_mr(const Resources& resources, const QueuePair& qp,
                        const BindMwRequest& bind) {
  const MemoryRegion* mr = find_mr(resources, bind.mr_key); // never a window or a FREE MR
  if (mr == nullptr || mr->physical)
    return ORNIC_VERR_BAD_LKEY;
  if (mr->pd != qp.pd)
    return ORNIC_VERR_PD_MISMATCH;
  if (!(mr->access & ORNIC_ACCESS_MW_BIND))
    return ORNIC_VERR_MW_BIND;
  // IBTA C10-74: a window the peer may write needs an MR the owner may write.
  if ((bind.access & (ORNIC_ACCESS_REMOTE_WRITE | ORNIC_ACCESS_REMOTE_ATOMIC)) &&
      !(mr->access & ORNIC_ACCESS_LOCAL_WRITE))
    return ORNIC_VERR_MW_BIND;
  if (bind.addr + (bind.length - 1) < bind.addr || bind.addr < mr->iova ||
      bind.addr - mr->iova > mr->length || bind.length > mr->length - (bind.addr - mr->iova))
    return ORNIC_VERR_OUT_OF_BOUNDS;
  return ORNIC_VERR_NONE;
}

} // namespace

std::optional<WqeError> fetch_bind_mw(const QueuePair& qp, const ornic_send_wqe& w, SendOp& op) {
  // A window is for remote access over a connection: UD has none, and an XRC initiator binds
  // windows that the XRC target QPs of its node reach (xrc.rst "Memory windows").
  if (qp.type != ORNIC_QPT_RC && qp.type != ORNIC_QPT_XRC_INI)
    return op_error(ORNIC_VERR_BAD_OPCODE);
  if (w.num_blocks != 1)
    return op_error(ORNIC_VERR_BAD_BLOCKS);
  if (w.num_sge != 0)
    return op_error(ORNIC_VERR_BAD_SGE_COUNT);
  if (w.inline_len != 0)
    return op_error(ORNIC_VERR_BAD_INLINE_LEN);
  if ((w.flags & ~kBindFlags) || w.imm_data != 0 || w.invalidate_rkey != 0 ||
      w.bind_mw.reserved != 0)
    return op_error(ORNIC_VERR_RESERVED_NONZERO);
  BindMwRequest bind;
  bind.mw_key = le(w.bind_mw.mw_key);
  bind.mr_key = le(w.bind_mw.mr_key);
  bind.addr = le(w.bind_mw.addr);
  bind.length = le(w.bind_mw.length);
  bind.access = le(w.bind_mw.access);
  op.bind = bind;
  return std::nullopt;
}

std::optional<WqeError> execute_bind_mw(Resources& resources, uint32_t qpn, const QueuePair& qp,
                                        const BindMwRequest& bind) {
  MemoryRegion* entry = resources.mrs.find(bind.mw_key >> ORNIC_MR_KEY_INDEX_SHIFT);
  if (entry == nullptr || !entry->window)
    return bind_error(ORNIC_VERR_BAD_LKEY);
  MemoryWindow& window = *entry->window;
  if (entry->pd != qp.pd) // IBTA C10-72
    return bind_error(ORNIC_VERR_PD_MISMATCH);
  const bool type2 = window.type == ORNIC_MW_TYPE_2;
  if (type2 && window.bound) // o10-37.2.30: a type-2 window is invalidated before a new bind
    return bind_error(ORNIC_VERR_MW_STATE);
  if (bind.length == 0) {
    if (type2) // o10-37.2.40: only LOCAL_INV / SEND_WITH_INV / DEALLOC_MW free a type-2 window
      return bind_error(ORNIC_VERR_MW_TYPE);
    resources.unbind_window(window);
    entry->key_variant = variant_of(bind.mw_key);
    return std::nullopt;
  }
  if (bind.access & ~kWindowRights)
    return bind_error(ORNIC_VERR_ACCESS);
  if (const uint8_t why = check_target_mr(resources, qp, bind); why != ORNIC_VERR_NONE)
    return bind_error(why);
  resources.unbind_window(window); // a type-1 window may move to another MR or range
  const uint32_t mr_index = bind.mr_key >> ORNIC_MR_KEY_INDEX_SHIFT;
  ++resources.mrs.find(mr_index)->bound_windows;
  window.bound = true;
  window.mr_index = mr_index;
  window.qpn = type2 ? qpn : 0;
  window.xrc = type2 && qp.type == ORNIC_QPT_XRC_INI;
  window.addr = bind.addr;
  window.length = bind.length;
  window.access = bind.access & kRemoteRights;
  entry->key_variant = variant_of(bind.mw_key);
  if (type2)
    resources.note_type2_binding(qpn, bind.mw_key >> ORNIC_MR_KEY_INDEX_SHIFT);
  return std::nullopt;
}

uint8_t invalidate_window(Resources& resources, MemoryRegion& entry, uint32_t pd, uint32_t key,
                          std::optional<uint32_t> receiving_qpn) {
  MemoryWindow& window = *entry.window;
  if (entry.pd != pd)
    return ORNIC_VERR_PD_MISMATCH;
  if (entry.key_variant != variant_of(key))
    return ORNIC_VERR_BAD_LKEY;
  if (window.type != ORNIC_MW_TYPE_2) // o10-37.2.26: type 1 is unbound by a zero-length bind
    return ORNIC_VERR_MW_TYPE;
  if (!window.bound)
    return ORNIC_VERR_MW_STATE;
  // Type 2B: a peer reaches (and so invalidates) the window only through its QP.
  if (receiving_qpn && !resources.reaches_window(window, *receiving_qpn))
    return ORNIC_VERR_MW_QP;
  resources.unbind_window(window);
  return ORNIC_VERR_NONE;
}

} // namespace ornic
