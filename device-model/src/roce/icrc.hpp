// The RoCEv2 invariant CRC: CRC-32 (crc32.hpp) over 8 bytes of 0xff (standing in for the IB LRH),
// the IP and UDP headers with the fields routers may rewrite masked to ones, the BTH with
// its FECN/BECN byte masked, then the rest of the packet up to and including the pad.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "iba/transport_packet.hpp"

namespace ornic::roce {

enum class IpFamily : uint8_t { ipv4, ipv6 };

// The same constant as the transport's, so code using both namespaces sees one name.
using iba::kIcrcSize;

// `ip_packet` runs from the first byte of the IP header to the last pad byte (the ICRC
// itself excluded) and must hold at least the IP, UDP and BTH headers.
uint32_t compute_icrc(IpFamily family, std::span<const uint8_t> ip_packet);
// RoCE v1 (IBA annex A16): `grh_packet` runs from the first byte of the GRH to the last pad
// byte; the GRH's traffic class, flow label and hop limit are masked as IPv6's are.
uint32_t compute_icrc_v1(std::span<const uint8_t> grh_packet);

using iba::load_icrc;
using iba::store_icrc;

} // namespace ornic::roce
