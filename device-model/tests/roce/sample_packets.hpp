// Well-formed sample packets for every opcode, shared by the unit tests, the sample frame
// writer (scapy/tshark checks) and the fuzz seed generator.
#pragma once

#include <cstdint>
#include <vector>

#include "iba/opcode_table.hpp"
#include "roce/packet.hpp"

namespace ornic::roce::testing {

// A description with distinctive values in every field and exactly the extension headers
// `info` carries.
PacketDescription sample_packet(const iba::OpcodeInfo& info, IpFamily family);

// A payload of `bytes` bytes counting up from `first`, or none for opcodes without payload.
std::vector<uint8_t> sample_payload(const iba::OpcodeInfo& info, size_t bytes,
                                    uint8_t first = 0x10);

// One built frame per (opcode, family, payload length in {0, 1, 5, 8}), then one per
// (opcode, payload length in {0, 5}) as RoCE v1.
std::vector<std::vector<uint8_t>> all_sample_frames();

} // namespace ornic::roce::testing
