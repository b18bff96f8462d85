// One event queue (events.rst): EQEs with a phase bit in a host ring, an arm flag and an
// MSI-X vector. EQ 0 is the async EQ on vector 0; completion EQs use vectors 1..31.
#pragma once

#include <cstdint>

#include "core/device_counters.hpp"
#include "core/queue_memory.hpp"
#include "core/ring_state.hpp"
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

  // The eq_storm fault (fault_injection.hpp): from now on every free slot is filled with
  // copies of the last EQE posted, at once and after every doorbell, with an interrupt each
  // time, armed or not. The memory must outlive the EQ (it does: both go at reset).
  void start_storm(GuestMemory& memory, InterruptSink& irqs, DeviceCounters& counters);
  bool storming() const { return storm_memory_ != nullptr; }

private:
  void interrupt(InterruptSink& irqs, DeviceCounters& counters);
  void storm(InterruptSink& irqs, DeviceCounters& counters);

  QueueMemory memory_;
  RingState ring_;
  unsigned vector_ = 0;
  bool armed_ = false;
  ornic_eqe last_{};                    // the last EQE posted, for a storm
  GuestMemory* storm_memory_ = nullptr; // non-null: storming
};

} // namespace ornic
