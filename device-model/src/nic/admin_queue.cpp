#include "nic/admin_queue.hpp"

#include <bit>

#include "core/device_limits.hpp"

namespace ornic {

void AdminQueue::start(uint64_t sq_base, uint64_t cq_base, uint32_t depth) {
  stop();
  sq_base_ = sq_base;
  cq_base_ = cq_base;
  sq_ = RingState{};
  cq_ = RingState{};
  sq_.log_depth = cq_.log_depth = static_cast<unsigned>(std::countr_zero(depth));
  running_ = true;
}

void AdminQueue::stop() {
  lifetime_.invalidate();
  running_ = false;
  scheduled_ = false;
}

void AdminQueue::doorbell(uint32_t tail) {
  if (!running_ || core_.fatal())
    return;
  if (tail - sq_.consumer > sq_.depth()) {
    // The driver claims more commands than the ring holds: nothing it says can be trusted.
    stop();
    core_.enter_fatal(ORNIC_FATAL_AQ_BAD_TAIL);
    return;
  }
  sq_.producer = tail;
  schedule();
}

void AdminQueue::schedule() {
  if (scheduled_ || sq_.used() == 0)
    return;
  scheduled_ = true;
  loop_.post([this, ticket = lifetime_.ticket()] {
    if (ticket.valid())
      run_batch();
  });
}

void AdminQueue::run_batch() {
  scheduled_ = false;
  unsigned completed = 0;
  while (running_ && !core_.fatal() && !core_.admin_stalled && sq_.used() != 0 &&
         completed < limits::kAdminCommandsPerTurn) {
    if (!run_one())
      return;
    ++completed;
  }
  if (completed != 0) {
    core_.counters.inc(ORNIC_CNT_INTERRUPTS);
    core_.irqs().raise(ORNIC_MSIX_VECTOR_ADMIN);
  }
  if (!core_.admin_stalled) // the fault: commands stay in the SQ, never completed
    schedule();
}

bool AdminQueue::run_one() {
  ornic_admin_sqe command{};
  const uint64_t sq_slot = sq_base_ + uint64_t{sq_.slot(sq_.consumer)} * ORNIC_AQ_SQE_SIZE;
  if (!core_.memory().read(sq_slot, bytes_of(command))) {
    core_.counters.inc(ORNIC_CNT_DMA_ERRORS);
    stop();
    core_.enter_fatal(ORNIC_FATAL_AQ_DMA);
    return false;
  }
  ++sq_.consumer;
  const AdminResult result = commands_.execute(command);

  ornic_admin_cqe completion{};
  completion.command_id = command.hdr.command_id;
  completion.status = static_cast<uint8_t>(result.status);
  completion.sq_head = to_le(static_cast<uint16_t>(sq_.consumer));
  completion.result0 = to_le(result.result0);
  completion.result1 = to_le(result.result1);
  completion.flags = cq_.phase(cq_.producer) ? ORNIC_AQ_CQE_FLAG_PHASE : 0;
  const uint64_t cq_slot = cq_base_ + uint64_t{cq_.slot(cq_.producer)} * ORNIC_AQ_CQE_SIZE;
  if (!core_.memory().write(cq_slot, bytes_of(completion))) {
    core_.counters.inc(ORNIC_CNT_DMA_ERRORS);
    stop();
    core_.enter_fatal(ORNIC_FATAL_AQ_DMA);
    return false;
  }
  ++cq_.producer;
  return true;
}

} // namespace ornic
