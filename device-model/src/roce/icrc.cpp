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

// Where the fields routers may change lie, in the bytes from the network header through
// the BTH: an IPv4 header, an IPv6 header or (RoCE v1) a GRH in IPv6's shape, then UDP
// (RoCEv2 only) and the BTH.
enum class Network : uint8_t { ipv4, ipv6, grh };

size_t network_header_bytes(Network network) {
  return network == Network::ipv4 ? Ipv4Header::kSize : Ipv6Header::kSize;
}

size_t masked_bytes(Network network) {
  return network_header_bytes(network) + (network == Network::grh ? 0 : UdpHeader::kSize) +
         Bth::kSize;
}

// The ICRC's stand-ins for the fields routers may change: ones over them (IBA annexes A16
// and A17). `bytes` starts with the network header and holds at least through the BTH.
void mask_variant_fields(Network network, std::span<uint8_t> bytes) {
  if (network == Network::ipv4) {
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
  size_t bth = network_header_bytes(network);
  if (network != Network::grh) {
    bytes[bth + 6] = 0xff; // UDP checksum
    bytes[bth + 7] = 0xff;
    bth += UdpHeader::kSize;
  }
  bytes[bth + Bth::kIcrcMaskedByte] = 0xff;
}

uint32_t icrc_of(Network network, std::span<const uint8_t> packet) {
  const size_t masked_size = masked_bytes(network);
  if (packet.size() < masked_size)
    return 0; // not a RoCE packet; callers check lengths first, this only keeps reads in bounds
  // A short packet is copied whole and checksummed in one call: for a small message, a call
  // into the CRC costs about as much as the bytes it covers.
  if (packet.size() <= kOneCallBytes) {
    std::array<uint8_t, kOneCallBytes> whole;
    std::copy(packet.begin(), packet.end(), whole.begin());
    mask_variant_fields(network, whole);
    return crc32_update(kAfterLrhStandIn, std::span<const uint8_t>(whole).first(packet.size()));
  }
  std::array<uint8_t, kMaxMaskedBytes> masked;
  std::copy_n(packet.begin(), masked_size, masked.begin());
  mask_variant_fields(network, masked);
  const uint32_t crc =
      crc32_update(kAfterLrhStandIn, std::span<const uint8_t>(masked).first(masked_size));
  return crc32_update(crc, packet.subspan(masked_size));
}

} // namespace

uint32_t compute_icrc(IpFamily family, std::span<const uint8_t> ip_packet) {
  return icrc_of(family == IpFamily::ipv4 ? Network::ipv4 : Network::ipv6, ip_packet);
}

uint32_t compute_icrc_v1(std::span<const uint8_t> grh_packet) {
  return icrc_of(Network::grh, grh_packet);
}

} // namespace ornic::roce
