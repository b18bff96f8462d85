// One completion queue (cqe.rst, doorbells.rst "Arming"): CQEs with a phase bit in a
// host ring, the consumer index from the CQ doorbell, one-shot arming.
#pragma once

#include <cstdint>

#include "nic/device_counters.hpp"
#include "nic/hw.hpp"
#include "nic/queue_memory.hpp"
#include "nic/ring_state.hpp"

namespace ornic {

class CompletionQueue {
public:
  CompletionQueue(QueueMemory memory, unsigned log_depth, uint32_t eqn, uint32_t db_page)
      : memory_(std::move(memory)), eqn_(eqn), db_page_(db_page) {
    ring_.log_depth = log_depth;
  }

  uint32_t eqn() const { return eqn_; }
  uint32_t db_page() const { return db_page_; }
  bool in_error() const { return in_error_; }
  const RingState& ring() const { return ring_; }
  size_t page_count() const { return memory_.page_count(); }

  enum class Outcome { kWritten, kOverflow, kDmaError, kDropped };
  struct PostResult {
    Outcome outcome;
    bool notify; // the CQ was armed for this CQE: write a COMPLETION EQE
  };
  // Fills in the owner bit and writes the CQE.
  PostResult post(GuestMemory& memory, DeviceCounters& counters, ornic_cqe cqe, bool solicited);

  struct DoorbellResult {
    bool accepted;
    bool notify;
  };
  DoorbellResult doorbell(uint32_t consumer, uint32_t flags);

  // RESIZE_CQ (admin.rst): moves the CQEs software has not polled (from `consumer` on) to
  // slots 0.. of `memory` with the phase of their new index; the CQ continues there with
  // consumer 0. Arming, EQ and doorbell page stay. On failure nothing changed.
  struct ResizeResult {
    ornic_admin_status status;
    uint32_t moved;
  };
  ResizeResult resize(GuestMemory& guest, QueueMemory memory, unsigned log_depth,
                      uint32_t consumer);

private:
  enum class Arm { kNone, kNext, kSolicited };

  QueueMemory memory_;
  RingState ring_;
  uint32_t eqn_;
  uint32_t db_page_;
  Arm arm_ = Arm::kNone;
  bool in_error_ = false;
};

} // namespace ornic
