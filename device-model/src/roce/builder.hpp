// Builds a complete RoCEv2 Ethernet frame (no FCS) from a PacketDescription and a payload:
// Ethernet / IPv4 or IPv6 / UDP / BTH / extension headers / payload / pad / ICRC.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "roce/packet.hpp"

namespace ornic::roce {

enum class BuildError : uint8_t {
  ok,
  unknown_opcode,           // bth.opcode is not in the opcode table
  missing_extension_header, // the opcode carries a header the description lacks
  unexpected_extension_header,
  unexpected_payload, // payload given for an opcode that carries none
  mixed_gid_families, // one GID IPv4-mapped, the other not
  too_long,           // IP length fields would overflow
  bad_vlan,           // a VLAN ID of 0 or 4095, which no VLAN has
};

std::string_view build_error_name(BuildError error);

// On success `frame` holds exactly the frame, without FCS, zero-padded to the Ethernet
// minimum of 60 bytes as a MAC would (only tiny IPv4 packets, e.g. an empty SEND, need it);
// on error it is left untouched. The caller keeps frames within the port MTU by splitting
// messages (see frame_size).
BuildError build_frame(const PacketDescription& packet, std::span<const uint8_t> payload,
                       std::vector<uint8_t>& frame);

// The same frame built in place, in three steps, for a sender that copies the payload
// straight from its source into the buffer the frame goes out of (a port's reserved TX
// slot): plan_frame checks the description and sizes the frame; write_headers fills
// everything but the payload and the ICRC (zeroing pad and Ethernet padding, as the
// buffer may hold an old frame) and returns the payload area of `payload_bytes`;
// seal_frame, once the payload is in, writes the ICRC (and the IPv6 UDP checksum).
// build_frame is these three steps with a copy in the middle.
struct FramePlan {
  IpFamily family{};
  size_t link_header_bytes = EthernetHeader::kSize; // with the 802.1Q tag if there is one
  bool roce_v1 = false;                             // a GRH in place of IP and UDP
  size_t ip_header_bytes = 0;                       // the GRH's 40 on RoCE v1
  size_t udp_bytes = 0;      // UDP header through ICRC; RoCE v1: BTH through ICRC
  size_t payload_offset = 0; // from the start of the frame
  size_t payload_bytes = 0;
  uint8_t pad_count = 0;
  size_t frame_bytes = 0; // what is sent, Ethernet padding included
};
// The transport headers and the addressing may come separately (the RoCEv2 framing keeps
// the engine's headers where they are) or as one PacketDescription.
BuildError plan_frame(const iba::TransportHeaders& headers, const Addressing& addressing,
                      size_t payload_bytes, FramePlan& plan);
// `frame` holds at least plan.frame_bytes.
std::span<uint8_t> write_headers(const iba::TransportHeaders& headers, const Addressing& addressing,
                                 const FramePlan& plan, std::span<uint8_t> frame);
void seal_frame(const Addressing& addressing, const FramePlan& plan, std::span<uint8_t> frame);

inline BuildError plan_frame(const PacketDescription& packet, size_t payload_bytes,
                             FramePlan& plan) {
  return plan_frame(packet, packet, payload_bytes, plan);
}
inline std::span<uint8_t> write_headers(const PacketDescription& packet, const FramePlan& plan,
                                        std::span<uint8_t> frame) {
  return write_headers(packet, packet, plan, frame);
}

inline constexpr size_t kMinEthernetFrameBytes = 60; // 64 with the FCS

// Frame size for a given opcode header size and payload, for callers sizing buffers/MTU.
// (Untagged RoCEv2.)
size_t frame_size(IpFamily family, size_t transport_header_bytes, size_t payload_bytes);

} // namespace ornic::roce
