#include "dma/dma_map_table.hpp"

#include <cerrno>
#include <limits>

namespace ornic {

int DmaMapTable::add(uint64_t iova, uint64_t size, std::byte* host, bool readable, bool writable,
                     std::shared_ptr<MappedFile> backing) {
  if (size == 0 || size - 1 > std::numeric_limits<uint64_t>::max() - iova)
    return EINVAL;
  const uint64_t last = iova + (size - 1);
  // The first map starting after iova, and the one before it, are the only candidates.
  auto next = maps_.upper_bound(iova);
  if (next != maps_.end() && next->second.first <= last)
    return EEXIST;
  if (next != maps_.begin() && std::prev(next)->second.last >= iova)
    return EEXIST;
  if (maps_.size() >= max_maps_)
    return ENOSPC;
  last_found_.map = nullptr;
  maps_.emplace(iova, DmaMapping{iova, last, host, readable, writable, std::move(backing)});
  return 0;
}

uint64_t DmaMapTable::remove(uint64_t iova, uint64_t size) {
  if (size == 0)
    return 0;
  const uint64_t max = std::numeric_limits<uint64_t>::max();
  const uint64_t last = size - 1 > max - iova ? max : iova + (size - 1);

  uint64_t removed = 0;
  last_found_.map = nullptr; // it may be erased or split below
  // Start at the map that may straddle iova.
  auto it = maps_.upper_bound(iova);
  if (it != maps_.begin())
    --it;
  while (it != maps_.end() && it->second.first <= last) {
    DmaMapping map = it->second;
    if (map.last < iova) {
      ++it;
      continue;
    }
    it = maps_.erase(it);
    if (map.first < iova) { // keep the head below the hole
      DmaMapping head = map;
      head.last = iova - 1;
      maps_.emplace(head.first, head);
    }
    if (map.last > last) { // keep the tail above the hole
      DmaMapping tail = map;
      tail.first = last + 1;
      tail.host = map.host + (tail.first - map.first);
      it = maps_.emplace(tail.first, tail).first;
      ++it;
    }
    const uint64_t cut_first = map.first < iova ? iova : map.first;
    const uint64_t cut_last = map.last > last ? last : map.last;
    removed += cut_last - cut_first + 1;
  }
  return removed;
}

const DmaMapping* DmaMapTable::find(uint64_t iova) const {
  if (const DmaMapping* last = last_found_.map;
      last != nullptr && last->first <= iova && iova <= last->last)
    return last;
  auto it = maps_.upper_bound(iova);
  if (it == maps_.begin())
    return nullptr;
  --it;
  if (it->second.last < iova)
    return nullptr;
  last_found_.map = &it->second;
  return &it->second;
}

} // namespace ornic
