// What the server advertises in VERSION and enforces on every message.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ornic::vfio_user {

struct ServerLimits {
  uint32_t max_msg_fds = 16;              // QEMU accepts at most 16
  uint32_t max_data_xfer_size = 1u << 20; // bytes of data in one region access
  uint64_t pgsizes = 4096;                // DMA page sizes (bitmap)
  uint32_t max_dma_maps = 65535;          // QEMU accepts at most 65535
  size_t max_version_json = 4096;         // capability JSON we are willing to parse

  // Largest message accepted: a REGION_WRITE of max_data_xfer_size bytes. Everything
  // else (VERSION, WRITE_MULTI with 200 entries, SET_IRQS) is far smaller.
  size_t max_message_size() const { return 16 + 16 + size_t{max_data_xfer_size}; }
};

} // namespace ornic::vfio_user
