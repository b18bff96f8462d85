// The GRH codec against a header laid out by hand from IBA 8.3 (the same bytes an IPv6
// header with next header 0x1b has).
#include <array>
#include <cstdint>

#include <gtest/gtest.h>

#include "iba/grh.hpp"

namespace ornic::iba {
namespace {

TEST(IbaGrh, EncodesTheFieldsWhereIbaPutsThem) {
  Grh grh;
  grh.traffic_class = 0xa5;
  grh.flow_label = 0x12345;
  grh.payload_length = 0x0102;
  grh.hop_limit = 0x40;
  for (uint8_t i = 0; i < 16; ++i) {
    grh.source_gid[i] = i;
    grh.destination_gid[i] = static_cast<uint8_t>(0xf0 | i);
  }
  std::array<uint8_t, Grh::kSize> bytes{};
  grh.encode(bytes);
  // Version 6, traffic class 0xa5, flow label 0x12345: 0110 1010 0101 0001 0010 ...
  EXPECT_EQ(bytes[0], 0x6a);
  EXPECT_EQ(bytes[1], 0x51);
  EXPECT_EQ(bytes[2], 0x23);
  EXPECT_EQ(bytes[3], 0x45);
  EXPECT_EQ(bytes[4], 0x01);
  EXPECT_EQ(bytes[5], 0x02);
  EXPECT_EQ(bytes[6], 0x1b);
  EXPECT_EQ(bytes[7], 0x40);
  EXPECT_EQ(bytes[8], 0x00);
  EXPECT_EQ(bytes[23], 0x0f);
  EXPECT_EQ(bytes[24], 0xf0);
  EXPECT_EQ(bytes[39], 0xff);
  EXPECT_EQ(Grh::decode(bytes), grh);
}

TEST(IbaGrh, FlowLabelKeepsTwentyBits) {
  Grh grh;
  grh.flow_label = 0xfffff0;
  std::array<uint8_t, Grh::kSize> bytes{};
  grh.encode(bytes);
  EXPECT_EQ(Grh::decode(bytes).flow_label, 0xffff0u);
  EXPECT_EQ(Grh::decode(bytes).traffic_class, 0);
}

} // namespace
} // namespace ornic::iba
