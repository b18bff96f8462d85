// The builder against frames built by scapy alone (see scapy_golden_frames.py): headers,
// IPv4 header checksum, IPv6 UDP checksum and ICRC all come from an independent
// implementation.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "roce/builder.hpp"
#include "roce/parser.hpp"
#include "sample_packets.hpp"

namespace ornic::roce {

using namespace iba;
namespace {

// Compared as hex text so a failure shows the differing bytes.
std::string to_hex(const std::vector<uint8_t>& bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  for (const uint8_t byte : bytes) {
    hex += kDigits[byte >> 4];
    hex += kDigits[byte & 0xf];
  }
  return hex;
}

std::vector<uint8_t> from_hex(const std::string& hex) {
  std::vector<uint8_t> bytes;
  for (size_t index = 0; index + 1 < hex.size(); index += 2)
    bytes.push_back(static_cast<uint8_t>(std::stoul(hex.substr(index, 2), nullptr, 16)));
  return bytes;
}

const std::string kScapyIpv4RdmaWriteOnly =
    "020000000002020000000001080045680044000040003d11293f0a0000010a000002c0de12b700300000"
    "0a30ffff0000002280abcdef00007f00123456781234abcd000020001011121314000000752f80f1";

const std::string kScapyIpv6UdSendOnlyWithImmediate =
    "02000000000202000000000186dd66812345002c113dfd000000000000000000000000000001fd000000"
    "000000000000000000000002c0de12b7002cef8e6580ffff0000000100abcdef800100000000001"
    "1deadbeef1011121314151617ec0cb843";

const std::string kScapyIpv4Flush =
    "020000000002020000000001080045680040000040003d1129430a0000010a000002c0de12b7002c0000"
    "1c00ffff0000002280abcdef0000001300007f00123456781234abcd00002000944e7f72";

const std::string kScapyIpv4AtomicWrite =
    "020000000002020000000001080045680044000040003d11293f0a0000010a000002c0de12b700300000"
    "1d00ffff0000002280abcdef00007f00123456781234abcd00002000101112131415161716f3d919";

TEST(RoceGoldenFrame, Ipv4RdmaWriteOnlyMatchesScapy) {
  const OpcodeInfo info = *lookup_opcode(Opcode::rc_rdma_write_only);
  PacketDescription packet = testing::sample_packet(info, IpFamily::ipv4);
  packet.udp_source_port = 0xc0de;
  std::vector<uint8_t> frame;
  ASSERT_EQ(build_frame(packet, testing::sample_payload(info, 5), frame), BuildError::ok);
  EXPECT_EQ(to_hex(frame), kScapyIpv4RdmaWriteOnly);
}

TEST(RoceGoldenFrame, Ipv6UdSendWithImmediateMatchesScapy) {
  const OpcodeInfo info = *lookup_opcode(Opcode::ud_send_only_with_immediate);
  PacketDescription packet = testing::sample_packet(info, IpFamily::ipv6);
  packet.udp_source_port = 0xc0de;
  std::vector<uint8_t> frame;
  ASSERT_EQ(build_frame(packet, testing::sample_payload(info, 8), frame), BuildError::ok);
  EXPECT_EQ(to_hex(frame), kScapyIpv6UdSendOnlyWithImmediate);
}

// IBTA 1.5: the FETH (placement type 3, MR level) sits between the BTH and the RETH.
TEST(RoceGoldenFrame, Ipv4FlushMatchesScapy) {
  const OpcodeInfo info = *lookup_opcode(Opcode::rc_flush);
  PacketDescription packet = testing::sample_packet(info, IpFamily::ipv4);
  packet.udp_source_port = 0xc0de;
  std::vector<uint8_t> frame;
  ASSERT_EQ(build_frame(packet, {}, frame), BuildError::ok);
  EXPECT_EQ(to_hex(frame), kScapyIpv4Flush);
}

TEST(RoceGoldenFrame, Ipv4AtomicWriteMatchesScapy) {
  const OpcodeInfo info = *lookup_opcode(Opcode::rc_atomic_write);
  PacketDescription packet = testing::sample_packet(info, IpFamily::ipv4);
  packet.udp_source_port = 0xc0de;
  std::vector<uint8_t> frame;
  ASSERT_EQ(build_frame(packet, testing::sample_payload(info, 8), frame), BuildError::ok);
  EXPECT_EQ(to_hex(frame), kScapyIpv4AtomicWrite);
}

TEST(RoceGoldenFrame, ScapyFramesParse) {
  for (const std::string& hex : {kScapyIpv4RdmaWriteOnly, kScapyIpv6UdSendOnlyWithImmediate,
                                 kScapyIpv4Flush, kScapyIpv4AtomicWrite}) {
    const std::vector<uint8_t> frame = from_hex(hex);
    ParsedPacket parsed;
    EXPECT_EQ(parse_frame(frame, parsed), ParseError::ok) << hex;
  }
}

} // namespace
} // namespace ornic::roce
