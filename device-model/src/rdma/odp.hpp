// On-demand paging (memory.rst "On-demand paging"): an ODP MR translates through a page
// table the driver keeps in host memory. The device reads the entry of every page it
// touches, each time, so a cleared entry takes effect at the next access; a missing page
// is a fault the driver resolves (PAGE_FAULT EQE) before the access is retried.
#pragma once

#include <cstdint>
#include <span>

#include "core/hw.hpp"
#include "core/queue_memory.hpp"
#include "dma/guest_memory.hpp"

namespace ornic {

class NicCore;
struct MemoryRegion;

// Pages an access needs that are not resident (PAGE_FAULT EQE fields).
struct OdpFault {
  uint32_t key = 0;
  uint32_t page = 0;  // first missing page, index within the MR
  uint32_t pages = 0; // from there to the end of the access, 1..65535
  bool write = false;
};

enum class OdpProbe : uint8_t { ok, fault, error, table };

struct OdpProbeResult {
  OdpProbe result = OdpProbe::ok;
  OdpFault fault;
};

// The table of an ODP REG_MR: entries of `num_pages` pages where `desc` says (CONTIG /
// DIRECT: one array; INDIRECT: pointers to 4 KiB table pages, read now).
struct OdpTableResult {
  ornic_admin_status status = ORNIC_ADMIN_STATUS_SUCCESS;
  QueueMemory table;
};
OdpTableResult read_odp_table(GuestMemory& guest, const ornic_mem_desc& desc, uint32_t num_pages);

// Checks every page of [addr, addr + length) of a checked ODP MR (bounds already hold).
OdpProbeResult odp_probe(GuestMemory& memory, const MemoryRegion& mr, uint32_t key, uint64_t addr,
                         uint64_t length, bool write);

// DMA through the table; false when an entry does not allow it or the DMA fails.
bool odp_read(GuestMemory& memory, const MemoryRegion& mr, uint64_t addr, std::span<std::byte> out);
bool odp_write(GuestMemory& memory, const MemoryRegion& mr, uint64_t addr,
               std::span<const std::byte> in);

// Posts the PAGE_FAULT EQE and counts the fault.
void post_page_fault(NicCore& core, const OdpFault& fault, uint32_t qpn, bool requester);

} // namespace ornic
