#include "core/queue_memory.hpp"

#include <algorithm>

namespace ornic {

QueueMemory QueueMemory::contiguous(uint64_t base, uint64_t size) {
  QueueMemory m;
  m.base_ = base;
  m.size_ = size;
  return m;
}

QueueMemory QueueMemory::paged(std::vector<uint64_t> pages, unsigned page_shift) {
  QueueMemory m;
  m.page_shift_ = page_shift;
  m.size_ = static_cast<uint64_t>(pages.size()) << page_shift;
  m.pages_ = std::move(pages);
  return m;
}

template <typename Chunk>
bool QueueMemory::for_each_piece(uint64_t offset, uint64_t length, Chunk&& chunk) const {
  if (offset > size_ || length > size_ - offset)
    return false;
  if (pages_.empty())
    return chunk(base_ + offset, uint64_t{0}, length);
  const uint64_t page_size = uint64_t{1} << page_shift_;
  uint64_t done = 0;
  while (done < length) {
    const uint64_t at = offset + done;
    const uint64_t in_page = at & (page_size - 1);
    const uint64_t piece = std::min(length - done, page_size - in_page);
    if (!chunk(pages_[at >> page_shift_] + in_page, done, piece))
      return false;
    done += piece;
  }
  return true;
}

bool QueueMemory::read(GuestMemory& memory, uint64_t offset, std::span<std::byte> out) const {
  return for_each_piece(offset, out.size(), [&](uint64_t iova, uint64_t pos, uint64_t len) {
    return memory.read(iova, out.subspan(pos, len));
  });
}

bool QueueMemory::write(GuestMemory& memory, uint64_t offset, std::span<const std::byte> in) const {
  return for_each_piece(offset, in.size(), [&](uint64_t iova, uint64_t pos, uint64_t len) {
    return memory.write(iova, in.subspan(pos, len));
  });
}

bool QueueMemory::write_atomic64(GuestMemory& memory, uint64_t offset,
                                 std::span<const std::byte, 8> in) const {
  unsigned pieces = 0;
  uint64_t at = 0;
  if (!for_each_piece(offset, in.size(), [&](uint64_t iova, uint64_t, uint64_t) {
        ++pieces;
        at = iova;
        return true;
      }))
    return false;
  if (pieces == 1)
    return memory.write_atomic64(at, in);
  return write(memory, offset, in); // split by a page boundary: cannot be one store
}

bool QueueMemory::persist(GuestMemory& memory, uint64_t offset, uint64_t length) const {
  uint64_t run_start = 0, run_size = 0;
  const bool ok = for_each_piece(offset, length, [&](uint64_t iova, uint64_t, uint64_t len) {
    if (run_size != 0 && run_start + run_size == iova) {
      run_size += len;
      return true;
    }
    const bool flushed = run_size == 0 || memory.persist(run_start, run_size);
    run_start = iova;
    run_size = len;
    return flushed;
  });
  return ok && (run_size == 0 || memory.persist(run_start, run_size));
}

} // namespace ornic
