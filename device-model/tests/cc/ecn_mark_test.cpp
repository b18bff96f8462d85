// ECN marking as the port's bottleneck does it: an ECT RoCEv2 frame marked CE still passes
// the parser (the IPv4 header checksum is updated, the ICRC masks the traffic class); what
// is not ECN-capable is never touched.
#include <array>
#include <optional>

#include <gtest/gtest.h>

#include "port/ecn_mark.hpp"
#include "roce/builder.hpp"
#include "roce/parser.hpp"

namespace ornic {
namespace {

std::vector<uint8_t> roce_frame(roce::IpFamily family, uint8_t traffic_class,
                                std::optional<uint16_t> vlan = std::nullopt) {
  roce::PacketDescription p;
  p.vlan_id = vlan;
  p.priority = 3;
  p.source_mac = {0x02, 0, 0, 0, 0, 0x0a};
  p.destination_mac = {0x02, 0, 0, 0, 0, 0x0b};
  if (family == roce::IpFamily::ipv4) {
    p.source_gid = roce::gid_from_ipv4({10, 0, 0, 1});
    p.destination_gid = roce::gid_from_ipv4({10, 0, 0, 2});
  } else {
    p.source_gid = roce::gid_from_ipv6({0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1});
    p.destination_gid = roce::gid_from_ipv6({0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2});
  }
  p.traffic_class = traffic_class;
  p.flow_label = 0x12345;
  p.bth.opcode = static_cast<uint8_t>(iba::Opcode::rc_send_only);
  p.bth.destination_qp = 17;
  const std::vector<uint8_t> payload(100, 0x5a);
  std::vector<uint8_t> frame;
  EXPECT_EQ(roce::build_frame(p, payload, frame), roce::BuildError::ok);
  return frame;
}

std::span<std::byte> bytes(std::vector<uint8_t>& frame) {
  return std::as_writable_bytes(std::span<uint8_t>(frame));
}

class EcnMarkTest : public ::testing::TestWithParam<roce::IpFamily> {};

TEST_P(EcnMarkTest, EctFramesAreMarkedAndStillVerify) {
  for (uint8_t ect : {uint8_t{0x01}, uint8_t{0x02}}) {
    const uint8_t tc = static_cast<uint8_t>(0xa0 | ect);
    std::vector<uint8_t> frame = roce_frame(GetParam(), tc);
    ASSERT_TRUE(mark_ecn_ce(bytes(frame)));
    roce::ParsedPacket parsed;
    ASSERT_EQ(roce::parse_frame(frame, parsed), roce::ParseError::ok);
    EXPECT_EQ(parsed.description.traffic_class, 0xa3); // DSCP kept, ECN = CE
    if (GetParam() == roce::IpFamily::ipv6) {
      EXPECT_EQ(parsed.description.flow_label, 0x12345u);
    }
    // CE already: nothing more to do.
    EXPECT_FALSE(mark_ecn_ce(bytes(frame)));
  }
}

TEST_P(EcnMarkTest, NotEctFramesAreLeftAlone) {
  std::vector<uint8_t> frame = roce_frame(GetParam(), 0xa0);
  const std::vector<uint8_t> before = frame;
  EXPECT_FALSE(mark_ecn_ce(bytes(frame)));
  EXPECT_EQ(frame, before);
}

TEST_P(EcnMarkTest, TaggedFramesAreMarked) {
  // RoCE on a VLAN (802.1Q), and behind a second, outer tag (802.1ad).
  std::vector<uint8_t> frame = roce_frame(GetParam(), 0xa2, 44);
  ASSERT_EQ(frame[12], 0x81);
  std::vector<uint8_t> stacked = frame;
  const std::array<uint8_t, 4> outer = {0x88, 0xa8, 0x00, 0x07};
  stacked.insert(stacked.begin() + 12, outer.begin(), outer.end());
  ASSERT_TRUE(mark_ecn_ce(bytes(frame)));
  roce::ParsedPacket parsed;
  ASSERT_EQ(roce::parse_frame(frame, parsed), roce::ParseError::ok);
  EXPECT_EQ(parsed.description.traffic_class, 0xa3);
  EXPECT_EQ(parsed.description.vlan_id, 44);
  ASSERT_TRUE(mark_ecn_ce(bytes(stacked)));
  // The marked stacked frame is the marked single-tagged one with the outer tag.
  stacked.erase(stacked.begin() + 12, stacked.begin() + 16);
  EXPECT_EQ(stacked, frame);
  // A third tag is more than a switch looks through.
  std::vector<uint8_t> deep = roce_frame(GetParam(), 0xa2, 44);
  for (int i = 0; i < 2; ++i)
    deep.insert(deep.begin() + 12, outer.begin(), outer.end());
  const std::vector<uint8_t> before = deep;
  EXPECT_FALSE(mark_ecn_ce(bytes(deep)));
  EXPECT_EQ(deep, before);
}

INSTANTIATE_TEST_SUITE_P(Families, EcnMarkTest,
                         ::testing::Values(roce::IpFamily::ipv4, roce::IpFamily::ipv6));

TEST(EcnMark, ShortAndNonIpFramesAreLeftAlone) {
  std::vector<uint8_t> frame = roce_frame(roce::IpFamily::ipv4, 0x02);
  for (size_t length : {size_t{0}, size_t{13}, size_t{15}, size_t{33}}) {
    std::vector<uint8_t> cut(frame.begin(), frame.begin() + static_cast<ptrdiff_t>(length));
    EXPECT_FALSE(mark_ecn_ce(bytes(cut))) << length;
  }
  std::vector<uint8_t> arp = frame;
  arp[12] = 0x08;
  arp[13] = 0x06;
  EXPECT_FALSE(mark_ecn_ce(bytes(arp)));
  std::vector<uint8_t> wrong_version = frame;
  wrong_version[14] = 0x65; // says IPv6 inside an IPv4 EtherType
  EXPECT_FALSE(mark_ecn_ce(bytes(wrong_version)));
}

} // namespace
} // namespace ornic
