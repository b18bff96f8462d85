// The invariant CRC of an InfiniBand packet (IBA 7.8.1): the CRC-32 of iba/crc32.hpp over
// the packet from the LRH through the pad, with the fields a switch or router may change
// replaced by ones. A packet without a GRH stays in its subnet, where switches may change
// only the LRH's VL and the BTH's reserved byte; one with a GRH may cross routers, which
// rewrite the whole LRH and the GRH's traffic class, flow label and hop limit, so all of
// those are ones (RoCE's invariant CRC is this rule with the LRH gone and IP for the GRH).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "iba/transport_packet.hpp"

namespace ornic::ib {

// `packet` runs from the LRH through the pad (the ICRC itself excluded) and holds at
// least the LRH, the GRH when `global`, and the BTH.
uint32_t compute_icrc(std::span<const uint8_t> packet, bool global);

} // namespace ornic::ib
