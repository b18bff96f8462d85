#include "sample_ib_packets.hpp"

#include <algorithm>
#include <stdexcept>

#include "ib/packet_codec.hpp"
#include "sample_packets.hpp"

namespace ornic::ib::testing {

iba::OutboundPacket sample_ib_packet(const iba::OpcodeInfo& info, bool global) {
  iba::OutboundPacket packet;
  // The transport headers of the RoCE samples: the same distinctive values.
  static_cast<iba::TransportHeaders&>(packet) =
      roce::testing::sample_packet(info, roce::IpFamily::ipv6);
  packet.bth.partition_key = 0x8001;
  packet.route.local = iba::LocalRoute{
      .destination_lid = 0x0012, .source_lid = 0x0034, .service_level = 5, .virtual_lane = 0};
  packet.route.has_global = global;
  if (global) {
    for (uint8_t i = 0; i < 16; ++i) {
      packet.route.global.source_gid[i] = static_cast<uint8_t>(i < 8 ? 0xfe - i : 0x10 + i);
      packet.route.global.destination_gid[i] = static_cast<uint8_t>(i < 8 ? 0xfe - i : 0x40 + i);
    }
    packet.route.global.traffic_class = 0x28;
    packet.route.global.flow_label = 0x5a5a5;
    packet.route.global.hop_limit = 7;
  }
  return packet;
}

std::vector<uint8_t> build_ib_packet(const iba::OutboundPacket& packet,
                                     const std::vector<uint8_t>& payload) {
  iba::FramePlan plan;
  if (!plan_packet(packet, packet.route.has_global, payload.size(), plan))
    throw std::logic_error("sample IB packet does not plan");
  std::vector<uint8_t> frame(plan.frame_bytes, 0xee);
  const std::span<uint8_t> area = write_packet_headers(packet, packet.route, plan, frame);
  std::copy(payload.begin(), payload.end(), area.begin());
  seal_packet(plan, frame);
  return frame;
}

std::vector<std::vector<uint8_t>> all_sample_ib_packets() {
  std::vector<std::vector<uint8_t>> packets;
  for (const bool global : {false, true})
    for (const iba::OpcodeInfo& info : iba::all_opcodes())
      for (const size_t payload_bytes : {0, 1, 5, 8, 300}) {
        if (payload_bytes != 0 && !info.has(iba::kPayload))
          continue;
        packets.push_back(build_ib_packet(sample_ib_packet(info, global),
                                          roce::testing::sample_payload(info, payload_bytes)));
      }
  return packets;
}

} // namespace ornic::ib::testing
