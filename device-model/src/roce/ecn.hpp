// ECN in the IP header RoCEv2 rides on (RFC 3168): the low two bits of the IPv4 TOS / IPv6
// traffic class, which ornic sets on what it sends (the device-wide ect setting,
// roce.rst, "Congestion control") and a congested switch turns into CE.
#pragma once

#include <cstdint>

#include "cc/cc_state.hpp"
#include "core/hw.hpp"

namespace ornic::roce {

inline constexpr uint8_t kEcnMask = 0x03;
inline constexpr uint8_t kEcnNotEct = 0x00;
inline constexpr uint8_t kEcnEct1 = 0x01;
inline constexpr uint8_t kEcnEct0 = 0x02;
inline constexpr uint8_t kEcnCe = 0x03;

inline bool ce_marked(uint8_t traffic_class) {
  return (traffic_class & kEcnMask) == kEcnCe;
}

// The traffic class a packet goes out with: the address vector's, with the ECN field
// ornic's ect setting asks for (ORNIC_CC_ECT_AV: the vector's as it is).
inline uint8_t with_ect(const cc::CcConfig& config, uint8_t traffic_class) {
  if (config.ect == ORNIC_CC_ECT_AV)
    return traffic_class;
  return static_cast<uint8_t>((traffic_class & ~kEcnMask) | config.ect);
}

} // namespace ornic::roce
