// The device's only way to touch guest memory (DMA). Every access is checked against
// the current DMA maps, so a bad address from the guest or the wire is an error
// return, never a stray access.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace ornic {

class GuestMemory { // device-side view of guest physical memory (IOVAs)
public:
  virtual ~GuestMemory() = default;
  // Whole access or nothing: false if any byte of [iova, iova+size) is not covered by
  // current maps with the needed permission, or if the range wraps past 2^64. Never
  // touches anything outside the maps. An empty span always succeeds.
  [[nodiscard]] virtual bool read(uint64_t iova, std::span<std::byte> out) = 0;
  [[nodiscard]] virtual bool write(uint64_t iova, std::span<const std::byte> in) = 0;
};

} // namespace ornic
