// P_KeyTable, SLtoVLMappingTable and VLArbitrationTable: blocks, modifiers, Sets and their
// events.
#include <gtest/gtest.h>

#include "mad_rig.hpp"

namespace ornic::test {
namespace {

mad::MadBytes pkey_set(uint32_t modifier = 0) {
  return MadRig::request(mad::kClassSubnLid, mad::kMethodSet, mad::kAttrPkeyTable, modifier);
}

TEST(SmaPkeyTable, DefaultTableIsTheDefaultPartition) {
  MadRig rig;
  rig.get(mad::kAttrPkeyTable);
  EXPECT_EQ(be_at(rig.out, 64, 2), 0xffffu);
  for (size_t i = 1; i < 32; ++i)
    EXPECT_EQ(be_at(rig.out, 64 + 2 * i, 2), 0u) << i;
}

TEST(SmaPkeyTable, SetReplacesTheTableAndRaisesPortChange) {
  MadRig rig;
  auto set = pkey_set();
  put_be(set, 64, 2, 0xffff);
  put_be(set, 66, 2, 0x8001);
  put_be(set, 64 + 2 * 15, 2, 0x7fff);
  put_be(set, 64 + 2 * 16, 2, 0x1234); // past the 16 entries: dropped
  EXPECT_EQ(rig.answer(set), 0);
  EXPECT_EQ(rig.core.ib.pkeys[1], 0x8001);
  EXPECT_EQ(rig.core.ib.pkeys[15], 0x7fff);
  EXPECT_EQ(be_at(rig.out, 66, 2), 0x8001u);
  EXPECT_EQ(be_at(rig.out, 64 + 2 * 16, 2), 0u);
  EXPECT_EQ(rig.port_change(), ORNIC_PORT_CHANGE_PKEY);
  // The same table again changes nothing and raises nothing.
  EXPECT_EQ(rig.answer(set), 0);
  EXPECT_TRUE(rig.events().empty());
  rig.get(mad::kAttrPkeyTable);
  EXPECT_EQ(be_at(rig.out, 94, 2), 0x7fffu);
}

TEST(SmaPkeyTable, ModifierNamesBlockZeroOfThisPort) {
  MadRig rig;
  rig.get(mad::kAttrPkeyTable, 1u << 16); // smpquery pkeys LID 1
  for (uint32_t modifier : {1u, 2u << 16, 0x8000u}) {
    auto set = pkey_set(modifier);
    EXPECT_EQ(rig.answer(set), mad::kStatusInvalidField) << modifier;
    EXPECT_EQ(rig.core.ib.pkeys[0], 0xffff);
  }
  EXPECT_TRUE(rig.events().empty());
}

TEST(SmaSlToVl, EverySlMapsToVl0) {
  MadRig rig;
  rig.get(mad::kAttrSlToVlTable);
  EXPECT_EQ(be_at(rig.out, 64, 8), 0u);
  rig.get(mad::kAttrSlToVlTable, 0x0101); // input port 1, output port 1
  auto set = MadRig::request(mad::kClassSubnLid, mad::kMethodSet, mad::kAttrSlToVlTable);
  EXPECT_EQ(rig.answer(set), 0);
  set[64 + 7] = 0x01; // SL 15 on VL1
  EXPECT_EQ(rig.answer(set), mad::kStatusInvalidField);
  set[64 + 7] = 0xf0; // SL 14 on VL15
  EXPECT_EQ(rig.answer(set), mad::kStatusInvalidField);
  EXPECT_EQ(rig.out[64 + 7], 0);
  for (uint32_t modifier : {2u, 0x200u, 0x10000u})
    EXPECT_EQ(rig.answer(MadRig::request(mad::kClassSubnLid, mad::kMethodGet, mad::kAttrSlToVlTable,
                                         modifier)),
              mad::kStatusInvalidField)
        << modifier;
}

TEST(SmaVlArbitration, LowAndHighTablesOfEightEntries) {
  MadRig rig;
  auto set =
      MadRig::request(mad::kClassSubnLid, mad::kMethodSet, mad::kAttrVlArbitrationTable, 1u << 16);
  for (size_t i = 0; i < 32; ++i) {
    set[64 + 2 * i] = static_cast<uint8_t>(0xf0 | (i % 15)); // reserved nibble set
    set[64 + 2 * i + 1] = static_cast<uint8_t>(i + 1);
  }
  EXPECT_EQ(rig.answer(set), 0);
  EXPECT_EQ(rig.out[64], 0);
  EXPECT_EQ(rig.out[65], 1);
  EXPECT_EQ(rig.out[64 + 2 * 7], 7);
  EXPECT_EQ(rig.out[64 + 2 * 7 + 1], 8);
  EXPECT_EQ(rig.out[64 + 2 * 8 + 1], 0) << "entry 8 is past LowCap";
  rig.get(mad::kAttrVlArbitrationTable, (1u << 16) | 1);
  EXPECT_EQ(rig.out[64 + 2 * 3], 3);
  rig.get(mad::kAttrVlArbitrationTable, 3u << 16);
  EXPECT_TRUE(zero_at(rig.out, 64, 16)) << "the high table is its own";
  EXPECT_EQ(rig.core.ib.vl_arbitration_low[5].weight, 6);
}

TEST(SmaVlArbitration, RefusedBlocksAndVl15) {
  MadRig rig;
  for (uint32_t modifier : {0u, 2u << 16, 4u << 16, 5u << 16, (1u << 16) | 2})
    EXPECT_EQ(rig.answer(MadRig::request(mad::kClassSubnLid, mad::kMethodGet,
                                         mad::kAttrVlArbitrationTable, modifier)),
              mad::kStatusInvalidField)
        << modifier;
  auto set =
      MadRig::request(mad::kClassSubnLid, mad::kMethodSet, mad::kAttrVlArbitrationTable, 3u << 16);
  set[65] = 9;
  set[64 + 2 * 4] = 15; // VL15 is never arbitrated
  EXPECT_EQ(rig.answer(set), mad::kStatusInvalidField);
  EXPECT_EQ(rig.core.ib.vl_arbitration_high[0].weight, 0);
  set[64 + 2 * 4] = 14;
  EXPECT_EQ(rig.answer(set), 0);
  EXPECT_EQ(rig.core.ib.vl_arbitration_high[0].weight, 9);
  EXPECT_EQ(rig.core.ib.vl_arbitration_high[4].vl, 14);
}

} // namespace
} // namespace ornic::test
