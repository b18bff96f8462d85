#include "core/event_queue.hpp"

#include "core/hw.hpp"

namespace ornic {

EventQueue::PostResult EventQueue::post(GuestMemory& memory, InterruptSink& irqs,
                                        DeviceCounters& counters, ornic_eqe_type type,
                                        uint32_t object, uint32_t data) {
  ornic_eqe eqe{};
  eqe.type = static_cast<uint8_t>(type);
  eqe.object = to_le(object);
  eqe.data = to_le(data);
  return post_entry(memory, irqs, counters, eqe);
}

EventQueue::PostResult EventQueue::post_entry(GuestMemory& memory, InterruptSink& irqs,
                                              DeviceCounters& counters, ornic_eqe eqe) {
  if (ring_.full()) {
    counters.inc(ORNIC_CNT_EQ_OVERFLOW);
    return PostResult::kOverflow;
  }
  eqe.owner = ring_.phase(ring_.producer) ? ORNIC_EQE_OWNER_PHASE : 0;
  if (!memory_.write(memory, uint64_t{ring_.slot(ring_.producer)} * ORNIC_EQE_SIZE,
                     bytes_of(eqe))) {
    counters.inc(ORNIC_CNT_DMA_ERRORS);
    return PostResult::kDmaError;
  }
  ++ring_.producer;
  counters.inc(ORNIC_CNT_EQES);
  last_ = eqe;
  if (armed_)
    interrupt(irqs, counters);
  return PostResult::kPosted;
}

bool EventQueue::doorbell(InterruptSink& irqs, DeviceCounters& counters, uint32_t consumer,
                          bool arm) {
  if (!ring_.consumer_acceptable(consumer))
    return false;
  ring_.consumer = consumer;
  if (storm_memory_ != nullptr) {
    storm(irqs, counters);
    return true;
  }
  if (arm) {
    armed_ = true;
    // Events that arrived while the driver was busy must not wait for the next one.
    if (ring_.used() != 0)
      interrupt(irqs, counters);
  }
  return true;
}

void EventQueue::start_storm(GuestMemory& memory, InterruptSink& irqs, DeviceCounters& counters) {
  if (storm_memory_ != nullptr)
    return;
  storm_memory_ = &memory;
  storm(irqs, counters);
}

void EventQueue::storm(InterruptSink& irqs, DeviceCounters& counters) {
  bool wrote = false;
  while (!ring_.full()) {
    ornic_eqe eqe = last_;
    eqe.owner = ring_.phase(ring_.producer) ? ORNIC_EQE_OWNER_PHASE : 0;
    if (!memory_.write(*storm_memory_, uint64_t{ring_.slot(ring_.producer)} * ORNIC_EQE_SIZE,
                       bytes_of(eqe))) {
      counters.inc(ORNIC_CNT_DMA_ERRORS);
      break;
    }
    ++ring_.producer;
    counters.inc(ORNIC_CNT_EQES);
    wrote = true;
  }
  if (wrote)
    interrupt(irqs, counters);
}

void EventQueue::interrupt(InterruptSink& irqs, DeviceCounters& counters) {
  armed_ = false;
  counters.inc(ORNIC_CNT_INTERRUPTS);
  irqs.raise(vector_);
}

} // namespace ornic
