#include "core/nic_core.hpp"

#include <vector>

namespace ornic {
namespace {

// Until attach(), the device has no bus to master and no interrupts to raise.
class NoGuestMemory final : public GuestMemory {
public:
  [[nodiscard]] bool read(uint64_t, std::span<std::byte> out) override { return out.empty(); }
  [[nodiscard]] bool write(uint64_t, std::span<const std::byte> in) override { return in.empty(); }
  [[nodiscard]] bool persist(uint64_t, uint64_t size) override { return size == 0; }
};

class NoInterrupts final : public InterruptSink {
public:
  void raise(unsigned) override {}
};

NoGuestMemory no_guest_memory;
NoInterrupts no_interrupts;

} // namespace

uint8_t cqe_opcode_for_send(uint8_t wqe_opcode) {
  switch (wqe_opcode) {
  case ORNIC_WQE_OP_RDMA_WRITE:
  case ORNIC_WQE_OP_RDMA_WRITE_IMM:
    return ORNIC_CQE_OP_RDMA_WRITE;
  case ORNIC_WQE_OP_RDMA_READ:
  case ORNIC_WQE_OP_RDMA_READ_INV:
    return ORNIC_CQE_OP_RDMA_READ;
  case ORNIC_WQE_OP_ATOMIC_CMP_SWP:
    return ORNIC_CQE_OP_COMP_SWAP;
  case ORNIC_WQE_OP_ATOMIC_FETCH_ADD:
    return ORNIC_CQE_OP_FETCH_ADD;
  case ORNIC_WQE_OP_REG_MR:
    return ORNIC_CQE_OP_REG_MR;
  case ORNIC_WQE_OP_LOCAL_INV:
    return ORNIC_CQE_OP_LOCAL_INV;
  case ORNIC_WQE_OP_FLUSH:
    return ORNIC_CQE_OP_FLUSH;
  case ORNIC_WQE_OP_ATOMIC_WRITE:
    return ORNIC_CQE_OP_ATOMIC_WRITE;
  case ORNIC_WQE_OP_BIND_MW:
    return ORNIC_CQE_OP_BIND_MW;
  default:
    return ORNIC_CQE_OP_SEND;
  }
}

NicCore::NicCore(const MacAddress& mac_address)
    : permanent_mac(mac_address), mac(mac_address), eth_mtu(limits::kDefaultEthMtu),
      memory_(&no_guest_memory), irqs_(&no_interrupts) {}

void NicCore::reset() {
  counters.clear();
  resources.clear();
  async_eq.reset();
  mac = permanent_mac;
  eth_mtu = limits::kDefaultEthMtu;
  cc = cc::CcConfig{};
  qos.reset();
  ib.reset_config(); // the owner takes the logical state from the link (ib_physical_link)
  fatal_code_ = ORNIC_FATAL_NONE;
  admin_stalled = false;
  flushes_left_.clear();
  flush_budget_ = limits::kFlushWqesPerTurn;
  flush_posted_ = false;
}

uint64_t NicCore::caps() const {
  // An iWARP port frames no RoCE: no RoCE v1, VLAN GIDs or ECN/DCQCN of RoCEv2.
  if (iwarp)
    return (limits::kCaps & ~(ORNIC_CAP_CC | ORNIC_CAP_ROCE_V1 | ORNIC_CAP_ROCE_VLAN)) |
           ORNIC_CAP_IWARP;
  if (!ib.enabled)
    return limits::kCaps;
  // No Ethernet function, no IP GIDs, no ECN/DCQCN on an InfiniBand port.
  return (limits::kCaps & ~(ORNIC_CAP_ETH | ORNIC_CAP_IPV6_GID | ORNIC_CAP_CC | ORNIC_CAP_ROCE_V1 |
                            ORNIC_CAP_ROCE_VLAN | ORNIC_CAP_DCB)) |
         ORNIC_CAP_IB;
}

void NicCore::set_ib_port_state(uint8_t state) {
  if (ib.logical_state == state)
    return;
  const bool was_active = ib.active();
  ib.logical_state = state;
  if (was_active != ib.active())
    post_async_event(ORNIC_EQE_PORT_STATE, 1, state);
}

void NicCore::ib_physical_link(bool up) {
  if (up) {
    ib.phys_state = IbPhysState::link_up;
    if (ib.logical_state == ORNIC_PORT_DOWN)
      set_ib_port_state(ORNIC_PORT_INIT);
    return;
  }
  if (ib.phys_state == IbPhysState::link_up)
    ++ib.counters.link_downed;
  ib.phys_state = IbPhysState::polling;
  set_ib_port_state(ORNIC_PORT_DOWN);
}

EventQueue* NicCore::event_queue(uint32_t eqn) {
  if (eqn == 0)
    return async_eq ? &*async_eq : nullptr;
  return resources.eqs.find(eqn);
}

void NicCore::complete(uint32_t cqn, const ornic_cqe& entry, bool solicited,
                       const iba::ReceiveOrigin& origin) {
  CompletionQueue* cq = resources.cqs.find(cqn);
  if (cq == nullptr || fatal())
    return; // FATAL: no CQE is written any more
  ornic_cqe cqe = entry;
  if (faults.cqe)
    corrupt_cqe(cqe);
  const auto result =
      cq->post(memory(), counters, cqe, solicited, cq->timestamped() ? clock_ns() : 0, origin);
  switch (result.outcome) {
  case CompletionQueue::Outcome::kWritten:
    if (result.notify) {
      EventQueue* eq = event_queue(cq->eqn());
      if (eq == nullptr || eq->post(memory(), irqs(), counters, ORNIC_EQE_COMPLETION, cqn, 0) !=
                               EventQueue::PostResult::kPosted)
        cq->event_lost();
      if (eq != nullptr && faults.eq_storm && cq->eqn() != 0)
        eq->start_storm(memory(), irqs(), counters);
    }
    return;
  case CompletionQueue::Outcome::kDropped:
    return;
  case CompletionQueue::Outcome::kOverflow:
  case CompletionQueue::Outcome::kDmaError: {
    const bool overflow = result.outcome == CompletionQueue::Outcome::kOverflow;
    log.warn("cq {}: {} — CQ in error", cqn, overflow ? "overflow" : "CQE write failed");
    post_async_event(ORNIC_EQE_CQ_ERROR, cqn,
                     overflow ? ORNIC_CQ_ERROR_OVERFLOW : ORNIC_CQ_ERROR_DMA);
    std::vector<uint32_t> victims;
    for (auto& [qpn, qp] : resources.qps)
      if ((qp.send_cqn == cqn || qp.recv_cqn == cqn) && qp.state != ORNIC_QPS_ERR)
        victims.push_back(qpn);
    for (uint32_t qpn : victims)
      move_qp_to_error(qpn);
    return;
  }
  }
}

void NicCore::post_async_event(ornic_eqe_type type, uint32_t object, uint32_t data) {
  // FATAL: DEVICE_FATAL is the last EQE the device writes.
  if (!async_eq || (fatal() && type != ORNIC_EQE_DEVICE_FATAL))
    return;
  const auto result = async_eq->post(memory(), irqs(), counters, type, object, data);
  if (result == EventQueue::PostResult::kDmaError && type != ORNIC_EQE_DEVICE_FATAL)
    enter_fatal(ORNIC_FATAL_AEQ_DMA);
}

void NicCore::post_async_entry(const ornic_eqe& eqe) {
  if (!async_eq || fatal())
    return;
  if (async_eq->post_entry(memory(), irqs(), counters, eqe) == EventQueue::PostResult::kDmaError)
    enter_fatal(ORNIC_FATAL_AEQ_DMA);
}

uint8_t NicCore::new_key_variant(uint32_t index) {
  auto& page = last_key_variant_[(index / kKeyVariantPage) % last_key_variant_.size()];
  if (!page)
    page = std::make_unique<std::array<uint8_t, kKeyVariantPage>>();
  uint8_t& last = (*page)[index % kKeyVariantPage];
  // One of the 255 bytes other than the last, uniformly.
  auto drawn = static_cast<uint8_t>(std::uniform_int_distribution<unsigned>(0, 254)(key_random_));
  if (drawn >= last)
    ++drawn;
  last = drawn;
  return drawn;
}

void NicCore::enter_fatal(ornic_fatal_code code) {
  if (fatal())
    return;
  fatal_code_ = code;
  spdlog::error("ornic: device fatal error {}", static_cast<int>(code));
  post_async_event(ORNIC_EQE_DEVICE_FATAL, 0, code);
  irqs().raise(ORNIC_MSIX_VECTOR_ADMIN);
}

void NicCore::move_qp_to_error(uint32_t qpn) {
  QueuePair* qp = resources.qps.find(qpn);
  if (qp == nullptr)
    return;
  const bool entering = qp->state != ORNIC_QPS_ERR;
  qp->state = ORNIC_QPS_ERR;
  qp->attr.state = ORNIC_QPS_ERR;
  if (transport != nullptr)
    transport->qp_entering_error(qpn);
  flush_qp(qpn);
  // IBTA's Last WQE Reached (events.rst): a QP in ERR takes nothing more from its SRQ, and
  // the WQE it had taken was flushed above, so its consumer may now drain and destroy it.
  qp = resources.qps.find(qpn);
  if (entering && qp != nullptr && qp->srqn)
    post_async_event(ORNIC_EQE_QP_LAST_WQE_REACHED, qpn, 0);
}

void NicCore::move_qp_to_send_error(uint32_t qpn) {
  QueuePair* qp = resources.qps.find(qpn);
  if (qp == nullptr || qp->state == ORNIC_QPS_ERR)
    return;
  qp->state = ORNIC_QPS_SQE;
  qp->attr.state = ORNIC_QPS_SQE;
  flush_qp(qpn);
}

void NicCore::flush_qp(uint32_t qpn) {
  QueuePair* qp = resources.qps.find(qpn);
  if (qp == nullptr || (qp->state != ORNIC_QPS_ERR && qp->state != ORNIC_QPS_SQE))
    return;
  // WQEs the engine had started are still in the ring from the consumer index on.
  qp->transport.req.ops.clear();
  qp->transport.req.sent_ops = 0;
  qp->transport.req.response_ops = 0;
  if (qp->state == ORNIC_QPS_ERR) {
    ReceiveInProgress& partial = qp->transport.resp.recv;
    if (partial.active && partial.from_srq) {
      // Already taken from the SRQ: only this QP can still complete it, on the CQ the
      // receive was begun for (an XRC SRQ's own CQ, with its number: xrc.rst).
      ornic_cqe cqe{};
      cqe.wr_id = to_le(partial.wr_id);
      cqe.qpn = to_le(qpn);
      cqe.wqe_index = to_le(static_cast<uint16_t>(partial.wqe_index));
      cqe.opcode = ORNIC_CQE_OP_RECV;
      cqe.status = ORNIC_CQE_WR_FLUSH_ERR;
      if (partial.xrc_srqn) {
        cqe.flags = ORNIC_CQE_FLAG_XRC;
        cqe.src_qp = to_le(*partial.xrc_srqn);
      }
      const uint32_t cqn = partial.cqn;
      partial = ReceiveInProgress{};
      complete(cqn, cqe);
      qp = resources.qps.find(qpn); // the CQE may have moved QPs to ERR
      if (qp == nullptr)
        return;
    }
    qp->transport.resp.recv = ReceiveInProgress{};
  }
  if (flushes_left_.contains(qpn))
    return; // continue_flushes goes on in order
  if (!flush_within_budget(qpn, *qp)) {
    flushes_left_.insert(qpn);
    if (!flush_posted_) {
      flush_posted_ = true;
      post_work([this] { continue_flushes(); });
    }
  }
}

// The send queue, then (in ERR, without an SRQ) the receive queue, oldest WQE first.
// With doorbell records, a flushed ring is left with kick set (an ERR or SQE queue is
// only looked at again on a doorbell) and its record read once more after that, so WQEs
// posted without a doorbell before the kick became visible are flushed too.
bool NicCore::flush_within_budget(uint32_t qpn, QueuePair& qp) {
  for (;;) {
    const bool send_done = flush_send_queue(qpn, qp);
    qp.transport.req.sq_next = qp.sq.consumer;
    if (!send_done)
      return false;
    if (!sq_record(qp).going_idle())
      break;
  }
  if (qp.state != ORNIC_QPS_ERR || qp.srqn)
    return true;
  for (;;) {
    if (!flush_receive_queue(qpn, qp))
      return false;
    if (!rq_record(qp).going_idle())
      return true;
  }
}

void NicCore::continue_flushes() {
  flush_posted_ = false;
  flush_budget_ = limits::kFlushWqesPerTurn;
  while (!flushes_left_.empty()) {
    const uint32_t qpn = *flushes_left_.begin();
    QueuePair* qp = resources.qps.find(qpn);
    // Destroyed or reset meanwhile (a reset QP's rings start over): nothing left.
    if (qp == nullptr || fatal() || (qp->state != ORNIC_QPS_ERR && qp->state != ORNIC_QPS_SQE)) {
      flushes_left_.erase(flushes_left_.begin());
      continue;
    }
    if (!flush_within_budget(qpn, *qp))
      break;
    flushes_left_.erase(qpn);
  }
  if (!flushes_left_.empty() && !flush_posted_) {
    flush_posted_ = true;
    post_work([this] { continue_flushes(); });
  } else if (flushes_left_.empty()) {
    flush_budget_ = limits::kFlushWqesPerTurn;
  }
}

// Reads each outstanding WQE only for what its flush CQE needs (wr_id, size, opcode).
// A WQE whose block count is nonsense is flushed as one block: the ring still drains.
bool NicCore::flush_send_queue(uint32_t qpn, QueuePair& qp) {
  while (qp.sq.used() != 0) {
    if (post_work && flush_budget_ == 0)
      return false;
    if (flush_budget_ != 0)
      --flush_budget_;
    ornic_send_wqe wqe{};
    const uint32_t index = qp.sq.consumer;
    const bool readable = qp.sq_memory.read(
        memory(), uint64_t{qp.sq.slot(index)} * ORNIC_WQE_BLOCK_SIZE, bytes_of(wqe));
    uint32_t blocks = readable ? wqe.num_blocks : 1;
    if (blocks == 0 || blocks > ORNIC_WQE_MAX_BLOCKS || blocks > qp.sq.used())
      blocks = 1;
    qp.sq.consumer += blocks;
    ornic_cqe cqe{};
    cqe.wr_id = readable ? wqe.wr_id : 0;
    cqe.qpn = to_le(qpn);
    cqe.wqe_index = to_le(static_cast<uint16_t>(index));
    cqe.opcode = cqe_opcode_for_send(wqe.opcode);
    cqe.status = ORNIC_CQE_WR_FLUSH_ERR;
    cqe.vendor_err = readable ? ORNIC_VERR_NONE : ORNIC_VERR_DMA;
    complete(qp.send_cqn, cqe);
  }
  return true;
}

bool NicCore::flush_receive_queue(uint32_t qpn, QueuePair& qp) {
  while (qp.rq.used() != 0) {
    if (post_work && flush_budget_ == 0)
      return false;
    if (flush_budget_ != 0)
      --flush_budget_;
    ornic_recv_wqe wqe{};
    const uint32_t index = qp.rq.consumer;
    const bool readable = qp.rq_memory.read(
        memory(), uint64_t{qp.rq.slot(index)} * ORNIC_WQE_BLOCK_SIZE, bytes_of(wqe));
    uint32_t blocks = readable ? wqe.num_blocks : 1;
    if (blocks == 0 || blocks > ORNIC_WQE_MAX_BLOCKS || blocks > qp.rq.used())
      blocks = 1;
    qp.rq.consumer += blocks;
    ornic_cqe cqe{};
    cqe.wr_id = readable ? wqe.wr_id : 0;
    cqe.qpn = to_le(qpn);
    cqe.wqe_index = to_le(static_cast<uint16_t>(index));
    cqe.opcode = ORNIC_CQE_OP_RECV;
    cqe.status = ORNIC_CQE_WR_FLUSH_ERR;
    cqe.vendor_err = readable ? ORNIC_VERR_NONE : ORNIC_VERR_DMA;
    complete(qp.recv_cqn, cqe);
  }
  return true;
}

} // namespace ornic
