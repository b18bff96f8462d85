#include "sample_packets.hpp"

#include <stdexcept>

#include "roce/builder.hpp"

namespace ornic::roce::testing {

using namespace iba;

PacketDescription sample_packet(const OpcodeInfo& info, IpFamily family) {
  PacketDescription packet;
  packet.destination_mac = {0x02, 0x00, 0x00, 0x00, 0x00, 0x02};
  packet.source_mac = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
  if (family == IpFamily::ipv4) {
    packet.source_gid = gid_from_ipv4({10, 0, 0, 1});
    packet.destination_gid = gid_from_ipv4({10, 0, 0, 2});
  } else {
    packet.source_gid = *gid_from_string("fd00::1");
    packet.destination_gid = *gid_from_string("fd00::2");
    packet.flow_label = 0x12345;
  }
  packet.traffic_class = 0x68;
  packet.hop_limit = 61;
  packet.udp_source_port = roce_udp_source_port(0, 0x11, 0x22);
  packet.bth.opcode = static_cast<uint8_t>(info.opcode);
  packet.bth.solicited = info.has(kLast) && info.has(kSend);
  packet.bth.partition_key = 0xffff;
  packet.bth.destination_qp = info.has(kDatagram) ? 0x000001 : 0x000022;
  packet.bth.ack_request = info.has(kRequest | kReliable | kLast);
  packet.bth.psn = 0xabcdef;
  using enum ExtensionHeader;
  if (info.carries(xrceth))
    packet.xrceth = Xrceth{.srqn = 0x000033};
  if (info.carries(deth))
    packet.deth = Deth{.qkey = 0x80010000, .source_qp = 0x000011};
  if (info.carries(feth))
    packet.feth = Feth{.placement_type = 0x3, .selectivity_level = 1};
  if (info.carries(reth))
    packet.reth =
        Reth{.virtual_address = 0x00007f0012345678, .rkey = 0x1234abcd, .dma_length = 8192};
  if (info.carries(atomic_eth))
    packet.atomic_eth = AtomicEth{.virtual_address = 0x00007f00000a0008,
                                  .rkey = 0x0000beef,
                                  .swap_or_add = 0x0102030405060708,
                                  .compare = 0x1112131415161718};
  if (info.carries(aeth))
    packet.aeth = Aeth{.syndrome = 0x1f, .msn = 0x000042};
  if (info.carries(atomic_ack_eth))
    packet.atomic_ack_eth = AtomicAckEth{.original_data = 0xfedcba9876543210};
  if (info.carries(immdt))
    packet.immdt = ImmDt{.immediate = 0xdeadbeef};
  if (info.carries(ieth))
    packet.ieth = Ieth{.rkey = 0x00c0ffee};
  return packet;
}

std::vector<uint8_t> sample_payload(const OpcodeInfo& info, size_t bytes, uint8_t first) {
  std::vector<uint8_t> payload;
  if (!info.has(kPayload))
    return payload;
  for (size_t index = 0; index < bytes; ++index)
    payload.push_back(static_cast<uint8_t>(first + index));
  return payload;
}

std::vector<std::vector<uint8_t>> all_sample_frames() {
  std::vector<std::vector<uint8_t>> frames;
  for (const IpFamily family : {IpFamily::ipv4, IpFamily::ipv6}) {
    for (const OpcodeInfo& info : all_opcodes()) {
      for (const size_t payload_bytes : {0, 1, 5, 8}) {
        if (payload_bytes != 0 && !info.has(kPayload))
          continue;
        std::vector<uint8_t> frame;
        if (build_frame(sample_packet(info, family), sample_payload(info, payload_bytes), frame) !=
            BuildError::ok)
          throw std::logic_error("sample packet does not build");
        frames.push_back(std::move(frame));
      }
    }
  }
  // Tagged (VLAN 42, priority 3), RoCEv2 and v1.
  for (const bool v1 : {false, true}) {
    const OpcodeInfo info = *lookup_opcode(static_cast<uint8_t>(Opcode::rc_send_only));
    PacketDescription packet = sample_packet(info, IpFamily::ipv4);
    packet.roce_v1 = v1;
    packet.vlan_id = 42;
    packet.priority = 3;
    std::vector<uint8_t> frame;
    if (build_frame(packet, sample_payload(info, 8), frame) != BuildError::ok)
      throw std::logic_error("sample packet does not build");
    frames.push_back(std::move(frame));
  }
  // RoCE v1: the same packets behind a GRH.
  for (const OpcodeInfo& info : all_opcodes()) {
    for (const size_t payload_bytes : {0, 5}) {
      if (payload_bytes != 0 && !info.has(kPayload))
        continue;
      PacketDescription packet = sample_packet(info, IpFamily::ipv6);
      packet.roce_v1 = true;
      std::vector<uint8_t> frame;
      if (build_frame(packet, sample_payload(info, payload_bytes), frame) != BuildError::ok)
        throw std::logic_error("sample packet does not build");
      frames.push_back(std::move(frame));
    }
  }
  return frames;
}

} // namespace ornic::roce::testing
