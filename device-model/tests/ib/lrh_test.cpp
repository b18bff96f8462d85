// The LRH codec against the layout of IBA 7.7, byte by byte.
#include <array>
#include <cstdint>

#include <gtest/gtest.h>

#include "ib/lrh.hpp"

namespace ornic::ib {
namespace {

TEST(IbLrh, EncodesEveryFieldWhereIbaPutsIt) {
  const Lrh lrh{.virtual_lane = 15,
                .service_level = 0xa,
                .link_next = LinkNext::iba_global,
                .destination_lid = 0xc001,
                .packet_words = 0x123,
                .source_lid = 0x0042};
  std::array<uint8_t, Lrh::kSize> bytes{};
  lrh.encode(bytes);
  const std::array<uint8_t, Lrh::kSize> expected{0xf0, 0xa3, 0xc0, 0x01, 0x01, 0x23, 0x00, 0x42};
  EXPECT_EQ(bytes, expected);
  EXPECT_EQ(Lrh::decode(bytes), lrh);
}

TEST(IbLrh, DecodeReportsReservedBitsAndVersion) {
  std::array<uint8_t, Lrh::kSize> bytes{0x01, 0x0e, 0, 1, 0xf8, 0x05, 0, 2};
  const Lrh lrh = Lrh::decode(bytes);
  EXPECT_EQ(lrh.link_version, 1);
  EXPECT_EQ(lrh.link_next, LinkNext::iba_local);
  EXPECT_EQ(lrh.packet_words, 5);
  EXPECT_FALSE(lrh.reserved_clear);
}

TEST(IbLrh, PacketLengthKeepsElevenBits) {
  Lrh lrh;
  lrh.packet_words = 0xffff;
  std::array<uint8_t, Lrh::kSize> bytes{};
  lrh.encode(bytes);
  EXPECT_EQ(bytes[4], 0x07);
  EXPECT_EQ(bytes[5], 0xff);
}

} // namespace
} // namespace ornic::ib
