// Moves the extension headers of a PacketDescription to and from the bytes after the BTH,
// in wire order, as the opcode table places them. Shared by builder and parser.
#pragma once

#include <cstdint>
#include <span>

#include "roce/opcode_table.hpp"
#include "roce/packet.hpp"

namespace ornic::roce {

bool extension_header_present(const PacketDescription& packet, ExtensionHeader header);
// Those present, as an OpcodeInfo::extension_mask.
unsigned extension_headers_present(const PacketDescription& packet);

// `transport_headers` starts at the BTH and holds at least info.header_bytes() bytes.
void encode_extension_headers(const PacketDescription& packet, const OpcodeInfo& info,
                              std::span<uint8_t> transport_headers);
void decode_extension_headers(std::span<const uint8_t> transport_headers, const OpcodeInfo& info,
                              PacketDescription& packet);

} // namespace ornic::roce
