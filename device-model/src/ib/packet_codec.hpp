// An InfiniBand packet on the wire (infiniband.rst, "Framing"):
//
//   LRH (8) | [GRH (40)] | BTH | extension headers | payload | pad | ICRC (4) | VCRC (2)
//
// built in three steps (plan, write the headers, seal with the CRCs once the payload is in)
// so the payload can be copied straight from guest memory into the buffer the packet goes
// out of, and parsed with every length and CRC checked. No Ethernet header: a datagram on
// an IB port's backend is one packet, and a capture of it is LINKTYPE_INFINIBAND.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "ib/lrh.hpp"
#include "ib/vcrc.hpp"
#include "iba/framing.hpp"
#include "iba/grh.hpp"
#include "iba/opcode_table.hpp"
#include "iba/transport_packet.hpp"

namespace ornic::ib {

// The longest packet the LRH can describe: PktLen counts 4-byte words in 11 bits.
inline constexpr size_t kMaxPacketBytes = size_t{Lrh::kMaxPacketWords} * 4;

// A plan's FramePlan::network_kind: whether the packet has a GRH.
inline constexpr uint8_t kLocalPacket = 0;
inline constexpr uint8_t kGlobalPacket = 1;

// False when the headers are not those of their opcode, or the packet would be longer than
// the LRH can say. FramePlan::network_header_bytes is the LRH and GRH, and
// network_payload_bytes the packet from the LRH through the ICRC (what PktLen counts).
bool plan_packet(const iba::TransportHeaders& headers, bool global, size_t payload_bytes,
                 iba::FramePlan& plan);
// Everything but the payload and the CRCs, from the route's local part (VL, SL, DLID,
// SLID) and, in a global packet, its global part; returns the payload area.
std::span<uint8_t> write_packet_headers(const iba::TransportHeaders& headers,
                                        const iba::Route& route, const iba::FramePlan& plan,
                                        std::span<uint8_t> frame);
// The ICRC, then the VCRC over everything before it.
void seal_packet(const iba::FramePlan& plan, std::span<uint8_t> frame);

enum class ParseError : uint8_t {
  ok,
  too_short,             // shorter than LRH + BTH + ICRC + VCRC
  length_mismatch,       // LRH PktLen disagrees with the datagram's length
  bad_vcrc,              // the variant CRC does not match
  bad_link_version,      // LRH LVer != 0
  not_transport,         // LNH raw or raw IPv6: not an IBA transport packet
  bad_grh,               // GRH version != 6, next header != 0x1b or payload length wrong
  bad_transport_version, // BTH TVer != 0
  bad_icrc,              // the invariant CRC does not match
  unknown_opcode,
  extension_headers_truncated,
  pad_exceeds_payload,
  payload_misaligned,
  unexpected_payload,
};

std::string_view parse_error_name(ParseError error);

struct ParsedPacket {
  Lrh lrh;
  std::optional<iba::Grh> grh;
  iba::TransportHeaders headers;
  iba::OpcodeInfo opcode_info;
  std::span<const uint8_t> payload; // within the frame
};

// Any byte sequence is safe input. The CRCs are checked before anything but the LRH's
// length is believed.
ParseError parse_packet(std::span<const uint8_t> frame, ParsedPacket& parsed);

} // namespace ornic::ib
