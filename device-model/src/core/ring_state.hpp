// Free-running producer/consumer indices of one ring of 2^log_depth entries, and the
// phase bit the device writes for a given index (index.rst, "Conventions").
#pragma once

#include <cstdint>

namespace ornic {

struct RingState {
  unsigned log_depth = 0;
  uint32_t producer = 0;
  uint32_t consumer = 0;
  // SQ/RQ/SRQ with a doorbell record (doorbells.rst, "Doorbell records"): the record is
  // the block just past the ring; `kick` mirrors what the device last wrote to it.
  bool has_record = false;
  bool kick = false;

  uint32_t depth() const { return uint32_t{1} << log_depth; }
  uint32_t used() const { return producer - consumer; }
  bool full() const { return used() >= depth(); }
  uint32_t slot(uint32_t index) const { return index & (depth() - 1); }
  // First pass through the ring is written with phase 1, the second with 0, ...
  uint8_t phase(uint32_t index) const {
    return static_cast<uint8_t>(((index >> log_depth) & 1) ^ 1);
  }

  // A new consumer index from software: may not pass what the device produced.
  bool consumer_acceptable(uint32_t index) const { return index - consumer <= producer - consumer; }
  // A new producer index from software: forward, and never more than a ring ahead of
  // what the device consumed.
  bool producer_acceptable(uint32_t index) const {
    return index - consumer <= depth() && index - consumer >= producer - consumer;
  }
};

} // namespace ornic
