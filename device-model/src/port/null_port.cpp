#include "port/null_port.hpp"

#include "port/frame_length.hpp"

namespace ornic {

void NullPort::send(std::span<const std::byte> frame) {
  if (admit_tx_frame(frame.size(), counters_))
    ++counters_.tx_dropped_no_peer;
}

} // namespace ornic
