#include "port/pfc_options.hpp"

#include "port/port.hpp"

namespace ornic {

std::string check_pfc_options(const PfcOptions& options) {
  if (options.speed_mbps == 0)
    return "the port speed must not be 0";
  if (options.rx_buffer_bytes < kMaxFrameBytes)
    return "the receive buffer must hold a maximum frame (" + std::to_string(kMaxFrameBytes) +
           " bytes)";
  if (options.tx_buffer_bytes < kMaxFrameBytes)
    return "the transmit buffer must hold a maximum frame (" + std::to_string(kMaxFrameBytes) +
           " bytes)";
  if (options.xon_bytes >= options.xoff_bytes)
    return "XON must be below XOFF";
  // Past XOFF the buffer must still take one more maximum frame, or a lossless priority
  // could drop the frame that crosses the threshold.
  if (options.xoff_bytes + kMaxFrameBytes > options.rx_buffer_bytes)
    return "XOFF must leave at least one maximum frame (" + std::to_string(kMaxFrameBytes) +
           " bytes) of the receive buffer as headroom";
  if (options.rx_ecn_bytes != 0 && options.rx_rate_mbps == 0)
    return "ECN marking on receive needs a receive rate (only a buffer can be congested)";
  if (options.rx_ecn_bytes >= options.rx_buffer_bytes)
    return "the ECN threshold must be below the receive buffer";
  return {};
}

} // namespace ornic
