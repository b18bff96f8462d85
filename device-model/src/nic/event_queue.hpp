// One event queue (events.rst): EQEs with a phase bit in a host ring, an arm flag and an
// MSI-X vector. EQ 0 is the async EQ on vector 0; completion EQs use vectors 1..31.
#pragma once

#include <cstdint>

#include "nic/device_counters.hpp"
#include "nic/queue_memory.hpp"
#include "nic/ring_state.hpp"
#include "pci/function.hpp"

namespace ornic {

class EventQueue {
public:
  EventQueue() = default;
  EventQueue(QueueMemory memory, unsigned log_depth, unsigned vector)
      : memory_(std::move(memory)), vector_(vector) {
    ring_.log_depth = log_depth;
  }

  unsigned vector() const { return vector_; }
  const RingState& ring() const { return ring_; }
  size_t page_count() const { return memory_.page_count(); }

  enum class PostResult { kPosted, kOverflow, kDmaError };
  // Writes one EQE (type/object/data; owner set here) and interrupts if armed.
  PostResult post(GuestMemory& memory, InterruptSink& irqs, DeviceCounters& counters,
                  ornic_eqe_type type, uint32_t object, uint32_t data);
  // Writes a whole EQE as given (a type with its own layout); owner set here.
  PostResult post_entry(GuestMemory& memory, InterruptSink& irqs, DeviceCounters& counters,
                        ornic_eqe eqe);

  // EQ doorbell: consumer index plus optional arm. False if the index is impossible.
  bool doorbell(InterruptSink& irqs, DeviceCounters& counters, uint32_t consumer, bool arm);

private:
  void interrupt(InterruptSink& irqs, DeviceCounters& counters);

  QueueMemory memory_;
  RingState ring_;
  unsigned vector_ = 0;
  bool armed_ = false;
};

} // namespace ornic
