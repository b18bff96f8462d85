// Host memory handed to the device by an ornic_mem_desc (queues.rst): either one
// contiguous range or a list of equal-sized pages. Accesses are by byte offset into
// the object and are split at page boundaries; anything past the end fails.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "dma/guest_memory.hpp"

namespace ornic {

class QueueMemory {
public:
  QueueMemory() = default;
  static QueueMemory contiguous(uint64_t base, uint64_t size);
  static QueueMemory paged(std::vector<uint64_t> pages, unsigned page_shift);

  uint64_t size() const { return size_; }
  size_t page_count() const { return pages_.empty() ? 1 : pages_.size(); }

  [[nodiscard]] bool read(GuestMemory& memory, uint64_t offset, std::span<std::byte> out) const;
  [[nodiscard]] bool write(GuestMemory& memory, uint64_t offset,
                           std::span<const std::byte> in) const;
  // 8 bytes at an 8-byte aligned offset as one store (they never cross a page).
  [[nodiscard]] bool write_atomic64(GuestMemory& memory, uint64_t offset,
                                    std::span<const std::byte, 8> in) const;
  // Makes [offset, offset+length) durable (GuestMemory::persist), one call per run of
  // pages that are adjacent in IOVA space.
  [[nodiscard]] bool persist(GuestMemory& memory, uint64_t offset, uint64_t length) const;

private:
  // Calls chunk(iova, position, length) for each piece of [offset, offset+length).
  template <typename Chunk>
  bool for_each_piece(uint64_t offset, uint64_t length, Chunk&& chunk) const;

  uint64_t base_ = 0;           // contiguous form
  std::vector<uint64_t> pages_; // paged form (empty for contiguous)
  unsigned page_shift_ = 12;
  uint64_t size_ = 0;
};

} // namespace ornic
