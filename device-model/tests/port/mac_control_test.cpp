// MAC Control frames (mac_control.hpp): PFC and PAUSE built and parsed back, every way a
// received one can be bad, and the 802.1Q priority of data frames.
#include <gtest/gtest.h>

#include "port/mac_control.hpp"

namespace ornic::mac_control {
namespace {

using Frame = std::vector<std::byte>;
constexpr std::array<uint8_t, 6> kSource = {0x02, 0, 0, 0, 0, 0x01};

uint8_t at(const Frame& f, size_t i) {
  return std::to_integer<uint8_t>(f[i]);
}

Frame tagged(uint8_t pcp, uint16_t vid, size_t size = 64) {
  Frame f(size, std::byte{0});
  f[0] = std::byte{0x02};
  f[12] = std::byte{0x81};
  f[13] = std::byte{0x00};
  f[14] = static_cast<std::byte>((pcp << 5) | (vid >> 8));
  if (size >= 16)
    f[15] = static_cast<std::byte>(vid & 0xff);
  if (size >= 18) {
    f[16] = std::byte{0x08};
    f[17] = std::byte{0x00};
  }
  return f;
}

TEST(MacControl, PfcRoundTrip) {
  PfcRequest request;
  request.class_enable = 0xa5;
  request.time = {0, 1, 2, 0x100, 0x7fff, 0xfffe, 0xffff, 42};
  const Frame f = build_pfc(kSource, request);
  ASSERT_EQ(f.size(), kMinFrameBytes);
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(at(f, i), kDestination[i]);
    EXPECT_EQ(at(f, 6 + i), kSource[i]);
  }
  EXPECT_EQ(at(f, 12), 0x88);
  EXPECT_EQ(at(f, 13), 0x08);
  EXPECT_EQ(at(f, 14), 0x01);
  EXPECT_EQ(at(f, 15), 0x01);
  EXPECT_EQ(at(f, 16), 0x00); // the reserved octet of the vector
  EXPECT_EQ(at(f, 17), 0xa5);
  EXPECT_EQ(at(f, 18 + 2 * 6), 0xff);
  for (size_t i = kPfcPayloadEnd; i < f.size(); ++i)
    EXPECT_EQ(at(f, i), 0) << i;

  const Parsed parsed = parse(f);
  EXPECT_EQ(parsed.kind, Kind::pfc);
  EXPECT_EQ(parsed.opcode, kOpcodePfc);
  EXPECT_FALSE(parsed.reserved_bits);
  EXPECT_EQ(parsed.pfc.class_enable, request.class_enable);
  EXPECT_EQ(parsed.pfc.time, request.time);
}

TEST(MacControl, PauseRoundTrip) {
  const Frame f = build_pause(kSource, 0x1234);
  ASSERT_EQ(f.size(), kMinFrameBytes);
  EXPECT_EQ(at(f, 14), 0x00);
  EXPECT_EQ(at(f, 15), 0x01);
  const Parsed parsed = parse(f);
  EXPECT_EQ(parsed.kind, Kind::pause);
  EXPECT_EQ(parsed.pause_time, 0x1234);
}

TEST(MacControl, UnknownOpcodeIsDiscarded) {
  for (const uint16_t opcode : {0x0000, 0x0002, 0x0003, 0x0100, 0x0102, 0xffff}) {
    Frame f = build_pfc(kSource, {});
    f[14] = static_cast<std::byte>(opcode >> 8);
    f[15] = static_cast<std::byte>(opcode & 0xff);
    const Parsed parsed = parse(f);
    EXPECT_EQ(parsed.kind, Kind::unknown_opcode) << opcode;
    EXPECT_EQ(parsed.opcode, opcode);
  }
}

TEST(MacControl, ShortFrameIsDiscarded) {
  const Frame full = build_pfc(kSource, PfcRequest{.class_enable = 1, .time = {7}});
  for (const size_t size :
       {size_t{14}, size_t{15}, size_t{16}, size_t{33}, size_t{34}, kMinFrameBytes - 1}) {
    const Frame cut(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(size));
    EXPECT_EQ(parse(cut).kind, Kind::short_frame) << size;
  }
  const Frame pause = build_pause(kSource, 1);
  EXPECT_EQ(parse(Frame(pause.begin(), pause.begin() + 18)).kind, Kind::short_frame);
  // Longer than the minimum (a peer that pads further) is fine.
  Frame longer = full;
  longer.resize(128);
  EXPECT_EQ(parse(longer).kind, Kind::pfc);
}

TEST(MacControl, ReservedVectorBitsAreIgnored) {
  Frame f = build_pfc(kSource, PfcRequest{.class_enable = 0x08, .time = {0, 0, 0, 9}});
  f[16] = std::byte{0x80};
  const Parsed parsed = parse(f);
  EXPECT_EQ(parsed.kind, Kind::pfc);
  EXPECT_TRUE(parsed.reserved_bits);
  EXPECT_EQ(parsed.pfc.class_enable, 0x08);
  EXPECT_EQ(parsed.pfc.time[3], 9);
}

TEST(MacControl, OtherFramesAreNotMacControl) {
  EXPECT_EQ(parse(Frame{}).kind, Kind::not_mac_control);
  EXPECT_EQ(parse(Frame(13, std::byte{0x88})).kind, Kind::not_mac_control);
  EXPECT_EQ(parse(tagged(3, 1)).kind, Kind::not_mac_control);
  // A tagged 0x8808 is not a MAC Control frame: the MAC sees EtherType 0x8100.
  Frame tagged_control = tagged(0, 1, 64);
  tagged_control[16] = std::byte{0x88};
  tagged_control[17] = std::byte{0x08};
  EXPECT_EQ(parse(tagged_control).kind, Kind::not_mac_control);
}

TEST(MacControl, FramePriorityFromThe8021QTag) {
  for (uint8_t pcp = 0; pcp < 8; ++pcp)
    EXPECT_EQ(frame_priority(tagged(pcp, 42)), pcp);
  EXPECT_EQ(frame_priority(tagged(5, 0)), 5); // priority-tagged (VLAN 0)
  Frame untagged = tagged(7, 1);
  untagged[12] = std::byte{0x08};
  untagged[13] = std::byte{0x00};
  EXPECT_EQ(frame_priority(untagged), 0);
  EXPECT_EQ(frame_priority(tagged(7, 1, 15)), 0); // the tag is cut short
  EXPECT_EQ(frame_priority(tagged(7, 1, 16)), 7);
  EXPECT_EQ(frame_priority(Frame{}), 0);
  // An 802.1ad S-tag (0x88a8): its PCP.
  Frame stag = tagged(6, 1);
  stag[12] = std::byte{0x88};
  stag[13] = std::byte{0xa8};
  EXPECT_EQ(frame_priority(stag), 6);
}

TEST(MacControl, FramePriorityOfUntaggedIpFromTheDscpMap) {
  DscpMap map;
  map.valid = uint64_t{1} << 26;
  map.priority[26] = 3;
  Frame v4(64, std::byte{0});
  v4[12] = std::byte{0x08};
  v4[14] = std::byte{0x45};
  v4[15] = std::byte{26 << 2};
  EXPECT_EQ(frame_priority(v4, map), 3);
  EXPECT_EQ(frame_priority(v4), 0); // no map
  Frame v6(64, std::byte{0});
  v6[12] = std::byte{0x86};
  v6[13] = std::byte{0xdd};
  v6[14] = std::byte{0x60 | (26 >> 2)};
  v6[15] = std::byte{(26 & 3) << 6};
  EXPECT_EQ(frame_priority(v6, map), 3);
  EXPECT_EQ(frame_priority(std::span(v6).first(15), map), 0); // too short for the DSCP
  map.valid = 0;
  EXPECT_EQ(frame_priority(v6, map), 0);
}

TEST(MacControl, QuantaAreFiveHundredTwelveBitTimes) {
  EXPECT_EQ(quanta_ns(0, 100'000), 0);
  EXPECT_EQ(quanta_ns(1, 100'000), 6); // 5.12 ns, rounded up
  EXPECT_EQ(quanta_ns(100, 100'000), 512);
  EXPECT_EQ(quanta_ns(0xffff, 100'000), 335'540); // 335.5392 us
  EXPECT_EQ(quanta_ns(1, 10'000), 52);            // 51.2 ns
  EXPECT_EQ(quanta_ns(0xffff, 1'000), 33'553'920);
  EXPECT_EQ(quanta_ns(1, 0), 0);
}

} // namespace
} // namespace ornic::mac_control
