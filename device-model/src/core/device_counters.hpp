// The device-wide counters of QUERY_COUNTERS (counters.rst): one 64-bit count per
// ORNIC_CNT_* id, so every error class the guest can provoke is visible.
#pragma once

#include <array>
#include <cstdint>

#include "core/hw.hpp"

namespace ornic {

class DeviceCounters {
public:
  void inc(ornic_counter_id id, uint64_t by = 1) { values_[index(id)] += by; }
  uint64_t get(ornic_counter_id id) const { return values_[index(id)]; }
  void clear() { values_.fill(0); }

private:
  static size_t index(ornic_counter_id id) { return static_cast<size_t>(id) % ORNIC_CNT_COUNT; }
  std::array<uint64_t, ORNIC_CNT_COUNT> values_{};
};

} // namespace ornic
