// Why a received frame is not an acceptable RoCEv2 packet: one reason per counter.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ornic::roce {

enum class ParseError : uint8_t {
  ok,
  frame_too_short,             // shorter than an Ethernet header
  not_ip,                      // EtherType neither IPv4, IPv6 nor RoCE v1
  ip_header_truncated,         // frame ends inside the IP header
  ipv4_bad_version,            // EtherType IPv4 but version != 4
  ipv4_options,                // IHL != 5 (the device sends and accepts no options)
  ipv4_bad_total_length,       // total length < header or > frame
  ipv4_bad_checksum,           // header checksum does not verify
  ipv4_fragment,               // MF set or fragment offset != 0
  ipv6_bad_version,            // EtherType IPv6 but version != 6
  ipv6_bad_payload_length,     // payload length > frame
  ipv6_mapped_address,         // IPv6 packet with an IPv4-mapped address: that GID means IPv4
  not_udp,                     // IP protocol / next header != 17
  udp_header_truncated,        // IP payload shorter than a UDP header
  udp_bad_length,              // UDP length != IP payload length
  udp_bad_checksum,            // UDP checksum (when non-zero) does not verify
  not_roce,                    // UDP destination port != 4791
  bth_truncated,               // UDP payload cannot hold BTH + ICRC
  bad_transport_version,       // BTH TVer != 0
  icrc_mismatch,               // ICRC does not match the packet
  unknown_opcode,              // opcode not implemented (RD, UC, CNP, reserved, ...)
  extension_headers_truncated, // packet ends inside the headers the opcode carries
  pad_exceeds_payload,         // pad count larger than what follows the headers
  payload_misaligned,          // payload + pad not a multiple of 4
  unexpected_payload,          // payload on an opcode that carries none
  grh_truncated,               // RoCE v1: frame ends inside the GRH
  grh_bad_version,             // RoCE v1: GRH IPVer != 6
  grh_bad_next_header,         // RoCE v1: GRH NxtHdr != 0x1b (not an IBA transport packet)
  grh_bad_payload_length,      // RoCE v1: GRH PayLen longer than the frame
  vlan_tag_truncated,          // frame ends inside the 802.1Q tag
  bad_vlan_tag,                // VLAN ID 4095, or a second tag (the device takes one)
};

inline constexpr size_t kParseErrorCount = static_cast<size_t>(ParseError::bad_vlan_tag) + 1;

std::string_view parse_error_name(ParseError error);

} // namespace ornic::roce
