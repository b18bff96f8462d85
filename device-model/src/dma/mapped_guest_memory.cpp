#include "dma/mapped_guest_memory.hpp"

#include <cstring>
#include <limits>

#include "dma/fault_guard.hpp"

namespace ornic {

template <typename Copy>
bool MappedGuestMemory::access(uint64_t iova, size_t size, bool need_write, Copy copy) {
  if (size == 0)
    return true;
  if (size - 1 > std::numeric_limits<uint64_t>::max() - iova)
    return false;
  const uint64_t last = iova + (size - 1);

  // Pass 1: every byte covered, with permission, by a chain of adjacent maps.
  for (uint64_t cursor = iova;;) {
    const DmaMapping* map = table_.find(cursor);
    if (map == nullptr || !(need_write ? map->writable : map->readable))
      return false;
    if (map->last >= last)
      break;
    cursor = map->last + 1; // cannot wrap: map->last < last
  }
  // Pass 2: copy piece by piece.
  size_t done = 0;
  for (uint64_t cursor = iova; done < size;) {
    const DmaMapping* map = table_.find(cursor);
    const uint64_t in_map = map->last - cursor; // bytes left in map, minus one
    const size_t chunk = in_map >= size - done - 1 ? size - done : static_cast<size_t>(in_map + 1);
    if (!copy(map->host + (cursor - map->first), done, chunk))
      return false; // the client shrank the file under the map
    done += chunk;
    cursor += chunk; // may wrap to 0 only when done == size
  }
  return true;
}

bool MappedGuestMemory::read(uint64_t iova, std::span<std::byte> out) {
  return access(iova, out.size(), false, [&](const std::byte* host, size_t at, size_t n) {
    return guarded_copy(out.data() + at, host, n);
  });
}

bool MappedGuestMemory::write(uint64_t iova, std::span<const std::byte> in) {
  return access(iova, in.size(), true, [&](std::byte* host, size_t at, size_t n) {
    return guarded_copy(host, in.data() + at, n);
  });
}

} // namespace ornic
