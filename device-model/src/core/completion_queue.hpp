// One completion queue (cqe.rst, doorbells.rst "Arming"): CQEs with a phase bit in a
// host ring, the consumer index from the CQ doorbell, one-shot arming. A timestamped CQ
// (ORNIC_CQ_FLAG_TIMESTAMP) writes 64-byte entries: the device clock, then the CQE.
#pragma once

#include <cstdint>

#include "core/device_counters.hpp"
#include "core/hw.hpp"
#include "core/queue_memory.hpp"
#include "core/ring_state.hpp"
#include "iba/receive_origin.hpp"

namespace ornic {

class CompletionQueue {
public:
  CompletionQueue(QueueMemory memory, unsigned log_depth, uint32_t eqn, uint32_t db_page,
                  bool timestamped = false, bool has_record = false)
      : memory_(std::move(memory)), eqn_(eqn), db_page_(db_page), timestamped_(timestamped) {
    ring_.log_depth = log_depth;
    ring_.has_record = has_record;
  }

  // Bytes of one ring entry.
  static uint32_t entry_size(bool timestamped) {
    return timestamped ? ORNIC_CQE_TS_SIZE : ORNIC_CQE_SIZE;
  }
  bool timestamped() const { return timestamped_; }
  // Bytes of the ring's memory: the entries and, with a consumer record (doorbells.rst,
  // "CQ consumer records"), the 64-byte block past them.
  static uint64_t ring_bytes(bool timestamped, unsigned log_depth, bool has_record) {
    return (uint64_t{entry_size(timestamped)} << log_depth) +
           (has_record ? sizeof(ornic_cq_db_record) : 0);
  }
  bool has_record() const { return ring_.has_record; }

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
  // Fills in the owner bit and writes the CQE; a timestamped CQ stamps it with `clock_ns`,
  // the device clock now, and with `origin` (a receive on an InfiniBand port).
  PostResult post(GuestMemory& memory, DeviceCounters& counters, ornic_cqe cqe, bool solicited,
                  uint64_t clock_ns = 0, const iba::ReceiveOrigin& origin = {});

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

  // The EQE of the event post() or doorbell() just reported was not written (a full EQ):
  // the unpolled CQEs notify again at the next arm (events.rst, "Overflow").
  void event_lost() { notified_ = ring_.consumer; }

private:
  enum class Arm { kNone, kNext, kSolicited };

  // A ring that looks full: takes the consumer record's index if it is acceptable. True
  // when the ring has room after all.
  bool room_from_record(GuestMemory& memory, DeviceCounters& counters);

  QueueMemory memory_;
  RingState ring_;
  uint32_t eqn_;
  uint32_t db_page_;
  bool timestamped_;
  Arm arm_ = Arm::kNone;
  uint32_t notified_ = 0; // the producer index when the last event was delivered
  bool in_error_ = false;
};

} // namespace ornic
