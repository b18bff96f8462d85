#include "rdma/memory_access.hpp"

namespace ornic {
namespace {

bool in_bounds(const MemoryRegion& mr, uint64_t addr, uint64_t length) {
  if (addr < mr.iova)
    return false;
  const uint64_t offset = addr - mr.iova;
  return offset <= mr.length && length <= mr.length - offset;
}

VendorErr check(const MemoryRegion* mr, uint32_t pd, uint64_t addr, uint64_t length,
                uint32_t access) {
  if (mr == nullptr)
    return ORNIC_VERR_BAD_LKEY;
  if (mr->pd != pd)
    return ORNIC_VERR_PD_MISMATCH;
  if (!in_bounds(*mr, addr, length))
    return ORNIC_VERR_OUT_OF_BOUNDS;
  if ((mr->access & access) != access)
    return ORNIC_VERR_ACCESS;
  return ORNIC_VERR_NONE;
}

template <typename Copy>
SgeOutcome walk_sges(NicCore& core, uint32_t pd, const std::vector<WqeSge>& sges, uint64_t offset,
                     uint64_t length, uint32_t access, Copy&& copy) {
  uint64_t position = 0; // message offset where the current SGE starts
  uint64_t done = 0;
  for (const WqeSge& sge : sges) {
    if (done == length)
      break;
    const uint64_t end = position + sge.length;
    if (sge.length != 0 && offset + done < end) {
      const uint64_t within = offset + done - position;
      const uint64_t piece = std::min<uint64_t>(length - done, sge.length - within);
      const MemoryRegion* mr = find_mr(core.resources, sge.lkey);
      const VendorErr why = check(mr, pd, sge.addr + within, piece, access);
      if (why != ORNIC_VERR_NONE)
        return {SgeResult::protection, why};
      if (!copy(*mr, sge.addr + within, done, piece)) {
        core.counters.inc(ORNIC_CNT_DMA_ERRORS);
        return {SgeResult::dma, ORNIC_VERR_DMA};
      }
      done += piece;
    }
    position = end;
  }
  if (done != length)
    return {SgeResult::too_small, ORNIC_VERR_RECV_TOO_SMALL};
  return {};
}

} // namespace

const MemoryRegion* find_mr(const Resources& resources, uint32_t key) {
  const MemoryRegion* mr = resources.mrs.find(key >> ORNIC_MR_KEY_INDEX_SHIFT);
  // A FREE fast-reg MR has no key that works: it fails exactly like a key never issued.
  if (mr == nullptr || !mr->valid || mr->key_variant != (key & ORNIC_MR_KEY_VARIANT_MASK))
    return nullptr;
  return mr;
}

VendorErr check_local(const Resources& resources, uint32_t pd, uint32_t lkey, uint64_t addr,
                      uint64_t length, uint32_t access) {
  return check(find_mr(resources, lkey), pd, addr, length, access);
}

VendorErr check_remote(const Resources& resources, uint32_t pd, uint32_t rkey, uint64_t addr,
                       uint64_t length, uint32_t access) {
  const MemoryRegion* mr = find_mr(resources, rkey);
  if (mr != nullptr && mr->physical)
    return ORNIC_VERR_BAD_LKEY;
  return check(mr, pd, addr, length, access);
}

bool mr_read(GuestMemory& memory, const MemoryRegion& mr, uint64_t addr, std::span<uint8_t> out) {
  const auto bytes = std::as_writable_bytes(out);
  if (mr.physical)
    return memory.read(addr, bytes);
  return mr.pages.read(memory, mr.first_page_offset + (addr - mr.iova), bytes);
}

bool mr_write(GuestMemory& memory, const MemoryRegion& mr, uint64_t addr,
              std::span<const uint8_t> in) {
  const auto bytes = std::as_bytes(in);
  if (mr.physical)
    return memory.write(addr, bytes);
  return mr.pages.write(memory, mr.first_page_offset + (addr - mr.iova), bytes);
}

bool mr_write_atomic64(GuestMemory& memory, const MemoryRegion& mr, uint64_t addr,
                       std::span<const uint8_t, 8> in) {
  const std::span<const std::byte, 8> bytes = std::as_bytes(in);
  if (mr.physical)
    return memory.write_atomic64(addr, bytes);
  return mr.pages.write_atomic64(memory, mr.first_page_offset + (addr - mr.iova), bytes);
}

bool mr_persist(GuestMemory& memory, const MemoryRegion& mr, uint64_t addr, uint64_t length) {
  if (mr.physical)
    return memory.persist(addr, length);
  return mr.pages.persist(memory, mr.first_page_offset + (addr - mr.iova), length);
}

SgeOutcome gather(NicCore& core, uint32_t pd, const std::vector<WqeSge>& sges, uint64_t offset,
                  std::span<uint8_t> out) {
  return walk_sges(core, pd, sges, offset, out.size(), 0,
                   [&](const MemoryRegion& mr, uint64_t addr, uint64_t at, uint64_t n) {
                     return mr_read(core.memory(), mr, addr, out.subspan(at, n));
                   });
}

SgeOutcome scatter(NicCore& core, uint32_t pd, const std::vector<WqeSge>& sges, uint64_t offset,
                   std::span<const uint8_t> in) {
  return walk_sges(core, pd, sges, offset, in.size(), ORNIC_ACCESS_LOCAL_WRITE,
                   [&](const MemoryRegion& mr, uint64_t addr, uint64_t at, uint64_t n) {
                     return mr_write(core.memory(), mr, addr, in.subspan(at, n));
                   });
}

} // namespace ornic
