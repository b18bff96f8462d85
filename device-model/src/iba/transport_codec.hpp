// The transport part of a packet, from the BTH through the pad, as every framing writes and
// reads it: whether a packet's headers are those its opcode carries, writing the BTH and
// extension headers, and reading them back with the payload. The framings (roce/, ib/)
// add what comes before the BTH and the CRCs after the pad.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "iba/opcode_table.hpp"
#include "iba/transport_packet.hpp"

namespace ornic::iba {

enum class TransportMismatch : uint8_t {
  none,
  unknown_opcode,           // bth.opcode is not in the opcode table
  missing_extension_header, // the opcode carries a header the packet lacks
  unexpected_extension_header,
  unexpected_payload, // payload given for an opcode that carries none
};

// Whether `headers` and a payload of `payload_bytes` make a packet of their opcode; the
// first header (in wire order) they disagree on decides which mismatch.
TransportMismatch check_transport_headers(const TransportHeaders& headers, size_t payload_bytes);

// Writes the BTH (with `pad_count` and transport version 0) and the opcode's extension
// headers at the start of `out`, which holds at least info.header_bytes() bytes.
void write_transport_headers(const TransportHeaders& headers, const OpcodeInfo& info,
                             uint8_t pad_count, std::span<uint8_t> out);

enum class TransportError : uint8_t {
  ok,
  unknown_opcode,
  extension_headers_truncated,
  pad_exceeds_payload,
  payload_misaligned,
  unexpected_payload,
};

// Reads what follows a decoded BTH (`headers.bth`): `packet` runs from the BTH through the
// pad, and `header_copy` holds the same bytes' first ones (at least info.header_bytes() of
// them, or all there are), copied where no other process can change them.
TransportError read_transport(std::span<const uint8_t> header_copy, std::span<const uint8_t> packet,
                              TransportHeaders& headers, OpcodeInfo& info,
                              std::span<const uint8_t>& payload);

} // namespace ornic::iba
