// The one length rule every backend applies, on send and on receive.
#pragma once

#include <cstddef>

#include "port/port.hpp"

namespace ornic {

enum class FrameLength { ok, runt, oversize };

constexpr FrameLength classify_frame_length(size_t bytes) {
  if (bytes < kMinFrameBytes)
    return FrameLength::runt;
  if (bytes > kMaxFrameBytes)
    return FrameLength::oversize;
  return FrameLength::ok;
}

// Counts a tx frame that fails the length rule; true if it may be sent.
inline bool admit_tx_frame(size_t bytes, PortCounters& counters) {
  switch (classify_frame_length(bytes)) {
  case FrameLength::runt:
    ++counters.tx_dropped_runt;
    return false;
  case FrameLength::oversize:
    ++counters.tx_dropped_oversize;
    return false;
  case FrameLength::ok:
    break;
  }
  return true;
}

// Counts an rx frame that fails the length rule; true if it may be delivered.
inline bool admit_rx_frame(size_t bytes, PortCounters& counters) {
  switch (classify_frame_length(bytes)) {
  case FrameLength::runt:
    ++counters.rx_dropped_runt;
    return false;
  case FrameLength::oversize:
    ++counters.rx_dropped_oversize;
    return false;
  case FrameLength::ok:
    break;
  }
  return true;
}

} // namespace ornic
