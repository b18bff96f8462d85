// A bottleneck link on the port (`--link-rate MBIT`, `--link-queue BYTES`,
// `--ecn-threshold BYTES`; shaped_port.hpp): the transmit queue drains at the link rate,
// drops beyond its size and marks ECN-capable frames CE beyond the threshold.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ornic {

struct LinkShaping {
  uint64_t rate_mbps = 0;         // 0: no shaping, no queue
  size_t queue_bytes = 1 << 20;   // tail drop beyond this backlog
  size_t ecn_threshold_bytes = 0; // 0: never mark

  bool any() const { return rate_mbps != 0; }
};

} // namespace ornic
