// GuestMemory over the DMA map table: the real DMA path of the device model.
#pragma once

#include "dma/dma_map_table.hpp"
#include "dma/guest_memory.hpp"

namespace ornic {

class MappedGuestMemory : public GuestMemory {
public:
  explicit MappedGuestMemory(const DmaMapTable& table) : table_(table) {}

  // An access may span several maps as long as they are adjacent in IOVA space and all
  // grant the permission; the whole range is checked before a byte is copied. The one
  // exception to "whole access or nothing": if the client truncated the backing file
  // under a map, the copy stops at the lost page (SIGBUS caught) and returns false.
  [[nodiscard]] bool read(uint64_t iova, std::span<std::byte> out) override;
  [[nodiscard]] bool write(uint64_t iova, std::span<const std::byte> in) override;
  // One aligned 64-bit store into the map; a plain write where the 8 bytes are not in one
  // map at an aligned host address (never for guest RAM, whose maps are page aligned).
  [[nodiscard]] bool write_atomic64(uint64_t iova, std::span<const std::byte, 8> in) override;
  // msync(MS_SYNC) of every page of the range in its map: guest RAM in a file reaches the
  // file; anonymous/memfd RAM has nothing to write back and costs next to nothing.
  [[nodiscard]] bool persist(uint64_t iova, uint64_t size) override;

private:
  template <typename Copy>
  bool access(uint64_t iova, size_t size, bool need_write, Copy copy);
  // Pass 1 of every access: [iova, iova+size) lies in adjacent maps that all grant it.
  bool covered(uint64_t iova, uint64_t size, bool need_write) const;

  const DmaMapTable& table_;
};

} // namespace ornic
