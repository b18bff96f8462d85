#include "dma/mapped_guest_memory.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

#include <sys/mman.h>
#include <unistd.h>

#include "dma/fault_guard.hpp"

namespace ornic {

bool MappedGuestMemory::covered(uint64_t iova, uint64_t size, bool need_write) const {
  if (size - 1 > std::numeric_limits<uint64_t>::max() - iova)
    return false;
  const uint64_t last = iova + (size - 1);
  // Every byte covered, with permission, by a chain of adjacent maps.
  for (uint64_t cursor = iova;;) {
    const DmaMapping* map = table_.find(cursor);
    if (map == nullptr || !(need_write ? map->writable : map->readable))
      return false;
    if (map->last >= last)
      return true;
    cursor = map->last + 1; // cannot wrap: map->last < last
  }
}

template <typename Copy>
bool MappedGuestMemory::access(uint64_t iova, size_t size, bool need_write, Copy copy) {
  if (size == 0)
    return true;
  // Nearly every access lies in one map: checked and copied after a single lookup.
  if (const DmaMapping* map = table_.find(iova); map != nullptr &&
                                                 (need_write ? map->writable : map->readable) &&
                                                 map->last - iova >= size - 1)
    return copy(map->host + (iova - map->first), size_t{0}, size);
  if (!covered(iova, size, need_write))
    return false;
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

bool MappedGuestMemory::write_atomic64(uint64_t iova, std::span<const std::byte, 8> in) {
  const DmaMapping* map = table_.find(iova);
  if (iova % 8 != 0 || map == nullptr || !map->writable || map->last - iova < 7)
    return write(iova, in);
  std::byte* host = map->host + (iova - map->first);
  if (reinterpret_cast<uintptr_t>(host) % alignof(uint64_t) != 0)
    return write(iova, in);
  uint64_t value = 0;
  std::memcpy(&value, in.data(), sizeof(value)); // the bytes, in their order
  return guarded_store64(host, value);
}

bool MappedGuestMemory::persist(uint64_t iova, uint64_t size) {
  if (size == 0)
    return true;
  if (!covered(iova, size, false))
    return false;
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  uint64_t done = 0;
  for (uint64_t cursor = iova; done < size;) {
    const DmaMapping* map = table_.find(cursor);
    const uint64_t chunk = std::min<uint64_t>(size - done, map->last - cursor + 1);
    // msync wants a page-aligned start; maps of guest RAM start on a page of the file.
    const uintptr_t start = reinterpret_cast<uintptr_t>(map->host + (cursor - map->first));
    const uintptr_t aligned = start & ~static_cast<uintptr_t>(page - 1);
    if (msync(reinterpret_cast<void*>(aligned), chunk + (start - aligned), MS_SYNC) != 0)
      return false;
    done += chunk;
    cursor += chunk;
  }
  return true;
}

} // namespace ornic
