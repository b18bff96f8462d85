// Tells RoCE frames for this port (RoCEv2: UDP 4791 to one of its GIDs, or to a multicast
// IP address: roce.rst, "Multicast"; RoCE v1: Ethertype 0x8915 to one of its v1 GIDs or a
// multicast GID) from plain Ethernet traffic, so they go to the RDMA
// engine and never to an Ethernet RX ring (ethernet.rst).
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <span>

#include "core/resources.hpp"

namespace ornic {

inline constexpr uint16_t kRoceV2UdpPort = 4791;

bool is_roce_for_port(std::span<const std::byte> frame,
                      const std::array<std::optional<GidEntry>, limits::kGidTableSize>& gids);

} // namespace ornic
