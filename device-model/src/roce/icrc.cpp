#include "roce/icrc.hpp"

#include <algorithm>
#include <array>

#include "iba/crc32.hpp"
#include "iba/transport_headers.hpp"
#include "roce/network_headers.hpp"

namespace ornic::roce {

using namespace iba;
namespace {

constexpr size_t kMaxMaskedBytes = Ipv6Header::kSize + UdpHeader::kSize + Bth::kSize;

// crc32_update(0, eight bytes of ones that stand in for the LRH): the same for every
// packet, so computed here, bit by bit (CRC-32, reflected, zlib's inversions), not at run
// time. A wrong value fails the golden frames and the scapy check (tests/roce).
constexpr uint32_t kAfterLrhStandIn = [] {
  uint32_t crc = 0xffffffffu;
  for (int byte = 0; byte < 8; ++byte) {
    crc ^= 0xffu;
    for (int bit = 0; bit < 8; ++bit)
      crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}();

// Up to this many bytes, compute_icrc copies the packet instead of calling the CRC twice.
constexpr size_t kOneCallBytes = 256;

// The ICRC's stand-ins for the fields routers may change: ones over them (IBA annex A17).
// `bytes` starts with the IP header and holds at least through the BTH.
void mask_variant_fields(IpFamily family, size_t ip_size, std::span<uint8_t> bytes) {
  if (family == IpFamily::ipv4) {
    bytes[1] = 0xff;  // TOS
    bytes[8] = 0xff;  // TTL
    bytes[10] = 0xff; // header checksum
    bytes[11] = 0xff;
  } else {
    bytes[0] |= 0x0f; // traffic class and flow label: everything after the version nibble
    bytes[1] = 0xff;
    bytes[2] = 0xff;
    bytes[3] = 0xff;
    bytes[7] = 0xff; // hop limit
  }
  bytes[ip_size + 6] = 0xff; // UDP checksum
  bytes[ip_size + 7] = 0xff;
  bytes[ip_size + UdpHeader::kSize + Bth::kIcrcMaskedByte] = 0xff;
}

} // namespace

uint32_t compute_icrc(IpFamily family, std::span<const uint8_t> ip_packet) {
  const size_t ip_size = family == IpFamily::ipv4 ? Ipv4Header::kSize : Ipv6Header::kSize;
  const size_t masked_size = ip_size + UdpHeader::kSize + Bth::kSize;
  if (ip_packet.size() < masked_size)
    return 0; // not a RoCE packet; callers check lengths first, this only keeps reads in bounds

  // A short packet is copied whole and checksummed in one call: for a small message, a call
  // into the CRC costs about as much as the bytes it covers.
  if (ip_packet.size() <= kOneCallBytes) {
    std::array<uint8_t, kOneCallBytes> whole;
    std::copy(ip_packet.begin(), ip_packet.end(), whole.begin());
    mask_variant_fields(family, ip_size, whole);
    return crc32_update(kAfterLrhStandIn, std::span<const uint8_t>(whole).first(ip_packet.size()));
  }
  std::array<uint8_t, kMaxMaskedBytes> masked;
  std::copy_n(ip_packet.begin(), masked_size, masked.begin());
  mask_variant_fields(family, ip_size, masked);
  const uint32_t crc =
      crc32_update(kAfterLrhStandIn, std::span<const uint8_t>(masked).first(masked_size));
  return crc32_update(crc, ip_packet.subspan(masked_size));
}

} // namespace ornic::roce
