// Every parser error class, each from a frame where only that one check fails.
#include <algorithm>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "frame_surgery.hpp"
#include "iba/wire_bytes.hpp"
#include "roce/builder.hpp"
#include "roce/parser.hpp"
#include "sample_packets.hpp"

namespace ornic::roce {

using namespace iba;
namespace {

using testing::bth_offset;
using testing::kIpOffset;
using testing::kIpv4UdpOffset;
using testing::kIpv6UdpOffset;

std::vector<uint8_t> frame_of(Opcode opcode, IpFamily family, size_t payload_bytes) {
  const OpcodeInfo info = *lookup_opcode(opcode);
  std::vector<uint8_t> frame;
  EXPECT_EQ(build_frame(testing::sample_packet(info, family),
                        testing::sample_payload(info, payload_bytes), frame),
            BuildError::ok);
  return frame;
}

std::vector<uint8_t> send_frame(IpFamily family = IpFamily::ipv4) {
  return frame_of(Opcode::rc_send_only, family, 8);
}

ParseError parse(const std::vector<uint8_t>& frame) {
  ParsedPacket parsed;
  return parse_frame(frame, parsed);
}

TEST(RoceParserError, NamesAreDistinct) {
  std::set<std::string_view> names;
  for (size_t index = 0; index < kParseErrorCount; ++index)
    names.insert(parse_error_name(static_cast<ParseError>(index)));
  EXPECT_EQ(names.size(), kParseErrorCount);
  EXPECT_EQ(parse_error_name(ParseError::icrc_mismatch), "icrc_mismatch");
}

TEST(RoceParserError, FrameTooShort) {
  EXPECT_EQ(parse({}), ParseError::frame_too_short);
  EXPECT_EQ(parse(std::vector<uint8_t>(13)), ParseError::frame_too_short);
}

TEST(RoceParserError, NotIp) {
  std::vector<uint8_t> frame = send_frame();
  store_be16(frame, 12, 0x0806);
  EXPECT_EQ(parse(frame), ParseError::not_ip);
}

TEST(RoceParserError, IpHeaderTruncated) {
  for (const IpFamily family : {IpFamily::ipv4, IpFamily::ipv6}) {
    std::vector<uint8_t> frame = send_frame(family);
    frame.resize(kIpOffset + (family == IpFamily::ipv4 ? 19 : 39));
    EXPECT_EQ(parse(frame), ParseError::ip_header_truncated);
  }
}

TEST(RoceParserError, Ipv4Version) {
  std::vector<uint8_t> frame = send_frame();
  frame[kIpOffset] = 0x65;
  testing::refresh_ipv4_checksum(frame);
  EXPECT_EQ(parse(frame), ParseError::ipv4_bad_version);
}

TEST(RoceParserError, Ipv4Options) {
  std::vector<uint8_t> frame = send_frame();
  frame[kIpOffset] = 0x46;
  testing::refresh_ipv4_checksum(frame);
  EXPECT_EQ(parse(frame), ParseError::ipv4_options);
}

TEST(RoceParserError, Ipv4TotalLength) {
  std::vector<uint8_t> frame = send_frame();
  const size_t ip_bytes = frame.size() - kIpOffset;
  for (const size_t total_length : {ip_bytes + 1, size_t{19}, size_t{0}}) {
    store_be16(frame, kIpOffset + 2, static_cast<uint16_t>(total_length));
    testing::refresh_ipv4_checksum(frame);
    EXPECT_EQ(parse(frame), ParseError::ipv4_bad_total_length) << total_length;
  }
}

TEST(RoceParserError, Ipv4Checksum) {
  std::vector<uint8_t> frame = send_frame();
  frame[kIpOffset + 11] ^= 0x01;
  EXPECT_EQ(parse(frame), ParseError::ipv4_bad_checksum);
}

TEST(RoceParserError, Ipv4Fragment) {
  for (const uint16_t flags : {0x6000, 0x4001, 0x0100}) {
    std::vector<uint8_t> frame = send_frame();
    store_be16(frame, kIpOffset + 6, flags);
    testing::refresh_ipv4_checksum(frame);
    EXPECT_EQ(parse(frame), ParseError::ipv4_fragment) << flags;
  }
}

TEST(RoceParserError, Ipv6Version) {
  std::vector<uint8_t> frame = send_frame(IpFamily::ipv6);
  frame[kIpOffset] = static_cast<uint8_t>(0x40 | (frame[kIpOffset] & 0x0f));
  EXPECT_EQ(parse(frame), ParseError::ipv6_bad_version);
}

TEST(RoceParserError, Ipv6PayloadLength) {
  std::vector<uint8_t> frame = send_frame(IpFamily::ipv6);
  store_be16(frame, kIpOffset + 4, static_cast<uint16_t>(frame.size() - kIpv6UdpOffset + 1));
  EXPECT_EQ(parse(frame), ParseError::ipv6_bad_payload_length);
}

TEST(RoceParserError, Ipv6MappedAddress) {
  for (const size_t address_offset : {kIpOffset + 8, kIpOffset + 24}) {
    std::vector<uint8_t> frame = send_frame(IpFamily::ipv6);
    const Gid mapped = gid_from_ipv4({10, 9, 8, 7});
    std::copy(mapped.begin(), mapped.end(), frame.begin() + address_offset);
    testing::refresh_icrc(frame);
    EXPECT_EQ(parse(frame), ParseError::ipv6_mapped_address) << address_offset;
  }
}

TEST(RoceParserError, NotUdp) {
  std::vector<uint8_t> frame = send_frame();
  frame[kIpOffset + 9] = 6;
  testing::refresh_ipv4_checksum(frame);
  EXPECT_EQ(parse(frame), ParseError::not_udp);
  frame = send_frame(IpFamily::ipv6);
  frame[kIpOffset + 6] = 6;
  EXPECT_EQ(parse(frame), ParseError::not_udp);
}

TEST(RoceParserError, UdpHeaderTruncated) {
  std::vector<uint8_t> frame = send_frame();
  store_be16(frame, kIpOffset + 2, 20 + 7);
  testing::refresh_ipv4_checksum(frame);
  EXPECT_EQ(parse(frame), ParseError::udp_header_truncated);
  frame = send_frame(IpFamily::ipv6);
  store_be16(frame, kIpOffset + 4, 7);
  EXPECT_EQ(parse(frame), ParseError::udp_header_truncated);
}

TEST(RoceParserError, UdpLength) {
  for (const int delta : {-1, +1}) {
    std::vector<uint8_t> frame = send_frame();
    store_be16(frame, kIpv4UdpOffset + 4,
               static_cast<uint16_t>(frame.size() - kIpv4UdpOffset + delta));
    EXPECT_EQ(parse(frame), ParseError::udp_bad_length) << delta;
  }
}

TEST(RoceParserError, UdpChecksumOverIpv6) {
  std::vector<uint8_t> frame = send_frame(IpFamily::ipv6);
  frame[kIpv6UdpOffset + 7] ^= 0x01;
  EXPECT_EQ(parse(frame), ParseError::udp_bad_checksum);
  // A zero checksum (not computed) is accepted.
  store_be16(frame, kIpv6UdpOffset + 6, 0);
  EXPECT_EQ(parse(frame), ParseError::ok);
}

TEST(RoceParserError, UdpChecksumOverIpv4) {
  std::vector<uint8_t> frame = send_frame();
  Ipv4Address source{}, destination{};
  std::copy_n(frame.begin() + kIpOffset + 12, 4, source.begin());
  std::copy_n(frame.begin() + kIpOffset + 16, 4, destination.begin());
  const uint16_t checksum = udp_checksum_ipv4(
      source, destination, std::span<const uint8_t>(frame).subspan(kIpv4UdpOffset));
  // The device sends none, but a sender that does is checked.
  store_be16(frame, kIpv4UdpOffset + 6, checksum);
  EXPECT_EQ(parse(frame), ParseError::ok);
  store_be16(frame, kIpv4UdpOffset + 6, static_cast<uint16_t>(checksum ^ 0x0100));
  EXPECT_EQ(parse(frame), ParseError::udp_bad_checksum);
}

TEST(RoceParserError, NotRoce) {
  std::vector<uint8_t> frame = send_frame();
  store_be16(frame, kIpv4UdpOffset + 2, 4792);
  EXPECT_EQ(parse(frame), ParseError::not_roce);
}

TEST(RoceParserError, BthTruncated) {
  std::vector<uint8_t> frame = frame_of(Opcode::rc_send_only, IpFamily::ipv4, 0);
  // BTH (12) + ICRC (4) = 16 bytes of UDP payload is the least a RoCE packet has.
  frame.resize(kIpv4UdpOffset + 8 + 15);
  store_be16(frame, kIpOffset + 2, static_cast<uint16_t>(frame.size() - kIpOffset));
  store_be16(frame, kIpv4UdpOffset + 4, static_cast<uint16_t>(frame.size() - kIpv4UdpOffset));
  testing::refresh_ipv4_checksum(frame);
  EXPECT_EQ(parse(frame), ParseError::bth_truncated);
}

TEST(RoceParserError, TransportVersion) {
  std::vector<uint8_t> frame = send_frame();
  frame[bth_offset(frame) + 1] |= 0x01;
  testing::refresh_icrc(frame);
  EXPECT_EQ(parse(frame), ParseError::bad_transport_version);
}

TEST(RoceParserError, IcrcMismatch) {
  for (const IpFamily family : {IpFamily::ipv4, IpFamily::ipv6}) {
    std::vector<uint8_t> frame = send_frame(family);
    frame[frame.size() - 1] ^= 0x80;
    if (family == IpFamily::ipv6)
      store_be16(frame, kIpv6UdpOffset + 6, 0); // keep the UDP checksum out of the way
    EXPECT_EQ(parse(frame), ParseError::icrc_mismatch);
    frame = send_frame(family);
    frame[bth_offset(frame) + 12] ^= 0x01; // first payload byte
    if (family == IpFamily::ipv6)
      store_be16(frame, kIpv6UdpOffset + 6, 0);
    EXPECT_EQ(parse(frame), ParseError::icrc_mismatch);
  }
}

TEST(RoceParserError, UnknownOpcode) {
  // 0x2c, 0x37: UC has no READ request, no SEND with invalidate.
  for (const uint8_t opcode : {0x15, 0x18, 0x2c, 0x37, 0x81}) {
    std::vector<uint8_t> frame = send_frame(IpFamily::ipv6);
    frame[bth_offset(frame)] = opcode;
    testing::refresh_icrc(frame);
    EXPECT_EQ(parse(frame), ParseError::unknown_opcode) << int(opcode);
  }
}

TEST(RoceParserError, ExtensionHeadersTruncated) {
  // A SEND with 8 bytes relabelled as a WRITE, whose RETH needs 16.
  std::vector<uint8_t> frame = send_frame();
  frame[bth_offset(frame)] = static_cast<uint8_t>(Opcode::rc_rdma_write_only);
  testing::refresh_icrc(frame);
  EXPECT_EQ(parse(frame), ParseError::extension_headers_truncated);
}

TEST(RoceParserError, PadExceedsPayload) {
  std::vector<uint8_t> frame = frame_of(Opcode::rc_acknowledge, IpFamily::ipv4, 0);
  frame[bth_offset(frame) + 1] |= 0x30;
  testing::refresh_icrc(frame);
  EXPECT_EQ(parse(frame), ParseError::pad_exceeds_payload);
}

TEST(RoceParserError, PayloadMisaligned) {
  std::vector<uint8_t> frame = send_frame();
  testing::drop_bytes_before_icrc(frame, 1);
  EXPECT_EQ(parse(frame), ParseError::payload_misaligned);
  frame = send_frame(IpFamily::ipv6);
  testing::drop_bytes_before_icrc(frame, 3);
  EXPECT_EQ(parse(frame), ParseError::payload_misaligned);
}

TEST(RoceParserError, UnexpectedPayload) {
  // A SEND with 8 bytes relabelled as an ACK: 4 bytes of AETH, 4 left over.
  std::vector<uint8_t> frame = send_frame();
  frame[bth_offset(frame)] = static_cast<uint8_t>(Opcode::rc_acknowledge);
  testing::refresh_icrc(frame);
  EXPECT_EQ(parse(frame), ParseError::unexpected_payload);
}

TEST(RoceParserError, SurgeryAloneKeepsFramesValid) {
  // The helpers above must not themselves break a frame, or the tests prove nothing.
  for (const IpFamily family : {IpFamily::ipv4, IpFamily::ipv6}) {
    std::vector<uint8_t> frame = send_frame(family);
    testing::refresh_icrc(frame);
    if (family == IpFamily::ipv4)
      testing::refresh_ipv4_checksum(frame);
    EXPECT_EQ(parse(frame), ParseError::ok);
    testing::drop_bytes_before_icrc(frame, 4);
    EXPECT_EQ(parse(frame), ParseError::ok);
  }
}

TEST(RoceParserError, EveryTruncationAndBitFlipIsRejected) {
  for (const IpFamily family : {IpFamily::ipv4, IpFamily::ipv6}) {
    const std::vector<uint8_t> original = frame_of(Opcode::rc_rdma_write_only, family, 6);
    for (size_t length = 0; length < original.size(); ++length) {
      const std::vector<uint8_t> frame(original.begin(), original.begin() + length);
      EXPECT_NE(parse(frame), ParseError::ok) << length;
    }
    for (size_t bit = 0; bit < original.size() * 8; ++bit) {
      std::vector<uint8_t> frame = original;
      frame[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
      const size_t offset = bit / 8;
      ParsedPacket parsed;
      const ParseError error = parse_frame(frame, parsed);
      // MACs are not checked here (address filtering is the port's job). Of the fields the
      // ICRC masks, the IPv4 header checksum covers TOS/TTL and the UDP checksum verifies
      // itself; what is left (IPv6 traffic class/flow label/hop limit, FECN/BECN) may change.
      if (offset < 12) {
        EXPECT_EQ(error, ParseError::ok);
      } else if (error == ParseError::ok) {
        EXPECT_TRUE(offset == bth_offset(original) + 4 ||
                    (family == IpFamily::ipv6 && offset < kIpOffset + 8))
            << "bit " << bit;
      }
    }
  }
}

} // namespace
} // namespace ornic::roce
