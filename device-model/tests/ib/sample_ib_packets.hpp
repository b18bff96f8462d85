// Well-formed InfiniBand packets for every opcode, local (LRH only) and global (with a
// GRH), shared by the unit tests, the sample pcap writer (checked by crcmod and tshark)
// and the fuzz seeds.
#pragma once

#include <cstdint>
#include <vector>

#include "iba/framing.hpp"
#include "iba/opcode_table.hpp"

namespace ornic::ib::testing {

// Distinctive values in every field and exactly the extension headers `info` carries.
iba::OutboundPacket sample_ib_packet(const iba::OpcodeInfo& info, bool global);

// The packet built whole, LRH through VCRC.
std::vector<uint8_t> build_ib_packet(const iba::OutboundPacket& packet,
                                     const std::vector<uint8_t>& payload);

// One built packet per (opcode, local or global, payload length in {0, 1, 5, 8, 300}).
std::vector<std::vector<uint8_t>> all_sample_ib_packets();

} // namespace ornic::ib::testing
