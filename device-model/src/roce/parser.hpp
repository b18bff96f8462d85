// Parses a received Ethernet frame into a validated PacketDescription and payload.
//
// Every length and field is checked before it is used, so any byte sequence is safe input.
// Bytes after the IP packet (Ethernet minimum-size padding) are ignored.
#pragma once

#include <cstdint>
#include <span>

#include "iba/opcode_table.hpp"
#include "roce/packet.hpp"
#include "roce/parse_error.hpp"

namespace ornic::roce {

struct ParsedPacket {
  PacketDescription description;
  iba::OpcodeInfo opcode_info;
  std::span<const uint8_t> payload; // into the frame; pad and ICRC excluded
};

// On error `parsed` is left in an unspecified state.
ParseError parse_frame(std::span<const uint8_t> frame, ParsedPacket& parsed);
// The same into the parts a caller keeps separately (the RoCEv2 framing parses straight
// into the engine's packet); the parts start as they are given, so pass them fresh.
ParseError parse_frame(std::span<const uint8_t> frame, iba::TransportHeaders& headers,
                       Addressing& addressing, iba::OpcodeInfo& opcode_info,
                       std::span<const uint8_t>& payload);

} // namespace ornic::roce
