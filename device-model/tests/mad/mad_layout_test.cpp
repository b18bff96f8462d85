// The MAD and attribute layouts put each field where IBA does, in network byte order.
#include <gtest/gtest.h>

#include "mad/mad_layout.hpp"
#include "mad/pma_attributes.hpp"
#include "mad/smp_attributes.hpp"

namespace ornic::mad {
namespace {

TEST(MadLayout, BigEndianRoundTrip) {
  Be64 value;
  value.set(0x0102'0304'0506'0708ull);
  EXPECT_EQ(value.bytes, (std::array<uint8_t, 8>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(value.get(), 0x0102'0304'0506'0708ull);
  Be16 small;
  small.set(0xfeed);
  EXPECT_EQ(small.bytes[0], 0xfe);
  EXPECT_EQ(small.get(), 0xfeed);
}

TEST(MadLayout, SmpHeaderFieldsLandAtTheirOffsets) {
  Smp smp{};
  smp.header.transaction_id.set(0xa1a2a3a4a5a6a7a8ull);
  smp.header.attribute_id.set(kAttrPortInfo);
  smp.header.attribute_modifier.set(0x80000001u);
  smp.m_key.set(0xb1b2b3b4b5b6b7b8ull);
  smp.dr_slid.set(0xffff);
  smp.data[0] = 0xc1;
  smp.return_path[63] = 0xd1;
  MadBytes bytes{};
  store_as(bytes, smp);
  EXPECT_EQ(bytes[8], 0xa1);
  EXPECT_EQ(bytes[15], 0xa8);
  EXPECT_EQ(bytes[17], 0x15);
  EXPECT_EQ(bytes[20], 0x80);
  EXPECT_EQ(bytes[23], 0x01);
  EXPECT_EQ(bytes[24], 0xb1);
  EXPECT_EQ(bytes[32], 0xff);
  EXPECT_EQ(bytes[64], 0xc1);
  EXPECT_EQ(bytes[255], 0xd1);
}

TEST(MadLayout, PortInfoFieldsLandAtTheirOffsets) {
  PortInfo info{};
  info.lid.set(0x1234);
  info.capability_mask.set(0x02000000);
  info.q_key_violations.set(0x0777);
  info.link_speed_ext_enabled = 0x1f;
  std::array<uint8_t, kSmpDataSize> bytes{};
  store_as(bytes, info);
  EXPECT_EQ(bytes[16], 0x12);
  EXPECT_EQ(bytes[17], 0x34);
  EXPECT_EQ(bytes[20], 0x02);
  EXPECT_EQ(bytes[48], 0x07);
  EXPECT_EQ(bytes[49], 0x77);
  EXPECT_EQ(bytes[63], 0x1f);
}

TEST(MadLayout, PortCountersFieldsLandAtTheirOffsets) {
  PortCounters counters{};
  counters.port_select = 1;
  counters.vl15_dropped.set(0x0102);
  counters.port_rcv_packets.set(0x0a0b0c0d);
  std::array<uint8_t, kPmaDataSize> bytes{};
  store_as(bytes, counters);
  EXPECT_EQ(bytes[1], 1);
  EXPECT_EQ(bytes[22], 0x01);
  EXPECT_EQ(bytes[23], 0x02);
  EXPECT_EQ(bytes[36], 0x0a);
  EXPECT_EQ(bytes[39], 0x0d);
}

} // namespace
} // namespace ornic::mad
