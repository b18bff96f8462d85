// Turns an ornic_mem_desc from an admin command into QueueMemory, validating every
// field and reading DIRECT / INDIRECT page lists from host memory (queues.rst).
#pragma once

#include <cstdint>

#include "core/hw.hpp"
#include "core/queue_memory.hpp"
#include "dma/guest_memory.hpp"

namespace ornic {

struct MemDescRules {
  uint64_t min_bytes = 0;        // the object must fit: num_pages << page_shift >= this
  uint64_t contig_alignment = 0; // CONTIG addr alignment; 0 = the page size
  uint32_t max_pages = 0;
};

struct MemDescResult {
  ornic_admin_status status = ORNIC_ADMIN_STATUS_SUCCESS;
  QueueMemory memory;
};

MemDescResult read_mem_desc(GuestMemory& guest, const ornic_mem_desc& desc,
                            const MemDescRules& rules);

} // namespace ornic
