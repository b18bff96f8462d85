// Doorbell records (doorbells.rst, "Doorbell records"): the device's side of doorbell
// suppression. Software writes each SQ/RQ/SRQ's producer index into a record in host memory
// and rings the MMIO doorbell only while the device has set the record's kick flag; the
// device reads the record whenever it runs out of known work and sets kick before it goes
// idle, then reads the record once more, so a WQE posted without a doorbell is never left
// behind.
#pragma once

#include <cstdint>

#include "core/device_counters.hpp"
#include "core/queue_memory.hpp"
#include "core/ring_state.hpp"
#include "dma/guest_memory.hpp"

namespace ornic {

class DoorbellRecord {
public:
  DoorbellRecord(GuestMemory& memory, DeviceCounters& counters, const QueueMemory& ring_memory,
                 RingState& ring)
      : memory_(memory), counters_(counters), ring_memory_(ring_memory), ring_(ring) {}

  // Bytes a ring of 2^log_depth blocks needs, with its record when it has one.
  static uint64_t ring_bytes(unsigned log_depth, bool with_record);

  enum class Read { unchanged, advanced, refused };
  // Takes the record's producer index if it is acceptable (forward, at most a ring ahead
  // of the consumer). An unreadable record or an impossible index is counted
  // (DB_RECORD_ERRORS) and changes nothing: the ring still works with MMIO doorbells.
  Read refresh();
  // Writes kick (only when it changes). False when the record cannot be written.
  bool set_kick(bool kick);
  // The device is about to stop looking at this ring: kick first, then one more read.
  // True when work appeared meanwhile (the caller carries on).
  bool going_idle();
  // RESET / a new ring: the record says `producer` (the device's) and `kick`.
  bool rewrite(bool kick);

private:
  uint64_t offset() const;

  GuestMemory& memory_;
  DeviceCounters& counters_;
  const QueueMemory& ring_memory_;
  RingState& ring_;
};

} // namespace ornic
