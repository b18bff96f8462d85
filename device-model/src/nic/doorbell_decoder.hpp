// BAR2 (doorbells.rst): turns posted writes into doorbells — one 64-bit write, or a low
// then a high 32-bit write — and refuses anything else, counting why.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "core/device_counters.hpp"
#include "core/hw.hpp"
#include "core/resources.hpp"

namespace ornic {

enum class DoorbellKind : uint8_t { kSq, kRq, kSrq, kCq, kEq, kEthTx, kEthRx };
inline constexpr size_t kDoorbellKinds = 7;

struct Doorbell {
  uint32_t page = 0;
  DoorbellKind kind = DoorbellKind::kSq;
  uint32_t queue = 0;
  uint32_t flags = 0; // ORNIC_DB_FLAG_* (bits 31..24 of the value)
  uint32_t index = 0;
};

class DoorbellDecoder {
public:
  // nullopt when the write is not (yet) a complete, well-formed doorbell.
  std::optional<Doorbell> decode(uint64_t offset, unsigned size, uint64_t value,
                                 const DoorbellPages& pages, DeviceCounters& counters);
  void reset() { latched_low_ = {}; }

private:
  std::array<std::array<std::optional<uint32_t>, kDoorbellKinds>, ORNIC_DB_PAGES> latched_low_{};
};

} // namespace ornic
