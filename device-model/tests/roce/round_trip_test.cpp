// parse(build(x)) == x for every opcode, both IP families and every pad count.
#include <vector>

#include <gtest/gtest.h>

#include "roce/builder.hpp"
#include "roce/parser.hpp"
#include "sample_packets.hpp"

namespace ornic::roce {

using namespace iba;
namespace {

class RoceRoundTrip : public ::testing::TestWithParam<IpFamily> {};

TEST_P(RoceRoundTrip, EveryOpcodeAndPadCount) {
  for (const OpcodeInfo& info : all_opcodes()) {
    for (const size_t payload_bytes : {0, 1, 2, 3, 4, 7, 1024}) {
      if (payload_bytes != 0 && !info.has(kPayload))
        continue;
      SCOPED_TRACE(std::string(info.name) + " payload " + std::to_string(payload_bytes));
      PacketDescription packet = testing::sample_packet(info, GetParam());
      const std::vector<uint8_t> payload = testing::sample_payload(info, payload_bytes);
      std::vector<uint8_t> frame;
      ASSERT_EQ(build_frame(packet, payload, frame), BuildError::ok);
      EXPECT_EQ(frame.size(), frame_size(GetParam(), info.header_bytes(), payload_bytes));
      EXPECT_EQ(frame.size() % 2, 0u); // headers even, payload + pad a multiple of 4
      EXPECT_GE(frame.size(), kMinEthernetFrameBytes);

      ParsedPacket parsed;
      ASSERT_EQ(parse_frame(frame, parsed), ParseError::ok);
      packet.bth.pad_count = pad_count_for(payload_bytes);
      EXPECT_EQ(parsed.description, packet);
      EXPECT_EQ(parsed.opcode_info.opcode, info.opcode);
      EXPECT_EQ(std::vector<uint8_t>(parsed.payload.begin(), parsed.payload.end()), payload);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Families, RoceRoundTrip, ::testing::Values(IpFamily::ipv4, IpFamily::ipv6),
                         [](const auto& info) {
                           return info.param == IpFamily::ipv4 ? "Ipv4" : "Ipv6";
                         });

TEST(RoceBuilder, EthernetPaddingAfterThePacketIsIgnored) {
  const OpcodeInfo info = *lookup_opcode(Opcode::rc_acknowledge);
  const PacketDescription packet = testing::sample_packet(info, IpFamily::ipv4);
  std::vector<uint8_t> frame;
  ASSERT_EQ(build_frame(packet, {}, frame), BuildError::ok);
  frame.resize(frame.size() + 6, 0);
  ParsedPacket parsed;
  ASSERT_EQ(parse_frame(frame, parsed), ParseError::ok);
  EXPECT_EQ(parsed.description, packet);
  EXPECT_TRUE(parsed.payload.empty());
}

TEST(RoceBuilder, ShortFramesArePaddedToTheEthernetMinimum) {
  const OpcodeInfo info = *lookup_opcode(Opcode::rc_send_only);
  std::vector<uint8_t> frame;
  ASSERT_EQ(build_frame(testing::sample_packet(info, IpFamily::ipv4), {}, frame), BuildError::ok);
  // 14 + 20 + 8 + 12 + 4 = 58 bytes of packet, IPv4 total length 44.
  ASSERT_EQ(frame.size(), 60u);
  EXPECT_EQ(frame[16] << 8 | frame[17], 44);
  EXPECT_EQ(frame[58], 0);
  EXPECT_EQ(frame[59], 0);
  ParsedPacket parsed;
  EXPECT_EQ(parse_frame(frame, parsed), ParseError::ok);
}

TEST(RoceBuilder, Ipv4FixedFields) {
  const OpcodeInfo info = *lookup_opcode(Opcode::rc_send_only);
  std::vector<uint8_t> frame;
  ASSERT_EQ(build_frame(testing::sample_packet(info, IpFamily::ipv4), {}, frame), BuildError::ok);
  EXPECT_EQ(frame[12], 0x08);
  EXPECT_EQ(frame[13], 0x00);
  EXPECT_EQ(frame[14], 0x45);               // version 4, IHL 5
  EXPECT_EQ(frame[15], 0x68);               // traffic class
  EXPECT_EQ(frame[18] << 8 | frame[19], 0); // identification
  EXPECT_EQ(frame[20], 0x40);               // DF
  EXPECT_EQ(frame[22], 61);                 // TTL
  EXPECT_EQ(frame[23], 17);                 // UDP
  EXPECT_EQ(frame[36] << 8 | frame[37], 4791);
  EXPECT_EQ(frame[40] << 8 | frame[41], 0); // no UDP checksum over IPv4
}

TEST(RoceBuilder, RefusesInconsistentDescriptions) {
  const OpcodeInfo write = *lookup_opcode(Opcode::rc_rdma_write_only);
  std::vector<uint8_t> frame = {1, 2, 3};
  const std::vector<uint8_t> payload = {1};

  PacketDescription packet = testing::sample_packet(write, IpFamily::ipv4);
  packet.reth.reset();
  EXPECT_EQ(build_frame(packet, {}, frame), BuildError::missing_extension_header);

  packet = testing::sample_packet(write, IpFamily::ipv4);
  packet.aeth = Aeth{};
  EXPECT_EQ(build_frame(packet, {}, frame), BuildError::unexpected_extension_header);

  packet = testing::sample_packet(write, IpFamily::ipv4);
  packet.bth.opcode = 0x15;
  EXPECT_EQ(build_frame(packet, {}, frame), BuildError::unknown_opcode);

  const OpcodeInfo read = *lookup_opcode(Opcode::rc_rdma_read_request);
  EXPECT_EQ(build_frame(testing::sample_packet(read, IpFamily::ipv4), payload, frame),
            BuildError::unexpected_payload);

  packet = testing::sample_packet(write, IpFamily::ipv4);
  packet.destination_gid = *gid_from_string("fd00::2");
  EXPECT_EQ(build_frame(packet, {}, frame), BuildError::mixed_gid_families);

  const std::vector<uint8_t> huge(65536);
  EXPECT_EQ(build_frame(testing::sample_packet(write, IpFamily::ipv6), huge, frame),
            BuildError::too_long);
  // Errors leave the output alone.
  EXPECT_EQ(frame, (std::vector<uint8_t>{1, 2, 3}));
  EXPECT_EQ(build_error_name(BuildError::too_long), "too_long");
}

TEST(RoceBuilder, LargestPayloadThatFits) {
  const OpcodeInfo send = *lookup_opcode(Opcode::rc_send_only);
  // IPv4 total length: 20 + 8 + 12 + payload + ICRC <= 65535, payload a multiple of 4.
  const std::vector<uint8_t> payload(65488);
  std::vector<uint8_t> frame;
  ASSERT_EQ(build_frame(testing::sample_packet(send, IpFamily::ipv4), payload, frame),
            BuildError::ok);
  ParsedPacket parsed;
  EXPECT_EQ(parse_frame(frame, parsed), ParseError::ok);
  EXPECT_EQ(parsed.payload.size(), payload.size());
}

} // namespace
} // namespace ornic::roce
