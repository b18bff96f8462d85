#include "rdma/memory_access.hpp"

namespace ornic {
namespace {

bool in_range(uint64_t start, uint64_t size, uint64_t addr, uint64_t length) {
  if (addr < start)
    return false;
  const uint64_t offset = addr - start;
  return offset <= size && length <= size - offset;
}

bool in_bounds(const MemoryRegion& mr, uint64_t addr, uint64_t length) {
  return in_range(mr.iova, mr.length, addr, length);
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
SgeOutcome walk_sges(NicCore& core, uint32_t pd, std::span<const WqeSge> sges, uint64_t offset,
                     uint64_t length, uint32_t access, Copy&& copy, bool probing = false) {
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
        return {SgeResult::protection, why, {}};
      if (mr->odp) {
        const bool write = (access & ORNIC_ACCESS_LOCAL_WRITE) != 0;
        const OdpProbeResult probe =
            probing ? odp_probe(core.memory(), *mr, sge.lkey, sge.addr + within, piece, write)
                    : odp_check(core, *mr, sge.lkey, sge.addr + within, piece, write);
        if (probe.result == OdpProbe::fault)
          return {SgeResult::page_fault, ORNIC_VERR_NONE, probe.fault};
        if (probe.result == OdpProbe::error)
          return {SgeResult::protection, ORNIC_VERR_ODP_ERROR, {}};
        if (probe.result == OdpProbe::table)
          return {SgeResult::dma, ORNIC_VERR_ODP_TABLE, {}};
      }
      if (!copy(*mr, sge.addr + within, done, piece)) {
        core.counters.inc(ORNIC_CNT_DMA_ERRORS);
        return {SgeResult::dma, ORNIC_VERR_DMA, {}};
      }
      done += piece;
    }
    position = end;
  }
  if (done != length)
    return {SgeResult::too_small, ORNIC_VERR_RECV_TOO_SMALL, {}};
  return {};
}

} // namespace

const MemoryRegion* find_mr(const Resources& resources, uint32_t key) {
  const MemoryRegion* mr = resources.mrs.find(key >> ORNIC_MR_KEY_INDEX_SHIFT);
  // A FREE fast-reg MR has no key that works: it fails exactly like a key never issued.
  if (mr == nullptr || mr->window || !mr->valid ||
      mr->key_variant != (key & ORNIC_MR_KEY_VARIANT_MASK))
    return nullptr;
  return mr;
}

namespace {

RemoteTarget check_window(const Resources& resources, const MemoryRegion& entry, uint32_t qpn,
                          uint32_t pd, uint32_t rkey, uint64_t addr, uint64_t length,
                          uint32_t access) {
  const MemoryWindow& window = *entry.window;
  // A FREE window, or one bound since with another variant, is a key never issued.
  if (!window.bound || entry.key_variant != (rkey & ORNIC_MR_KEY_VARIANT_MASK))
    return {ORNIC_VERR_BAD_LKEY};
  if (entry.pd != pd)
    return {ORNIC_VERR_PD_MISMATCH};
  if (window.type == ORNIC_MW_TYPE_2 && !resources.reaches_window(window, qpn))
    return {ORNIC_VERR_MW_QP};
  if (!in_range(window.addr, window.length, addr, length))
    return {ORNIC_VERR_OUT_OF_BOUNDS};
  if ((window.access & access) != access)
    return {ORNIC_VERR_ACCESS};
  // The window's rights govern; the MR only has to be there and hold the range (DEREG_MR is
  // BUSY while the window is bound, so it is, unless something broke the rule).
  const MemoryRegion* mr = resources.mrs.find(window.mr_index);
  if (mr == nullptr || mr->window || !mr->valid || mr->physical)
    return {ORNIC_VERR_BAD_LKEY};
  const VendorErr why = check(mr, pd, addr, length, 0);
  return {why, why == ORNIC_VERR_NONE ? mr : nullptr};
}

} // namespace

VendorErr check_local(const Resources& resources, uint32_t pd, uint32_t lkey, uint64_t addr,
                      uint64_t length, uint32_t access) {
  return check(find_mr(resources, lkey), pd, addr, length, access);
}

RemoteTarget check_remote(const Resources& resources, uint32_t qpn, uint32_t pd, uint32_t rkey,
                          uint64_t addr, uint64_t length, uint32_t access) {
  const MemoryRegion* entry = resources.mrs.find(rkey >> ORNIC_MR_KEY_INDEX_SHIFT);
  if (entry != nullptr && entry->window)
    return check_window(resources, *entry, qpn, pd, rkey, addr, length, access);
  const MemoryRegion* mr = find_mr(resources, rkey);
  if (mr != nullptr && mr->physical)
    return {ORNIC_VERR_BAD_LKEY};
  const VendorErr why = check(mr, pd, addr, length, access);
  return {why, why == ORNIC_VERR_NONE ? mr : nullptr};
}

bool mr_read(GuestMemory& memory, const MemoryRegion& mr, uint64_t addr, std::span<uint8_t> out) {
  const auto bytes = std::as_writable_bytes(out);
  if (mr.physical)
    return memory.read(addr, bytes);
  if (mr.odp)
    return odp_read(memory, mr, addr, bytes);
  return mr.pages.read(memory, mr.first_page_offset + (addr - mr.iova), bytes);
}

bool mr_write(GuestMemory& memory, const MemoryRegion& mr, uint64_t addr,
              std::span<const uint8_t> in) {
  const auto bytes = std::as_bytes(in);
  if (mr.physical)
    return memory.write(addr, bytes);
  if (mr.odp)
    return odp_write(memory, mr, addr, bytes);
  return mr.pages.write(memory, mr.first_page_offset + (addr - mr.iova), bytes);
}

bool mr_write_atomic64(GuestMemory& memory, const MemoryRegion& mr, uint64_t addr,
                       std::span<const uint8_t, 8> in) {
  const std::span<const std::byte, 8> bytes = std::as_bytes(in);
  if (mr.physical)
    return memory.write_atomic64(addr, bytes);
  // Aligned, so inside one page: a single 8-byte copy into the resident page.
  if (mr.odp)
    return odp_write(memory, mr, addr, bytes);
  return mr.pages.write_atomic64(memory, mr.first_page_offset + (addr - mr.iova), bytes);
}

bool mr_persist(GuestMemory& memory, const MemoryRegion& mr, uint64_t addr, uint64_t length) {
  if (mr.physical)
    return memory.persist(addr, length);
  if (mr.odp) // REG_MR refuses FLUSH_PERSISTENT rights on an ODP MR
    return false;
  return mr.pages.persist(memory, mr.first_page_offset + (addr - mr.iova), length);
}

SgeOutcome gather(NicCore& core, uint32_t pd, std::span<const WqeSge> sges, uint64_t offset,
                  std::span<uint8_t> out) {
  return walk_sges(core, pd, sges, offset, out.size(), 0,
                   [&](const MemoryRegion& mr, uint64_t addr, uint64_t at, uint64_t n) {
                     return mr_read(core.memory(), mr, addr, out.subspan(at, n));
                   });
}

SgeOutcome scatter(NicCore& core, uint32_t pd, std::span<const WqeSge> sges, uint64_t offset,
                   std::span<const uint8_t> in) {
  return walk_sges(core, pd, sges, offset, in.size(), ORNIC_ACCESS_LOCAL_WRITE,
                   [&](const MemoryRegion& mr, uint64_t addr, uint64_t at, uint64_t n) {
                     return mr_write(core.memory(), mr, addr, in.subspan(at, n));
                   });
}

SgeOutcome probe_sges(NicCore& core, uint32_t pd, std::span<const WqeSge> sges, uint64_t length,
                      bool write) {
  const SgeOutcome outcome = walk_sges(
      core, pd, sges, 0, length, write ? ORNIC_ACCESS_LOCAL_WRITE : 0,
      [](const MemoryRegion&, uint64_t, uint64_t, uint64_t) { return true; }, true);
  return outcome.result == SgeResult::page_fault ? outcome : SgeOutcome{};
}

OdpProbeResult odp_check(NicCore& core, const MemoryRegion& mr, uint32_t key, uint64_t addr,
                         uint64_t length, bool write) {
  const OdpProbeResult probe = odp_probe(core.memory(), mr, key, addr, length, write);
  if (probe.result == OdpProbe::error || probe.result == OdpProbe::table)
    core.counters.inc(ORNIC_CNT_ODP_ERRORS);
  return probe;
}

} // namespace ornic
