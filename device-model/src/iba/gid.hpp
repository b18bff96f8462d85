// The Global Identifier (IBA 4.1.1): 128 bits naming a port or a multicast group, in the
// form of an IPv6 address. IB carries it in the GRH; RoCEv2 as the IP address itself.
#pragma once

#include <array>
#include <cstdint>

namespace ornic::iba {

using Gid = std::array<uint8_t, 16>;

} // namespace ornic::iba
