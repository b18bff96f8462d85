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

  // The 8 bytes at an 8-byte aligned iova as one store that no concurrent reader (a guest
  // CPU) can see half done: IBTA's ATOMIC WRITE. The default is a plain write, which is
  // enough for memories nobody else reads while the device writes.
  [[nodiscard]] virtual bool write_atomic64(uint64_t iova, std::span<const std::byte, 8> in) {
    return write(iova, in);
  }
  // Has whatever backs [iova, iova+size) make it durable (a file-backed map is written
  // back to its file): a FLUSH to persistence. False if the range is not mapped or the
  // backing store refused. The default holds nothing more durable than itself.
  [[nodiscard]] virtual bool persist(uint64_t iova, uint64_t size) {
    (void)iova;
    (void)size;
    return true;
  }
};

} // namespace ornic
