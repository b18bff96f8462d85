#include "nic/mem_desc_reader.hpp"

#include <vector>

#include "core/device_limits.hpp"

namespace ornic {
namespace {

MemDescResult fail(ornic_admin_status status) {
  return MemDescResult{status, {}};
}

bool read_addresses(GuestMemory& guest, uint64_t iova, size_t count, std::vector<uint64_t>& out) {
  std::vector<uint64_t> raw(count);
  if (!guest.read(iova, std::as_writable_bytes(std::span(raw))))
    return false;
  out.reserve(out.size() + count);
  for (uint64_t v : raw)
    out.push_back(le(v));
  return true;
}

bool aligned(uint64_t value, uint64_t alignment) {
  return (value & (alignment - 1)) == 0;
}

} // namespace

MemDescResult read_mem_desc(GuestMemory& guest, const ornic_mem_desc& desc,
                            const MemDescRules& rules) {
  const uint64_t addr = le(desc.addr);
  const uint32_t num_pages = le(desc.num_pages);
  const unsigned shift = desc.page_shift;

  if (desc.reserved != 0 || num_pages == 0)
    return fail(ORNIC_ADMIN_STATUS_BAD_FIELD);
  if (shift < ORNIC_PAGE_SHIFT_MIN || shift > ORNIC_PAGE_SHIFT_MAX ||
      (limits::kPageSizeCap & (uint64_t{1} << shift)) == 0)
    return fail(ORNIC_ADMIN_STATUS_BAD_FIELD);
  if (num_pages > rules.max_pages)
    return fail(ORNIC_ADMIN_STATUS_LIMIT_EXCEEDED);
  const uint64_t page_size = uint64_t{1} << shift;
  const uint64_t total = static_cast<uint64_t>(num_pages) << shift; // <= 2^18 * 2^30
  if (total < rules.min_bytes)
    return fail(ORNIC_ADMIN_STATUS_BAD_FIELD);

  switch (desc.mode) {
  case ORNIC_MEM_MODE_CONTIG: {
    const uint64_t alignment = rules.contig_alignment ? rules.contig_alignment : page_size;
    if (!aligned(addr, alignment))
      return fail(ORNIC_ADMIN_STATUS_BAD_ALIGNMENT);
    if (addr == 0 || addr + total < addr)
      return fail(ORNIC_ADMIN_STATUS_BAD_FIELD);
    return MemDescResult{ORNIC_ADMIN_STATUS_SUCCESS, QueueMemory::contiguous(addr, total)};
  }
  case ORNIC_MEM_MODE_DIRECT: {
    if (num_pages > ORNIC_PBL_ENTRIES_PER_PAGE)
      return fail(ORNIC_ADMIN_STATUS_LIMIT_EXCEEDED);
    if (!aligned(addr, 8))
      return fail(ORNIC_ADMIN_STATUS_BAD_ALIGNMENT);
    std::vector<uint64_t> pages;
    if (!read_addresses(guest, addr, num_pages, pages))
      return fail(ORNIC_ADMIN_STATUS_BAD_DMA);
    for (uint64_t page : pages)
      if (!aligned(page, page_size))
        return fail(ORNIC_ADMIN_STATUS_BAD_ALIGNMENT);
    return MemDescResult{ORNIC_ADMIN_STATUS_SUCCESS, QueueMemory::paged(std::move(pages), shift)};
  }
  case ORNIC_MEM_MODE_INDIRECT: {
    const uint32_t per_page = ORNIC_PBL_ENTRIES_PER_PAGE;
    const uint32_t pointer_pages = (num_pages + per_page - 1) / per_page;
    if (pointer_pages > per_page)
      return fail(ORNIC_ADMIN_STATUS_LIMIT_EXCEEDED);
    if (!aligned(addr, 8))
      return fail(ORNIC_ADMIN_STATUS_BAD_ALIGNMENT);
    std::vector<uint64_t> pointers;
    if (!read_addresses(guest, addr, pointer_pages, pointers))
      return fail(ORNIC_ADMIN_STATUS_BAD_DMA);
    std::vector<uint64_t> pages;
    for (uint32_t i = 0; i < pointer_pages; ++i) {
      if (!aligned(pointers[i], 4096))
        return fail(ORNIC_ADMIN_STATUS_BAD_ALIGNMENT);
      const uint32_t count = std::min(per_page, num_pages - i * per_page);
      if (!read_addresses(guest, pointers[i], count, pages))
        return fail(ORNIC_ADMIN_STATUS_BAD_DMA);
    }
    for (uint64_t page : pages)
      if (!aligned(page, page_size))
        return fail(ORNIC_ADMIN_STATUS_BAD_ALIGNMENT);
    return MemDescResult{ORNIC_ADMIN_STATUS_SUCCESS, QueueMemory::paged(std::move(pages), shift)};
  }
  default:
    return fail(ORNIC_ADMIN_STATUS_BAD_FIELD);
  }
}

} // namespace ornic
