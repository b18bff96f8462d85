// The device's table of DMA maps (IOVA range -> host memory), as set up by vfio-user
// DMA_MAP/DMA_UNMAP. Ranges are kept as [first, last] (inclusive) so a map that ends
// at 2^64 and unmaps whose iova+size wraps are handled without overflow.
#pragma once

#include <cstdint>
#include <map>
#include <memory>

#include "dma/mapped_file.hpp"

namespace ornic {

struct DmaMapping {
  uint64_t first;                      // first IOVA
  uint64_t last;                       // last IOVA (inclusive)
  std::byte* host;                     // host address of `first`
  bool readable;                       // device may read (guest allowed DMA to device)
  bool writable;                       // device may write
  std::shared_ptr<MappedFile> backing; // keeps `host` mapped
};

class DmaMapTable {
public:
  explicit DmaMapTable(size_t max_maps = 65535) : max_maps_(max_maps) {}

  // Adds [iova, iova+size) backed by `host` (inside `backing`). Errors (errno):
  // EINVAL for size 0 or a range wrapping past 2^64, EEXIST if it overlaps an existing
  // map (the spec forbids overlapping maps), ENOSPC if the table is full.
  int add(uint64_t iova, uint64_t size, std::byte* host, bool readable, bool writable,
          std::shared_ptr<MappedFile> backing);

  // Removes every mapped byte in [iova, iova+size), splitting maps that straddle the
  // range. Unmapped holes are fine. A range that wraps past 2^64 is clipped at 2^64-1.
  // Returns the number of bytes unmapped. size 0 removes nothing.
  uint64_t remove(uint64_t iova, uint64_t size);
  void clear() {
    maps_.clear();
    last_found_.map = nullptr;
  }

  // The map containing iova, or nullptr.
  const DmaMapping* find(uint64_t iova) const;
  size_t count() const { return maps_.size(); }
  size_t max_maps() const { return max_maps_; }
  const std::map<uint64_t, DmaMapping>& maps() const { return maps_; }

private:
  size_t max_maps_;
  std::map<uint64_t, DmaMapping> maps_; // keyed by first
  // The map find() returned last: the data path's accesses mostly land in the same map
  // (guest RAM), so most lookups need no tree walk. Forgotten whenever the maps change,
  // and never copied: it points into this table's own nodes.
  struct FoundCache {
    const DmaMapping* map = nullptr;
    FoundCache() = default;
    FoundCache(const FoundCache&) {}
    FoundCache& operator=(const FoundCache&) {
      map = nullptr;
      return *this;
    }
  };
  mutable FoundCache last_found_;
};

} // namespace ornic
