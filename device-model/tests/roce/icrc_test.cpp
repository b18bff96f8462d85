// ICRC coverage: the variant fields routers rewrite are masked, everything else counts.
// (Absolute values are checked against scapy in golden_frame_test.cpp.)
#include <array>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "frame_surgery.hpp"
#include "roce/builder.hpp"
#include "roce/icrc.hpp"
#include "sample_packets.hpp"

namespace ornic::roce {

using namespace iba;
namespace {

std::vector<uint8_t> sample_frame(IpFamily family) {
  const OpcodeInfo info = *lookup_opcode(Opcode::rc_rdma_write_only);
  std::vector<uint8_t> frame;
  EXPECT_EQ(
      build_frame(testing::sample_packet(info, family), testing::sample_payload(info, 6), frame),
      BuildError::ok);
  return frame;
}

uint32_t icrc_of(const std::vector<uint8_t>& frame) {
  const auto ip_packet = std::span<const uint8_t>(frame).subspan(testing::kIpOffset);
  return compute_icrc(testing::is_ipv4_frame(frame) ? IpFamily::ipv4 : IpFamily::ipv6,
                      ip_packet.first(ip_packet.size() - kIcrcSize));
}

TEST(RoceIcrc, StoredLittleEndian) {
  std::array<uint8_t, kIcrcSize> bytes{};
  store_icrc(bytes, 0x11223344);
  EXPECT_EQ(bytes, (std::array<uint8_t, 4>{0x44, 0x33, 0x22, 0x11}));
  EXPECT_EQ(load_icrc(bytes), 0x11223344u);
}

TEST(RoceIcrc, BuiltFrameCarriesItsIcrc) {
  for (const IpFamily family : {IpFamily::ipv4, IpFamily::ipv6}) {
    const std::vector<uint8_t> frame = sample_frame(family);
    EXPECT_EQ(load_icrc(std::span<const uint8_t>(frame).last<kIcrcSize>()), icrc_of(frame));
  }
}

TEST(RoceIcrc, Ipv4VariantFieldsAreMasked) {
  const std::vector<uint8_t> original = sample_frame(IpFamily::ipv4);
  const uint32_t icrc = icrc_of(original);
  const size_t bth = testing::kIpv4BthOffset;
  // TOS, TTL, header checksum, UDP checksum, BTH FECN/BECN/reserved byte.
  for (const size_t offset : {testing::kIpOffset + 1, testing::kIpOffset + 8,
                              testing::kIpOffset + 10, testing::kIpOffset + 11,
                              testing::kIpv4UdpOffset + 6, testing::kIpv4UdpOffset + 7, bth + 4}) {
    std::vector<uint8_t> frame = original;
    frame[offset] ^= 0x5a;
    EXPECT_EQ(icrc_of(frame), icrc) << offset;
  }
}

TEST(RoceIcrc, Ipv6VariantFieldsAreMasked) {
  const std::vector<uint8_t> original = sample_frame(IpFamily::ipv6);
  const uint32_t icrc = icrc_of(original);
  // Traffic class + flow label (all but the version nibble), hop limit, UDP checksum.
  for (const size_t offset :
       {testing::kIpOffset + 1, testing::kIpOffset + 2, testing::kIpOffset + 3,
        testing::kIpOffset + 7, testing::kIpv6UdpOffset + 6, testing::kIpv6BthOffset + 4}) {
    std::vector<uint8_t> frame = original;
    frame[offset] ^= 0xa5;
    EXPECT_EQ(icrc_of(frame), icrc) << offset;
  }
  std::vector<uint8_t> frame = original;
  frame[testing::kIpOffset] ^= 0x0f; // low nibble of byte 0 is traffic class
  EXPECT_EQ(icrc_of(frame), icrc);
}

TEST(RoceIcrc, EveryOtherByteCounts) {
  for (const IpFamily family : {IpFamily::ipv4, IpFamily::ipv6}) {
    const std::vector<uint8_t> original = sample_frame(family);
    const uint32_t icrc = icrc_of(original);
    const size_t ip_size = family == IpFamily::ipv4 ? 20 : 40;
    const size_t udp = testing::kIpOffset + ip_size;
    const std::set<size_t> masked =
        family == IpFamily::ipv4
            ? std::set<size_t>{testing::kIpOffset + 1, testing::kIpOffset + 8,
                               testing::kIpOffset + 10, testing::kIpOffset + 11}
            : std::set<size_t>{testing::kIpOffset + 1, testing::kIpOffset + 2,
                               testing::kIpOffset + 3, testing::kIpOffset + 7};
    for (size_t offset = testing::kIpOffset; offset < original.size() - kIcrcSize; ++offset) {
      if (masked.contains(offset) || offset == udp + 6 || offset == udp + 7 ||
          offset == udp + 8 + 4)
        continue;
      std::vector<uint8_t> frame = original;
      frame[offset] ^= 0x80; // the top bit: IPv6 byte 0's low nibble is traffic class
      EXPECT_NE(icrc_of(frame), icrc) << offset;
    }
  }
}

TEST(RoceIcrc, TooShortInputIsNotRead) {
  const std::array<uint8_t, 10> bytes{};
  EXPECT_EQ(compute_icrc(IpFamily::ipv4, bytes), 0u);
  EXPECT_EQ(compute_icrc(IpFamily::ipv6, std::span<const uint8_t>()), 0u);
}

} // namespace
} // namespace ornic::roce
