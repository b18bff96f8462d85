#include "roce/builder.hpp"

#include <algorithm>

#include "iba/grh.hpp"
#include "iba/opcode_table.hpp"
#include "iba/transport_codec.hpp"
#include "iba/wire_bytes.hpp"

namespace ornic::roce {

using namespace iba;

std::string_view build_error_name(BuildError error) {
  switch (error) {
  case BuildError::ok:
    return "ok";
  case BuildError::unknown_opcode:
    return "unknown_opcode";
  case BuildError::missing_extension_header:
    return "missing_extension_header";
  case BuildError::unexpected_extension_header:
    return "unexpected_extension_header";
  case BuildError::unexpected_payload:
    return "unexpected_payload";
  case BuildError::mixed_gid_families:
    return "mixed_gid_families";
  case BuildError::too_long:
    return "too_long";
  case BuildError::bad_vlan:
    return "bad_vlan";
  }
  return "unknown";
}

size_t frame_size(IpFamily family, size_t transport_header_bytes, size_t payload_bytes) {
  const size_t ip_bytes = family == IpFamily::ipv4 ? Ipv4Header::kSize : Ipv6Header::kSize;
  return std::max(kMinEthernetFrameBytes, EthernetHeader::kSize + ip_bytes + UdpHeader::kSize +
                                              transport_header_bytes + payload_bytes +
                                              pad_count_for(payload_bytes) + kIcrcSize);
}

BuildError plan_frame(const TransportHeaders& headers, const Addressing& addressing,
                      size_t payload_bytes, FramePlan& plan) {
  switch (check_transport_headers(headers, payload_bytes)) {
  case TransportMismatch::none:
    break;
  case TransportMismatch::unknown_opcode:
    return BuildError::unknown_opcode;
  case TransportMismatch::missing_extension_header:
    return BuildError::missing_extension_header;
  case TransportMismatch::unexpected_extension_header:
    return BuildError::unexpected_extension_header;
  case TransportMismatch::unexpected_payload:
    return BuildError::unexpected_payload;
  }
  const std::optional<OpcodeInfo> info = lookup_opcode(headers.bth.opcode);
  const bool v1 = addressing.roce_v1;
  // A GRH carries GIDs of either form; IP carries one family end to end.
  const IpFamily family = v1 ? IpFamily::ipv6 : addressing.family();
  if (!v1 && gid_family(addressing.destination_gid) != family)
    return BuildError::mixed_gid_families;

  const size_t ip_header_bytes = family == IpFamily::ipv4 ? Ipv4Header::kSize : Ipv6Header::kSize;
  const size_t udp_header_bytes = v1 ? 0 : UdpHeader::kSize;
  const uint8_t pad_count = pad_count_for(payload_bytes);
  // Checked before the sum so that no size_t wraps.
  if (payload_bytes > 0xffff)
    return BuildError::too_long;
  const size_t udp_bytes =
      udp_header_bytes + info->header_bytes() + payload_bytes + pad_count + kIcrcSize;
  // IPv4 total length counts its own header; IPv6 and GRH payload lengths and UDP length
  // do not.
  if (udp_bytes + (family == IpFamily::ipv4 ? ip_header_bytes : 0) > 0xffff)
    return BuildError::too_long;
  if (addressing.vlan_id && (*addressing.vlan_id == 0 || *addressing.vlan_id >= 0xfff))
    return BuildError::bad_vlan;
  const size_t link_header_bytes = EthernetHeader::kSize + (addressing.vlan_id ? kVlanTagBytes : 0);
  const size_t payload_offset =
      link_header_bytes + ip_header_bytes + udp_header_bytes + info->header_bytes();
  plan = FramePlan{.family = family,
                   .link_header_bytes = link_header_bytes,
                   .roce_v1 = v1,
                   .ip_header_bytes = ip_header_bytes,
                   .udp_bytes = udp_bytes,
                   .payload_offset = payload_offset,
                   .payload_bytes = payload_bytes,
                   .pad_count = pad_count,
                   .frame_bytes = std::max(link_header_bytes + ip_header_bytes + udp_bytes,
                                           kMinEthernetFrameBytes)};
  return BuildError::ok;
}

std::span<uint8_t> write_headers(const TransportHeaders& headers, const Addressing& packet,
                                 const FramePlan& plan, std::span<uint8_t> frame) {
  const std::span<uint8_t> bytes = frame.first(plan.frame_bytes);
  // Every header byte an encoder leaves alone is zero, as are pad and Ethernet padding.
  std::fill_n(bytes.begin(), plan.payload_offset, uint8_t{0});
  const size_t payload_end = plan.payload_offset + plan.payload_bytes;
  std::fill(bytes.begin() + static_cast<std::ptrdiff_t>(payload_end), bytes.end(), uint8_t{0});

  const IpFamily family = plan.family;
  uint16_t ether_type = family == IpFamily::ipv4 ? kEtherTypeIpv4 : kEtherTypeIpv6;
  if (plan.roce_v1)
    ether_type = kEtherTypeRoceV1;
  if (packet.vlan_id) {
    EthernetHeader{.destination = packet.destination_mac,
                   .source = packet.source_mac,
                   .ether_type = kEtherTypeVlan}
        .encode(bytes.first<EthernetHeader::kSize>());
    store_be16(bytes, EthernetHeader::kSize,
               static_cast<uint16_t>((packet.priority & 7u) << 13 | (*packet.vlan_id & 0xfffu)));
    store_be16(bytes, EthernetHeader::kSize + 2, ether_type);
  } else {
    EthernetHeader{.destination = packet.destination_mac,
                   .source = packet.source_mac,
                   .ether_type = ether_type}
        .encode(bytes.first<EthernetHeader::kSize>());
  }

  const std::span<uint8_t> ip_packet =
      bytes.subspan(plan.link_header_bytes, plan.ip_header_bytes + plan.udp_bytes);
  if (plan.roce_v1) {
    Grh{.traffic_class = packet.traffic_class,
        .flow_label = packet.flow_label & 0xfffff,
        .payload_length = static_cast<uint16_t>(plan.udp_bytes),
        .hop_limit = packet.hop_limit,
        .source_gid = packet.source_gid,
        .destination_gid = packet.destination_gid}
        .encode(ip_packet.first<Grh::kSize>());
    write_transport_headers(headers, *lookup_opcode(headers.bth.opcode), plan.pad_count,
                            ip_packet.subspan(Grh::kSize));
    return bytes.subspan(plan.payload_offset, plan.payload_bytes);
  }
  if (family == IpFamily::ipv4) {
    Ipv4Header ipv4;
    ipv4.tos = packet.traffic_class;
    ipv4.total_length = static_cast<uint16_t>(Ipv4Header::kSize + plan.udp_bytes);
    ipv4.ttl = packet.hop_limit;
    ipv4.source = *ipv4_from_gid(packet.source_gid);
    ipv4.destination = *ipv4_from_gid(packet.destination_gid);
    ipv4.encode(ip_packet.first<Ipv4Header::kSize>());
    Ipv4Header::fill_checksum(ip_packet.first<Ipv4Header::kSize>());
  } else {
    Ipv6Header ipv6;
    ipv6.traffic_class = packet.traffic_class;
    ipv6.flow_label = packet.flow_label & 0xfffff;
    ipv6.payload_length = static_cast<uint16_t>(plan.udp_bytes);
    ipv6.hop_limit = packet.hop_limit;
    ipv6.source = ipv6_from_gid(packet.source_gid);
    ipv6.destination = ipv6_from_gid(packet.destination_gid);
    ipv6.encode(ip_packet.first<Ipv6Header::kSize>());
  }

  const std::span<uint8_t> udp_segment = ip_packet.subspan(plan.ip_header_bytes);
  UdpHeader{.source_port = packet.udp_source_port,
            .destination_port = kRoceV2UdpPort,
            .length = static_cast<uint16_t>(plan.udp_bytes),
            .checksum = 0}
      .encode(udp_segment.first<UdpHeader::kSize>());

  write_transport_headers(headers, *lookup_opcode(headers.bth.opcode), plan.pad_count,
                          udp_segment.subspan(UdpHeader::kSize));
  return bytes.subspan(plan.payload_offset, plan.payload_bytes);
}

void seal_frame(const Addressing& packet, const FramePlan& plan, std::span<uint8_t> frame) {
  const std::span<uint8_t> ip_packet =
      frame.subspan(plan.link_header_bytes, plan.ip_header_bytes + plan.udp_bytes);
  const size_t icrc_offset = ip_packet.size() - kIcrcSize;
  store_icrc(ip_packet.subspan(icrc_offset).first<kIcrcSize>(),
             plan.roce_v1 ? compute_icrc_v1(ip_packet.first(icrc_offset))
                          : compute_icrc(plan.family, ip_packet.first(icrc_offset)));

  // The ICRC treats the UDP checksum as ones, so it can be filled in last.
  if (plan.family == IpFamily::ipv6 && !plan.roce_v1) {
    const std::span<uint8_t> udp_segment = ip_packet.subspan(plan.ip_header_bytes);
    const uint16_t checksum = udp_checksum_ipv6(ipv6_from_gid(packet.source_gid),
                                                ipv6_from_gid(packet.destination_gid), udp_segment);
    store_be16(udp_segment, 6, checksum);
  }
}

BuildError build_frame(const PacketDescription& packet, std::span<const uint8_t> payload,
                       std::vector<uint8_t>& frame) {
  FramePlan plan;
  if (const BuildError error = plan_frame(packet, payload.size(), plan); error != BuildError::ok)
    return error;
  frame.resize(plan.frame_bytes);
  const std::span<uint8_t> area = write_headers(packet, plan, frame);
  std::copy(payload.begin(), payload.end(), area.begin());
  seal_frame(packet, plan, frame);
  return BuildError::ok;
}

} // namespace ornic::roce
