#include "rdma/fast_reg.hpp"

#include <vector>

#include "core/device_limits.hpp"
#include "rdma/memory_window.hpp"

namespace ornic {
namespace {

constexpr uint8_t kLocalOpFlags = ORNIC_WQE_FLAG_SIGNALED | ORNIC_WQE_FLAG_FENCE;

WqeError op_error(uint8_t vendor_err) {
  return WqeError{ORNIC_CQE_LOC_QP_OP_ERR, vendor_err, false};
}

WqeError protection_error(uint8_t vendor_err) {
  return WqeError{ORNIC_CQE_LOC_PROT_ERR, vendor_err, false};
}

// The fast-reg MR a key's index names, whatever the key's variant.
MemoryRegion* fast_reg_mr(Resources& resources, uint32_t key) {
  MemoryRegion* mr = resources.mrs.find(key >> ORNIC_MR_KEY_INDEX_SHIFT);
  return mr != nullptr && mr->fast_reg ? mr : nullptr;
}

bool variant_matches(const MemoryRegion& mr, uint32_t key) {
  return mr.key_variant == (key & ORNIC_MR_KEY_VARIANT_MASK);
}

// The shape of a REG_MR request: everything that does not depend on the MR.
std::optional<WqeError> check_reg_shape(const FastRegRequest& reg) {
  if ((reg.access & ~ORNIC_ACCESS_ALL) != 0)
    return op_error(ORNIC_VERR_ACCESS);
  // IB rule, as for REG_MR on the admin queue.
  if ((reg.access & (ORNIC_ACCESS_REMOTE_WRITE | ORNIC_ACCESS_REMOTE_ATOMIC)) &&
      !(reg.access & ORNIC_ACCESS_LOCAL_WRITE))
    return op_error(ORNIC_VERR_ACCESS);
  if (reg.page_shift < ORNIC_PAGE_SHIFT_MIN || reg.page_shift > ORNIC_PAGE_SHIFT_MAX)
    return op_error(ORNIC_VERR_BAD_PAGE_LIST);
  if (reg.length == 0 || reg.length > limits::kMaxMrSize || reg.iova + (reg.length - 1) < reg.iova)
    return op_error(ORNIC_VERR_BAD_PAGE_LIST);
  if (reg.pbl_addr % sizeof(uint64_t) != 0)
    return op_error(ORNIC_VERR_BAD_PAGE_LIST);
  const uint64_t page_mask = (uint64_t{1} << reg.page_shift) - 1;
  const uint64_t span = (reg.iova & page_mask) + reg.length;
  if (reg.num_pages == 0 || reg.num_pages != (span + page_mask) >> reg.page_shift)
    return op_error(ORNIC_VERR_BAD_PAGE_LIST);
  return std::nullopt;
}

std::optional<WqeError> execute_reg_mr(NicCore& core, const QueuePair& qp,
                                       const FastRegRequest& reg) {
  MemoryRegion* mr = fast_reg_mr(core.resources, reg.key);
  if (mr == nullptr)
    return protection_error(ORNIC_VERR_BAD_LKEY);
  if (mr->pd != qp.pd)
    return protection_error(ORNIC_VERR_PD_MISMATCH);
  if (mr->valid) // IB: a VALID MR must be invalidated before it is registered again
    return protection_error(ORNIC_VERR_MR_STATE);
  if (reg.num_pages > mr->capacity)
    return protection_error(ORNIC_VERR_BAD_PAGE_LIST);
  std::vector<uint64_t> pages(reg.num_pages);
  if (!core.memory().read(reg.pbl_addr, std::as_writable_bytes(std::span(pages)))) {
    core.counters.inc(ORNIC_CNT_DMA_ERRORS);
    return WqeError{ORNIC_CQE_LOC_ACCESS_ERR, ORNIC_VERR_DMA, false};
  }
  const uint64_t page_mask = (uint64_t{1} << reg.page_shift) - 1;
  for (uint64_t& page : pages) {
    page = le(page);
    if ((page & page_mask) != 0)
      return protection_error(ORNIC_VERR_BAD_PAGE_LIST);
  }
  mr->key_variant = static_cast<uint8_t>(reg.key & ORNIC_MR_KEY_VARIANT_MASK);
  mr->iova = reg.iova;
  mr->length = reg.length;
  mr->access = reg.access;
  mr->first_page_offset = static_cast<uint32_t>(reg.iova & page_mask);
  mr->pages = QueueMemory::paged(std::move(pages), reg.page_shift);
  mr->valid = true;
  return std::nullopt;
}

// LOCAL_INV and SEND_WITH_INV (received on `receiving_qpn`): the same rules, reported as a
// vendor error.
uint8_t invalidate(Resources& resources, uint32_t pd, uint32_t key,
                   std::optional<uint32_t> receiving_qpn) {
  if (MemoryRegion* entry = resources.mrs.find(key >> ORNIC_MR_KEY_INDEX_SHIFT);
      entry != nullptr && entry->window)
    return invalidate_window(resources, *entry, pd, key, receiving_qpn);
  MemoryRegion* mr = fast_reg_mr(resources, key);
  if (mr == nullptr)
    return ORNIC_VERR_BAD_LKEY;
  if (mr->pd != pd)
    return ORNIC_VERR_PD_MISMATCH;
  if (!variant_matches(*mr, key))
    return ORNIC_VERR_BAD_LKEY;
  if (!mr->valid)
    return ORNIC_VERR_MR_STATE;
  mr->valid = false;
  mr->pages = QueueMemory{};
  return ORNIC_VERR_NONE;
}

} // namespace

std::optional<WqeError> fetch_local_op(NicCore& core, const QueuePair& qp, const ornic_send_wqe& w,
                                       uint32_t index, SendOp& op) {
  const bool reg = w.opcode == ORNIC_WQE_OP_REG_MR;
  // The page list holds raw DMA addresses: only the driver's own QPs may name them. A
  // LOCAL_INV names nothing but a key of the QP's PD, and user space invalidates its type-2
  // windows with it.
  if (reg && qp.db_page != ORNIC_DB_PAGE_KERNEL)
    return op_error(ORNIC_VERR_BAD_OPCODE);
  if (w.opcode == ORNIC_WQE_OP_BIND_MW)
    return fetch_bind_mw(qp, w, op);
  if (w.num_blocks != (reg ? 2 : 1))
    return op_error(ORNIC_VERR_BAD_BLOCKS);
  if (w.num_sge != 0)
    return op_error(ORNIC_VERR_BAD_SGE_COUNT);
  if (w.inline_len != 0)
    return op_error(ORNIC_VERR_BAD_INLINE_LEN);
  if ((w.flags & ~kLocalOpFlags) || w.imm_data != 0)
    return op_error(ORNIC_VERR_RESERVED_NONZERO);
  if (!reg) {
    if (!all_zero(bytes_of(w.reg_mr)))
      return op_error(ORNIC_VERR_RESERVED_NONZERO);
    op.invalidate_rkey = le(w.invalidate_rkey);
    return std::nullopt;
  }
  if (w.invalidate_rkey != 0 || !all_zero(bytes_of(w.reg_mr.reserved0)) ||
      !all_zero(bytes_of(w.reg_mr.reserved1)))
    return op_error(ORNIC_VERR_RESERVED_NONZERO);
  ornic_wqe_reg_mr_ext ext{};
  if (!qp.sq_memory.read(core.memory(), uint64_t{qp.sq.slot(index + 1)} * ORNIC_WQE_BLOCK_SIZE,
                         bytes_of(ext))) {
    core.counters.inc(ORNIC_CNT_DMA_ERRORS);
    return WqeError{ORNIC_CQE_LOC_ACCESS_ERR, ORNIC_VERR_DMA, true};
  }
  if (!all_zero(bytes_of(ext.reserved)))
    return op_error(ORNIC_VERR_RESERVED_NONZERO);
  FastRegRequest request;
  request.key = le(w.reg_mr.key);
  request.access = le(w.reg_mr.access);
  request.page_shift = w.reg_mr.page_shift;
  request.num_pages = le(w.reg_mr.num_pages);
  request.pbl_addr = le(ext.pbl_addr);
  request.iova = le(ext.iova);
  request.length = le(ext.length);
  if (auto error = check_reg_shape(request))
    return error;
  op.reg = request;
  return std::nullopt;
}

std::optional<WqeError> execute_local_op(NicCore& core, uint32_t qpn, const QueuePair& qp,
                                         const SendOp& op) {
  if (op.reg)
    return execute_reg_mr(core, qp, *op.reg);
  if (op.bind)
    return execute_bind_mw(core.resources, qpn, qp, *op.bind);
  // Any QP of the PD may invalidate a type-2 window (IBTA leaves LOCAL_INV unbound to a QP).
  const uint8_t why = invalidate(core.resources, qp.pd, op.invalidate_rkey, std::nullopt);
  if (why != ORNIC_VERR_NONE)
    return protection_error(why);
  return std::nullopt;
}

LocalOpOutcome run_local_op(NicCore& core, uint32_t qpn, QueuePair& qp, const SendOp& op) {
  RequesterState& req = qp.transport.req;
  if (!req.ops.empty())
    return {};
  if (const auto error = execute_local_op(core, qpn, qp, op)) {
    core.counters.inc(ORNIC_CNT_WQE_ERRORS);
    ++qp.counters.wqe_errors;
    core.log.warn("qp {}: {} WQE at {} failed (status {}, vendor_err {})", qpn,
                  op.opcode == ORNIC_WQE_OP_REG_MR    ? "REG_MR"
                  : op.opcode == ORNIC_WQE_OP_BIND_MW ? "BIND_MW"
                                                      : "LOCAL_INV",
                  op.wqe_index, error->status, error->vendor_err);
    return {LocalOpRun::failed, *error};
  }
  req.sq_next = op.wqe_index + op.blocks;
  qp.sq.consumer = req.sq_next;
  ++qp.counters.send_wqes;
  return {LocalOpRun::done, {}};
}

uint8_t remote_invalidate(Resources& resources, uint32_t qpn, uint32_t pd, uint32_t rkey) {
  return invalidate(resources, pd, rkey, qpn);
}

} // namespace ornic
