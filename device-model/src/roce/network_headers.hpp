// Ethernet II, IPv4, IPv6 and UDP headers as RoCEv2 uses them: typed fields, explicit
// network-order encode/decode at fixed byte offsets.
//
// encode() writes exactly kSize bytes; decode() reads exactly kSize bytes. Callers check
// the length first (the parser does, with a distinct error per header).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace ornic::roce {

using MacAddress = std::array<uint8_t, 6>;
using Ipv4Address = std::array<uint8_t, 4>;
using Ipv6Address = std::array<uint8_t, 16>;

inline constexpr uint16_t kEtherTypeIpv4 = 0x0800;
inline constexpr uint16_t kEtherTypeIpv6 = 0x86dd;
// RoCE v1: the IB transport behind a GRH, straight in Ethernet (IBA annex A16).
inline constexpr uint16_t kEtherTypeRoceV1 = 0x8915;
// An 802.1Q tag: this Ethertype, then the TCI (PCP 3 bits, DEI 1, VLAN ID 12), then the
// frame's own Ethertype.
inline constexpr uint16_t kEtherTypeVlan = 0x8100;
inline constexpr size_t kVlanTagBytes = 4;
inline constexpr uint8_t kIpProtocolUdp = 17;
inline constexpr uint16_t kRoceV2UdpPort = 4791;

struct EthernetHeader {
  static constexpr size_t kSize = 14;
  MacAddress destination{};
  MacAddress source{};
  uint16_t ether_type = 0;

  void encode(std::span<uint8_t, kSize> out) const;
  static EthernetHeader decode(std::span<const uint8_t, kSize> in);
  bool operator==(const EthernetHeader&) const = default;
};

struct Ipv4Header {
  static constexpr size_t kSize = 20; // IHL 5: the device never sends options
  static constexpr uint16_t kDontFragment = 0x4000;
  static constexpr uint16_t kMoreFragments = 0x2000;
  static constexpr uint16_t kFragmentOffsetMask = 0x1fff;
  uint8_t version = 4;
  uint8_t ihl = 5; // in 32-bit words
  uint8_t tos = 0; // DSCP << 2 | ECN, the RoCE "traffic class"
  uint16_t total_length = 0;
  uint16_t identification = 0;
  uint16_t flags_fragment = kDontFragment;
  uint8_t ttl = 64;
  uint8_t protocol = kIpProtocolUdp;
  uint16_t checksum = 0;
  Ipv4Address source{};
  Ipv4Address destination{};

  // Writes the header with `checksum` as stored; see fill_checksum.
  void encode(std::span<uint8_t, kSize> out) const;
  static Ipv4Header decode(std::span<const uint8_t, kSize> in);
  // Computes the header checksum over the encoded bytes and writes it in place.
  static void fill_checksum(std::span<uint8_t, kSize> encoded);
  // True if the ones'-complement sum of the encoded header (checksum included) verifies.
  static bool checksum_valid(std::span<const uint8_t, kSize> encoded);
  bool operator==(const Ipv4Header&) const = default;
};

struct Ipv6Header {
  static constexpr size_t kSize = 40;
  uint8_t version = 6;
  uint8_t traffic_class = 0;
  uint32_t flow_label = 0; // 20 bits
  uint16_t payload_length = 0;
  uint8_t next_header = kIpProtocolUdp;
  uint8_t hop_limit = 64;
  Ipv6Address source{};
  Ipv6Address destination{};

  void encode(std::span<uint8_t, kSize> out) const;
  static Ipv6Header decode(std::span<const uint8_t, kSize> in);
  bool operator==(const Ipv6Header&) const = default;
};

struct UdpHeader {
  static constexpr size_t kSize = 8;
  uint16_t source_port = 0;
  uint16_t destination_port = kRoceV2UdpPort;
  uint16_t length = 0;
  uint16_t checksum = 0;

  void encode(std::span<uint8_t, kSize> out) const;
  static UdpHeader decode(std::span<const uint8_t, kSize> in);
  bool operator==(const UdpHeader&) const = default;
};

// The UDP checksum over IPv4 (optional there: the device sends 0 but verifies a non-zero
// one), same conventions as udp_checksum_ipv6.
uint16_t udp_checksum_ipv4(const Ipv4Address& source, const Ipv4Address& destination,
                           std::span<const uint8_t> udp_segment);

// The UDP checksum over IPv6 (mandatory there): pseudo header + UDP header + data, with the
// checksum field of `udp_segment` taken as zero. Never returns 0 (0 means "none").
uint16_t udp_checksum_ipv6(const Ipv6Address& source, const Ipv6Address& destination,
                           std::span<const uint8_t> udp_segment);

// The UDP source port of a RoCEv2 flow: the configured port if non-zero, else a hash of the
// QP pair in 0xc000..0xffff, constant per QP so a flow stays on one ECMP path.
uint16_t roce_udp_source_port(uint16_t configured_port, uint32_t source_qpn,
                              uint32_t destination_qpn);

} // namespace ornic::roce
