// The CNP on the wire: what build_cnp makes the parser accepts up to the opcode (checksums,
// ICRC), is_cnp recognises it, and malformed look-alikes are refused.
#include <algorithm>

#include <gtest/gtest.h>

#include "roce/cnp.hpp"
#include "roce/ecn.hpp"
#include "roce/parser.hpp"

namespace ornic::roce {
namespace {

roce::PacketDescription addressing(roce::IpFamily family) {
  roce::PacketDescription p;
  p.source_mac = {0x02, 0, 0, 0, 0, 0x0b};
  p.destination_mac = {0x02, 0, 0, 0, 0, 0x0a};
  if (family == roce::IpFamily::ipv4) {
    p.source_gid = roce::gid_from_ipv4({10, 0, 0, 2});
    p.destination_gid = roce::gid_from_ipv4({10, 0, 0, 1});
  } else {
    p.source_gid = roce::gid_from_ipv6({0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2});
    p.destination_gid = roce::gid_from_ipv6({0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1});
  }
  p.udp_source_port = 0xc123;
  return p;
}

class CnpTest : public ::testing::TestWithParam<roce::IpFamily> {};

TEST_P(CnpTest, BuiltCnpParsesAndIsRecognised) {
  std::vector<uint8_t> frame;
  ASSERT_TRUE(build_cnp(addressing(GetParam()), 0x123456, 48 << 2, frame));
  roce::ParsedPacket parsed;
  // Checksums and ICRC verify; the opcode is not a data opcode.
  ASSERT_EQ(roce::parse_frame(frame, parsed), roce::ParseError::unknown_opcode);
  EXPECT_EQ(parsed.description.bth.opcode, kCnpOpcode);
  EXPECT_EQ(parsed.description.bth.destination_qp, 0x123456u);
  EXPECT_EQ(parsed.description.bth.psn, 0u);
  EXPECT_EQ(parsed.description.traffic_class, 48 << 2);
  EXPECT_EQ(parsed.description.source_gid, addressing(GetParam()).source_gid);
  EXPECT_TRUE(is_cnp(parsed.description, frame));
  const size_t ip = GetParam() == roce::IpFamily::ipv4 ? 20 : 40;
  EXPECT_EQ(frame.size(), 14 + ip + 8 + 12 + kCnpReservedBytes + 4);
}

TEST_P(CnpTest, CnpWithPayloadOrPadIsNotACnp) {
  std::vector<uint8_t> frame;
  ASSERT_TRUE(build_cnp(addressing(GetParam()), 7, 0, frame));
  roce::ParsedPacket parsed;
  ASSERT_EQ(roce::parse_frame(frame, parsed), roce::ParseError::unknown_opcode);
  roce::PacketDescription padded = parsed.description;
  padded.bth.pad_count = 2;
  EXPECT_FALSE(is_cnp(padded, frame));
  roce::PacketDescription other = parsed.description;
  other.bth.opcode = 0x82;
  EXPECT_FALSE(is_cnp(other, frame));
  // Four bytes short (a UDP length that is not the CNP's).
  std::vector<uint8_t> truncated(frame.begin(), frame.end());
  const size_t udp = 14 + (GetParam() == roce::IpFamily::ipv4 ? 20 : 40);
  truncated[udp + 5] = static_cast<uint8_t>(truncated[udp + 5] - 4);
  EXPECT_FALSE(is_cnp(parsed.description, truncated));
  EXPECT_FALSE(is_cnp(parsed.description, std::span<const uint8_t>(frame).first(udp + 3)));
}

TEST_P(CnpTest, CnpOfAQpOnAVlanIsTagged) {
  roce::PacketDescription a = addressing(GetParam());
  a.vlan_id = 44;
  a.priority = 3;
  std::vector<uint8_t> frame;
  ASSERT_TRUE(build_cnp(a, 0x42, 0, frame));
  ASSERT_EQ(frame[12], 0x81);
  ASSERT_EQ(frame[13], 0x00);
  roce::ParsedPacket parsed;
  ASSERT_EQ(roce::parse_frame(frame, parsed), roce::ParseError::unknown_opcode);
  EXPECT_EQ(parsed.description.vlan_id, 44);
  EXPECT_EQ(parsed.description.priority, 3);
  EXPECT_EQ(parsed.description.bth.destination_qp, 0x42u);
  EXPECT_TRUE(is_cnp(parsed.description, frame));
  const size_t ip = GetParam() == roce::IpFamily::ipv4 ? 20 : 40;
  EXPECT_EQ(frame.size(), std::max<size_t>(18 + ip + 8 + 12 + kCnpReservedBytes + 4, 60));
  // No VLAN has ID 0 or 4095.
  for (uint16_t bad : {uint16_t{0}, uint16_t{0xfff}}) {
    a.vlan_id = bad;
    EXPECT_FALSE(build_cnp(a, 0x42, 0, frame));
  }
}

INSTANTIATE_TEST_SUITE_P(Families, CnpTest,
                         ::testing::Values(roce::IpFamily::ipv4, roce::IpFamily::ipv6));

TEST(Cnp, MixedFamiliesAreRefused) {
  roce::PacketDescription p = addressing(roce::IpFamily::ipv4);
  p.destination_gid = addressing(roce::IpFamily::ipv6).destination_gid;
  std::vector<uint8_t> frame = {1, 2, 3};
  EXPECT_FALSE(build_cnp(p, 1, 0, frame));
  EXPECT_EQ(frame.size(), 3u);
}

TEST(Ecn, CodepointsFollowRfc3168) {
  EXPECT_TRUE(ce_marked(0x03));
  EXPECT_TRUE(ce_marked(0xbb));
  EXPECT_FALSE(ce_marked(0x02));
  EXPECT_FALSE(ce_marked(0x01));
  EXPECT_FALSE(ce_marked(0x00));
}

} // namespace
} // namespace ornic::roce
