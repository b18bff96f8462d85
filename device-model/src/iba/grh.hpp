// The Global Route Header (IBA 8.3): 40 bytes in the form of an IPv6 header, carried by an
// InfiniBand packet that leaves its subnet or goes to a multicast group, and by RoCEv1 in
// place of IP. RoCEv2 carries the same fields as a real IPv6 (or IPv4) header instead.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "iba/gid.hpp"

namespace ornic::iba {

struct Grh {
  static constexpr size_t kSize = 40;
  static constexpr uint8_t kIpVersion = 6;
  // NxtHdr of a GRH followed by an IBA transport header (IBA 8.3.1).
  static constexpr uint8_t kNextHeaderIba = 0x1b;

  uint8_t ip_version = kIpVersion;
  uint8_t traffic_class = 0;
  uint32_t flow_label = 0;     // 20 bits
  uint16_t payload_length = 0; // bytes after the GRH, through the ICRC
  uint8_t next_header = kNextHeaderIba;
  uint8_t hop_limit = 0;
  Gid source_gid{};
  Gid destination_gid{};

  void encode(std::span<uint8_t, kSize> out) const;
  static Grh decode(std::span<const uint8_t, kSize> in);
  bool operator==(const Grh&) const = default;
};

} // namespace ornic::iba
