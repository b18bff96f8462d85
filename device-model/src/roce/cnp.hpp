// The RoCEv2 Congestion Notification Packet (the RoCEv2 annex; spec: roce.rst, "Congestion
// control"): BTH with opcode 0x81 and the destination QP of the flow's sender, 16 reserved
// bytes, ICRC. The notification point sends one back to the sender of CE-marked packets;
// the reaction point cuts the rate of the QP it names.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "roce/packet.hpp"

namespace ornic::roce {

inline constexpr uint8_t kCnpOpcode = 0x81;
inline constexpr size_t kCnpReservedBytes = 16;

// The CNP for `addressing` (MACs, GIDs, flow label, hop limit, UDP source port: the
// reverse of the marked packet) to `destination_qp`, with traffic class `traffic_class`.
// False (and `frame` untouched) only for a GID pair of mixed families.
bool build_cnp(const PacketDescription& addressing, uint32_t destination_qp, uint8_t traffic_class,
               std::vector<uint8_t>& frame);

// Whether a frame the parser refused as ParseError::unknown_opcode (so its addressing,
// BTH and ICRC are checked and in `parsed`) is a well-formed CNP: opcode 0x81, no pad, and
// exactly the 16 reserved bytes between BTH and ICRC.
bool is_cnp(const PacketDescription& parsed, std::span<const uint8_t> frame);

} // namespace ornic::roce
