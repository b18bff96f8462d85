// Parses a received Ethernet frame into a validated PacketDescription and payload.
//
// Every length and field is checked before it is used, so any byte sequence is safe input.
// Bytes after the IP packet (Ethernet minimum-size padding) are ignored.
#pragma once

#include <cstdint>
#include <span>

#include "roce/opcode_table.hpp"
#include "roce/packet.hpp"
#include "roce/parse_error.hpp"

namespace ornic::roce {

struct ParsedPacket {
  PacketDescription description;
  OpcodeInfo opcode_info;
  std::span<const uint8_t> payload; // into the frame; pad and ICRC excluded
};

// On error `parsed` is left in an unspecified state.
ParseError parse_frame(std::span<const uint8_t> frame, ParsedPacket& parsed);

} // namespace ornic::roce
