#include "rdma/odp.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/nic_core.hpp"

namespace ornic {
namespace {

constexpr uint64_t kTablePage = 4096;

bool aligned(uint64_t value, uint64_t alignment) {
  return (value & (alignment - 1)) == 0;
}

uint64_t page_size(const MemoryRegion& mr) {
  return uint64_t{1} << mr.odp_page_shift;
}

// Page index within the MR of byte `addr` (bounds already checked).
uint64_t page_of(const MemoryRegion& mr, uint64_t addr) {
  return (addr - mr.iova + mr.first_page_offset) >> mr.odp_page_shift;
}

enum class Entry : uint8_t { usable, missing, error, unreadable };

Entry read_entry(GuestMemory& memory, const MemoryRegion& mr, uint64_t page, bool write,
                 uint64_t& address) {
  uint64_t raw = 0;
  if (!mr.odp_table.read(memory, page * 8, std::as_writable_bytes(std::span(&raw, 1))))
    return Entry::unreadable;
  const uint64_t pte = le(raw);
  if (pte & ORNIC_ODP_PTE_ERROR)
    return Entry::error;
  if (!(pte & ORNIC_ODP_PTE_VALID) || (write && !(pte & ORNIC_ODP_PTE_WRITE)))
    return Entry::missing;
  address = pte & ORNIC_ODP_PTE_ADDR_MASK & ~(page_size(mr) - 1);
  return Entry::usable;
}

// Calls chunk(dma_address, position, length) for each page piece; stops at the first
// entry that does not allow the access.
template <typename Chunk>
bool for_each_page(GuestMemory& memory, const MemoryRegion& mr, uint64_t addr, uint64_t length,
                   bool write, Chunk&& chunk) {
  const uint64_t size = page_size(mr);
  uint64_t done = 0;
  while (done < length) {
    const uint64_t offset = addr - mr.iova + mr.first_page_offset + done;
    const uint64_t in_page = offset & (size - 1);
    const uint64_t piece = std::min(length - done, size - in_page);
    uint64_t base = 0;
    if (read_entry(memory, mr, offset >> mr.odp_page_shift, write, base) != Entry::usable)
      return false;
    if (!chunk(base + in_page, done, piece))
      return false;
    done += piece;
  }
  return true;
}

} // namespace

OdpTableResult read_odp_table(GuestMemory& guest, const ornic_mem_desc& desc, uint32_t num_pages) {
  const uint64_t addr = le(desc.addr);
  const uint64_t bytes = uint64_t{num_pages} * 8;
  switch (desc.mode) {
  case ORNIC_MEM_MODE_CONTIG:
  case ORNIC_MEM_MODE_DIRECT:
    if (!aligned(addr, 8))
      return {ORNIC_ADMIN_STATUS_BAD_ALIGNMENT, {}};
    if (addr == 0 || addr + bytes < addr)
      return {ORNIC_ADMIN_STATUS_BAD_FIELD, {}};
    return {ORNIC_ADMIN_STATUS_SUCCESS, QueueMemory::contiguous(addr, bytes)};
  case ORNIC_MEM_MODE_INDIRECT: {
    const uint32_t per_page = ORNIC_PBL_ENTRIES_PER_PAGE;
    const uint32_t pointer_pages = (num_pages + per_page - 1) / per_page;
    if (pointer_pages > per_page)
      return {ORNIC_ADMIN_STATUS_LIMIT_EXCEEDED, {}};
    if (!aligned(addr, 8))
      return {ORNIC_ADMIN_STATUS_BAD_ALIGNMENT, {}};
    std::vector<uint64_t> pointers(pointer_pages);
    if (!guest.read(addr, std::as_writable_bytes(std::span(pointers))))
      return {ORNIC_ADMIN_STATUS_BAD_DMA, {}};
    for (uint64_t& pointer : pointers) {
      pointer = le(pointer);
      if (pointer == 0 || !aligned(pointer, kTablePage))
        return {ORNIC_ADMIN_STATUS_BAD_ALIGNMENT, {}};
    }
    return {ORNIC_ADMIN_STATUS_SUCCESS, QueueMemory::paged(std::move(pointers), 12)};
  }
  default:
    return {ORNIC_ADMIN_STATUS_BAD_FIELD, {}};
  }
}

OdpProbeResult odp_probe(GuestMemory& memory, const MemoryRegion& mr, uint32_t key, uint64_t addr,
                         uint64_t length, bool write) {
  if (length == 0)
    return {};
  const uint64_t first = page_of(mr, addr);
  const uint64_t last = page_of(mr, addr + length - 1);
  for (uint64_t page = first; page <= last; ++page) {
    uint64_t base = 0;
    switch (read_entry(memory, mr, page, write, base)) {
    case Entry::usable:
      continue;
    case Entry::error:
      return {OdpProbe::error, {}};
    case Entry::unreadable:
      return {OdpProbe::table, {}};
    case Entry::missing: {
      OdpFault fault;
      fault.key = key;
      fault.page = static_cast<uint32_t>(page);
      fault.pages = static_cast<uint32_t>(std::min<uint64_t>(last - page + 1, 0xffff));
      fault.write = write;
      return {OdpProbe::fault, fault};
    }
    }
  }
  return {};
}

bool odp_read(GuestMemory& memory, const MemoryRegion& mr, uint64_t addr,
              std::span<std::byte> out) {
  return for_each_page(
      memory, mr, addr, out.size(), false,
      [&](uint64_t dma, uint64_t at, uint64_t n) { return memory.read(dma, out.subspan(at, n)); });
}

bool odp_write(GuestMemory& memory, const MemoryRegion& mr, uint64_t addr,
               std::span<const std::byte> in) {
  return for_each_page(
      memory, mr, addr, in.size(), true,
      [&](uint64_t dma, uint64_t at, uint64_t n) { return memory.write(dma, in.subspan(at, n)); });
}

void post_page_fault(NicCore& core, const OdpFault& fault, uint32_t qpn, bool requester) {
  core.counters.inc(requester ? ORNIC_CNT_ODP_REQ_FAULTS : ORNIC_CNT_ODP_RESP_FAULTS);
  ornic_eqe_page_fault pf{};
  pf.type = ORNIC_EQE_PAGE_FAULT;
  pf.flags = static_cast<uint8_t>((fault.write ? ORNIC_EQE_PF_WRITE : 0) |
                                  (requester ? ORNIC_EQE_PF_REQUESTER : 0));
  pf.num_pages = to_le(static_cast<uint16_t>(fault.pages));
  pf.key = to_le(fault.key);
  pf.page = to_le(fault.page);
  pf.qpn[0] = static_cast<uint8_t>(qpn);
  pf.qpn[1] = static_cast<uint8_t>(qpn >> 8);
  pf.qpn[2] = static_cast<uint8_t>(qpn >> 16);
  ornic_eqe eqe{};
  static_assert(sizeof(eqe) == sizeof(pf));
  std::memcpy(&eqe, &pf, sizeof(eqe));
  core.post_async_entry(eqe);
}

} // namespace ornic
