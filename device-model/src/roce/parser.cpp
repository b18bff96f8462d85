#include "roce/parser.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include "iba/grh.hpp"
#include "iba/transport_codec.hpp"
#include "iba/wire_bytes.hpp"

namespace ornic::roce {

using namespace iba;
namespace {

// Ethernet, IPv6 (the longer IP header), UDP and, as a bound on any opcode's transport
// headers, BTH with every extension header at once.
constexpr size_t kAllTransportHeaderBytes = Bth::kSize + Xrceth::kSize + Deth::kSize + Feth::kSize +
                                            Reth::kSize + AtomicEth::kSize + Aeth::kSize +
                                            AtomicAckEth::kSize + ImmDt::kSize + Ieth::kSize;
constexpr size_t kHeaderCopyBytes = EthernetHeader::kSize + kVlanTagBytes + Ipv6Header::kSize +
                                    UdpHeader::kSize + kAllTransportHeaderBytes;

// The IP layer's result: where the UDP segment is and what addressing it carried.
struct IpLayer {
  IpFamily family{};
  size_t header_bytes = 0;
  std::span<const uint8_t> ip_packet; // IP header through the end of the IP payload
};

// `bytes` is the frame after the Ethernet header, `copy` the same bytes' header copy.
ParseError parse_ipv4(std::span<const uint8_t> bytes, std::span<const uint8_t> copy, IpLayer& ip,
                      Addressing& packet) {
  if (bytes.size() < Ipv4Header::kSize)
    return ParseError::ip_header_truncated;
  const auto encoded = copy.first<Ipv4Header::kSize>();
  const Ipv4Header header = Ipv4Header::decode(encoded);
  if (header.version != 4)
    return ParseError::ipv4_bad_version;
  if (header.ihl != 5)
    return ParseError::ipv4_options;
  if (header.total_length < Ipv4Header::kSize || header.total_length > bytes.size())
    return ParseError::ipv4_bad_total_length;
  if (!Ipv4Header::checksum_valid(encoded))
    return ParseError::ipv4_bad_checksum;
  if ((header.flags_fragment & (Ipv4Header::kMoreFragments | Ipv4Header::kFragmentOffsetMask)) != 0)
    return ParseError::ipv4_fragment;
  if (header.protocol != kIpProtocolUdp)
    return ParseError::not_udp;
  ip = IpLayer{IpFamily::ipv4, Ipv4Header::kSize, bytes.first(header.total_length)};
  packet.source_gid = gid_from_ipv4(header.source);
  packet.destination_gid = gid_from_ipv4(header.destination);
  packet.traffic_class = header.tos;
  packet.flow_label = 0;
  packet.hop_limit = header.ttl;
  return ParseError::ok;
}

ParseError parse_ipv6(std::span<const uint8_t> bytes, std::span<const uint8_t> copy, IpLayer& ip,
                      Addressing& packet) {
  if (bytes.size() < Ipv6Header::kSize)
    return ParseError::ip_header_truncated;
  const Ipv6Header header = Ipv6Header::decode(copy.first<Ipv6Header::kSize>());
  if (header.version != 6)
    return ParseError::ipv6_bad_version;
  if (header.payload_length > bytes.size() - Ipv6Header::kSize)
    return ParseError::ipv6_bad_payload_length;
  if (header.next_header != kIpProtocolUdp)
    return ParseError::not_udp;
  // A GID selects its encapsulation, so an IPv4-mapped address inside IPv6 names no GID
  // the description could carry.
  if (is_ipv4_mapped(header.source) || is_ipv4_mapped(header.destination))
    return ParseError::ipv6_mapped_address;
  ip = IpLayer{IpFamily::ipv6, Ipv6Header::kSize,
               bytes.first(Ipv6Header::kSize + header.payload_length)};
  packet.source_gid = gid_from_ipv6(header.source);
  packet.destination_gid = gid_from_ipv6(header.destination);
  packet.traffic_class = header.traffic_class;
  packet.flow_label = header.flow_label;
  packet.hop_limit = header.hop_limit;
  return ParseError::ok;
}

// RoCE v1: the GRH stands where IP and UDP would, and names the GIDs as they are.
ParseError parse_grh(std::span<const uint8_t> bytes, std::span<const uint8_t> copy, IpLayer& ip,
                     Addressing& packet) {
  if (bytes.size() < Grh::kSize)
    return ParseError::grh_truncated;
  const Grh grh = Grh::decode(copy.first<Grh::kSize>());
  if (grh.ip_version != Grh::kIpVersion)
    return ParseError::grh_bad_version;
  if (grh.next_header != Grh::kNextHeaderIba)
    return ParseError::grh_bad_next_header;
  if (grh.payload_length > bytes.size() - Grh::kSize)
    return ParseError::grh_bad_payload_length;
  ip = IpLayer{IpFamily::ipv6, Grh::kSize, bytes.first(Grh::kSize + grh.payload_length)};
  packet.source_gid = grh.source_gid;
  packet.destination_gid = grh.destination_gid;
  packet.traffic_class = grh.traffic_class;
  packet.flow_label = grh.flow_label;
  packet.hop_limit = grh.hop_limit;
  packet.udp_source_port = 0;
  packet.roce_v1 = true;
  return ParseError::ok;
}

uint16_t udp_checksum_of(IpFamily family, const Addressing& packet,
                         std::span<const uint8_t> segment) {
  if (family == IpFamily::ipv4)
    return udp_checksum_ipv4(*ipv4_from_gid(packet.source_gid),
                             *ipv4_from_gid(packet.destination_gid), segment);
  return udp_checksum_ipv6(ipv6_from_gid(packet.source_gid), ipv6_from_gid(packet.destination_gid),
                           segment);
}

// `copy` is the IP packet's header copy.
ParseError parse_udp(const IpLayer& ip, std::span<const uint8_t> copy, Addressing& packet) {
  const std::span<const uint8_t> segment = ip.ip_packet.subspan(ip.header_bytes);
  if (segment.size() < UdpHeader::kSize)
    return ParseError::udp_header_truncated;
  const UdpHeader udp = UdpHeader::decode(copy.subspan(ip.header_bytes).first<UdpHeader::kSize>());
  if (udp.length != segment.size())
    return ParseError::udp_bad_length;
  // Zero means "not computed": optional on IPv4, and RoCE senders commonly leave it zero on
  // IPv6 too. Any other value must verify, as the ICRC does not cover it.
  if (udp.checksum != 0 && udp.checksum != udp_checksum_of(ip.family, packet, segment))
    return ParseError::udp_bad_checksum;
  if (udp.destination_port != kRoceV2UdpPort)
    return ParseError::not_roce;
  packet.udp_source_port = udp.source_port;
  return ParseError::ok;
}

} // namespace

ParseError parse_frame(std::span<const uint8_t> frame, ParsedPacket& parsed) {
  parsed = ParsedPacket{};
  return parse_frame(frame, parsed.description, parsed.description, parsed.opcode_info,
                     parsed.payload);
}

ParseError parse_frame(std::span<const uint8_t> frame, TransportHeaders& headers,
                       Addressing& packet, OpcodeInfo& opcode_info,
                       std::span<const uint8_t>& payload) {
  if (frame.size() < EthernetHeader::kSize)
    return ParseError::frame_too_short;
  // The frame may lie in memory another process writes (an shm: port's ring slot): every
  // header field is decoded from this private copy, so a length is read once and the value
  // checked is the value used. The payload, the checksums and the ICRC are read from the
  // frame itself; a peer that changes them meanwhile garbles only its own packet.
  std::array<uint8_t, kHeaderCopyBytes> copy_bytes;
  const size_t copied = std::min(frame.size(), copy_bytes.size());
  std::memcpy(copy_bytes.data(), frame.data(), copied);
  const std::span<const uint8_t> copy(copy_bytes.data(), copied);

  const EthernetHeader ethernet = EthernetHeader::decode(copy.first<EthernetHeader::kSize>());
  packet.destination_mac = ethernet.destination;
  packet.source_mac = ethernet.source;
  uint16_t ether_type = ethernet.ether_type;
  size_t link_header_bytes = EthernetHeader::kSize;
  if (ether_type == kEtherTypeVlan) {
    // One 802.1Q tag; a VLAN ID of 0 tags the priority only (802.1p), 4095 is reserved.
    if (copy.size() < EthernetHeader::kSize + kVlanTagBytes)
      return ParseError::vlan_tag_truncated;
    const uint16_t tci = load_be16(copy, EthernetHeader::kSize);
    ether_type = load_be16(copy, EthernetHeader::kSize + 2);
    link_header_bytes += kVlanTagBytes;
    if ((tci & 0xfff) == 0xfff || ether_type == kEtherTypeVlan)
      return ParseError::bad_vlan_tag;
    packet.priority = static_cast<uint8_t>(tci >> 13);
    if ((tci & 0xfff) != 0)
      packet.vlan_id = static_cast<uint16_t>(tci & 0xfff);
  }

  IpLayer ip;
  const std::span<const uint8_t> after_ethernet = frame.subspan(link_header_bytes);
  const std::span<const uint8_t> copy_after_ethernet = copy.subspan(link_header_bytes);
  ParseError error = ParseError::not_ip;
  if (ether_type == kEtherTypeIpv4)
    error = parse_ipv4(after_ethernet, copy_after_ethernet, ip, packet);
  else if (ether_type == kEtherTypeIpv6)
    error = parse_ipv6(after_ethernet, copy_after_ethernet, ip, packet);
  else if (ether_type == kEtherTypeRoceV1)
    error = parse_grh(after_ethernet, copy_after_ethernet, ip, packet);
  if (error != ParseError::ok)
    return error;
  const size_t udp_bytes = packet.roce_v1 ? 0 : UdpHeader::kSize;
  if (!packet.roce_v1 && (error = parse_udp(ip, copy_after_ethernet, packet)) != ParseError::ok)
    return error;

  const size_t transport_offset = link_header_bytes + ip.header_bytes + udp_bytes;
  const std::span<const uint8_t> transport = ip.ip_packet.subspan(ip.header_bytes + udp_bytes);
  if (transport.size() < Bth::kSize + kIcrcSize)
    return ParseError::bth_truncated;
  headers.bth = Bth::decode(copy.subspan(transport_offset).first<Bth::kSize>());
  if (headers.bth.transport_version != kBthTransportVersion)
    return ParseError::bad_transport_version;

  const size_t icrc_offset = ip.ip_packet.size() - kIcrcSize;
  if (load_icrc(ip.ip_packet.subspan(icrc_offset).first<kIcrcSize>()) !=
      (packet.roce_v1 ? compute_icrc_v1(ip.ip_packet.first(icrc_offset))
                      : compute_icrc(ip.family, ip.ip_packet.first(icrc_offset))))
    return ParseError::icrc_mismatch;

  // kHeaderCopyBytes holds the longest transport headers there are after the longest
  // network headers, so the copy holds the opcode's headers whenever the packet does.
  switch (read_transport(copy.subspan(transport_offset),
                         transport.first(transport.size() - kIcrcSize), headers, opcode_info,
                         payload)) {
  case TransportError::ok:
    return ParseError::ok;
  case TransportError::unknown_opcode:
    return ParseError::unknown_opcode;
  case TransportError::extension_headers_truncated:
    return ParseError::extension_headers_truncated;
  case TransportError::pad_exceeds_payload:
    return ParseError::pad_exceeds_payload;
  case TransportError::payload_misaligned:
    return ParseError::payload_misaligned;
  case TransportError::unexpected_payload:
    return ParseError::unexpected_payload;
  }
  return ParseError::unknown_opcode;
}

} // namespace ornic::roce
