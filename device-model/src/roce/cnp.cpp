#include "roce/cnp.hpp"

#include <algorithm>

#include "iba/wire_bytes.hpp"
#include "roce/builder.hpp"

namespace ornic::roce {

using namespace iba;
namespace {

constexpr size_t kCnpUdpBytes = UdpHeader::kSize + Bth::kSize + kCnpReservedBytes + kIcrcSize;

} // namespace

bool build_cnp(const PacketDescription& addressing, uint32_t destination_qp, uint8_t traffic_class,
               std::vector<uint8_t>& frame) {
  const IpFamily family = addressing.family();
  if (gid_family(addressing.destination_gid) != family)
    return false;
  if (addressing.vlan_id && (*addressing.vlan_id == 0 || *addressing.vlan_id >= 0xfff))
    return false;
  const size_t ip_header_bytes = family == IpFamily::ipv4 ? Ipv4Header::kSize : Ipv6Header::kSize;
  // A QP on a VLAN sends its CNPs on it too, as its ACKs: untagged, the peer's VLAN GID
  // would never see them.
  const size_t link_header_bytes = EthernetHeader::kSize + (addressing.vlan_id ? kVlanTagBytes : 0);
  frame.assign(std::max(link_header_bytes + ip_header_bytes + kCnpUdpBytes, kMinEthernetFrameBytes),
               0);
  const std::span<uint8_t> bytes(frame);
  const uint16_t ether_type = family == IpFamily::ipv4 ? kEtherTypeIpv4 : kEtherTypeIpv6;
  EthernetHeader{.destination = addressing.destination_mac,
                 .source = addressing.source_mac,
                 .ether_type = addressing.vlan_id ? kEtherTypeVlan : ether_type}
      .encode(bytes.first<EthernetHeader::kSize>());
  if (addressing.vlan_id) {
    store_be16(
        bytes, EthernetHeader::kSize,
        static_cast<uint16_t>((addressing.priority & 7u) << 13 | (*addressing.vlan_id & 0xfffu)));
    store_be16(bytes, EthernetHeader::kSize + 2, ether_type);
  }
  const std::span<uint8_t> ip_packet =
      bytes.subspan(link_header_bytes, ip_header_bytes + kCnpUdpBytes);
  if (family == IpFamily::ipv4) {
    Ipv4Header ipv4;
    ipv4.tos = traffic_class;
    ipv4.total_length = static_cast<uint16_t>(Ipv4Header::kSize + kCnpUdpBytes);
    ipv4.ttl = addressing.hop_limit;
    ipv4.source = *ipv4_from_gid(addressing.source_gid);
    ipv4.destination = *ipv4_from_gid(addressing.destination_gid);
    ipv4.encode(ip_packet.first<Ipv4Header::kSize>());
    Ipv4Header::fill_checksum(ip_packet.first<Ipv4Header::kSize>());
  } else {
    Ipv6Header ipv6;
    ipv6.traffic_class = traffic_class;
    ipv6.flow_label = addressing.flow_label & 0xfffff;
    ipv6.payload_length = static_cast<uint16_t>(kCnpUdpBytes);
    ipv6.hop_limit = addressing.hop_limit;
    ipv6.source = ipv6_from_gid(addressing.source_gid);
    ipv6.destination = ipv6_from_gid(addressing.destination_gid);
    ipv6.encode(ip_packet.first<Ipv6Header::kSize>());
  }
  const std::span<uint8_t> udp_segment = ip_packet.subspan(ip_header_bytes);
  UdpHeader{.source_port = addressing.udp_source_port,
            .destination_port = kRoceV2UdpPort,
            .length = static_cast<uint16_t>(kCnpUdpBytes),
            .checksum = 0}
      .encode(udp_segment.first<UdpHeader::kSize>());
  Bth bth;
  bth.opcode = kCnpOpcode;
  bth.destination_qp = destination_qp & 0xffffff;
  bth.encode(udp_segment.subspan(UdpHeader::kSize).first<Bth::kSize>());
  // The reserved bytes stay zero.
  const size_t icrc_offset = ip_packet.size() - kIcrcSize;
  store_icrc(ip_packet.subspan(icrc_offset).first<kIcrcSize>(),
             compute_icrc(family, ip_packet.first(icrc_offset)));
  if (family == IpFamily::ipv6) {
    const uint16_t checksum =
        udp_checksum_ipv6(ipv6_from_gid(addressing.source_gid),
                          ipv6_from_gid(addressing.destination_gid), udp_segment);
    store_be16(udp_segment, 6, checksum);
  }
  return true;
}

bool is_cnp(const PacketDescription& parsed, std::span<const uint8_t> frame) {
  if (parsed.bth.opcode != kCnpOpcode || parsed.bth.pad_count != 0)
    return false;
  const size_t ip_header_bytes =
      parsed.family() == IpFamily::ipv4 ? Ipv4Header::kSize : Ipv6Header::kSize;
  const size_t udp_offset =
      EthernetHeader::kSize + (parsed.vlan_id ? kVlanTagBytes : 0) + ip_header_bytes;
  if (frame.size() < udp_offset + UdpHeader::kSize)
    return false;
  // The parser has checked that the UDP length matches the IP packet.
  return load_be16(frame, udp_offset + 4) == kCnpUdpBytes;
}

} // namespace ornic::roce
