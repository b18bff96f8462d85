// Moves the extension headers of a packet to and from the bytes after the BTH,
// in wire order, as the opcode table places them. Shared by builder and parser.
#pragma once

#include <cstdint>
#include <span>

#include "iba/opcode_table.hpp"
#include "iba/transport_packet.hpp"

namespace ornic::iba {

bool extension_header_present(const TransportHeaders& packet, ExtensionHeader header);
// Those present, as an OpcodeInfo::extension_mask.
unsigned extension_headers_present(const TransportHeaders& packet);

// `transport_headers` starts at the BTH and holds at least info.header_bytes() bytes.
void encode_extension_headers(const TransportHeaders& packet, const OpcodeInfo& info,
                              std::span<uint8_t> transport_headers);
void decode_extension_headers(std::span<const uint8_t> transport_headers, const OpcodeInfo& info,
                              TransportHeaders& packet);

} // namespace ornic::iba
