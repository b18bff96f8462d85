// The vfio-user request handler of one client connection: validates every field of
// every message and turns it into device operations and a reply. It does no I/O, so
// tests and the fuzzer drive it directly with frames.
//
// Everything is untrusted: a malformed request gets an error reply (or, when it was
// sent NO_REPLY, is only counted and logged) and the session keeps serving.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "common/rate_limited_log.hpp"
#include "dma/dma_map_table.hpp"
#include "pci/pci_device.hpp"
#include "vfio_user/frame_decoder.hpp"
#include "vfio_user/limits.hpp"

namespace ornic::vfio_user {

struct Reply {
  Header header;
  std::vector<std::byte> payload;
};

struct SessionStats {
  uint64_t requests = 0;
  uint64_t error_replies = 0;
  uint64_t silent_errors = 0; // bad NO_REPLY messages: nobody to tell
  uint64_t posted_writes = 0; // REGION_WRITE with NO_REPLY, and each WRITE_MULTI entry
  uint64_t dma_maps = 0;
  uint64_t fdless_dma_maps = 0; // acknowledged, not DMA-able (firmware ROM areas)
  uint64_t dma_unmaps = 0;
  uint64_t resets = 0;
};

class Session {
public:
  Session(PciDevice& device, DmaMapTable& dma_maps, const ServerLimits& limits);

  // nullopt: nothing to send (NO_REPLY request, or a stray reply from the client).
  std::optional<Reply> handle(Frame frame);

  const SessionStats& stats() const { return stats_; }
  bool negotiated() const { return negotiated_; }

private:
  // Result of one handler: an errno (0 = success) and the reply payload.
  struct Outcome {
    int error = 0;
    std::vector<std::byte> payload;
  };
  static Outcome fail(int error) { return Outcome{error, {}}; }

  Outcome dispatch(Frame& frame);
  Outcome on_version(const Frame& frame);
  Outcome on_dma_map(Frame& frame);
  Outcome on_dma_unmap(const Frame& frame);
  Outcome on_device_get_info(const Frame& frame);
  Outcome on_get_region_info(const Frame& frame);
  Outcome on_get_irq_info(const Frame& frame);
  Outcome on_set_irqs(Frame& frame);
  Outcome on_region_read(const Frame& frame);
  Outcome on_region_write(const Frame& frame);
  Outcome on_region_write_multi(const Frame& frame);
  Outcome on_device_reset(const Frame& frame);

  PciDevice& device_;
  DmaMapTable& dma_maps_;
  ServerLimits limits_;
  bool negotiated_ = false;
  bool write_multiple_ = false;
  SessionStats stats_;
  RateLimitedLog error_log_;
  RateLimitedLog fdless_map_log_;
};

} // namespace ornic::vfio_user
