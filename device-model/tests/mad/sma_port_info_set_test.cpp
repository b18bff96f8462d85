// PortInfo Sets: what a subnet manager's sweep writes, the logical state machine of
// IBA 7.2, the values refused with status 0x1c (and nothing changed), and the PORT_STATE
// and PORT_CHANGE events.
#include <gtest/gtest.h>

#include "mad_rig.hpp"

namespace ornic::test {
namespace {

// PortInfo bytes of the attribute (offsets within the 64 attribute bytes).
constexpr size_t kLid = 64 + 16;
constexpr size_t kStateByte = 64 + 32;
constexpr size_t kPhysByte = 64 + 33;

void set_state(mad::MadBytes& set, uint8_t state) {
  set[kStateByte] = static_cast<uint8_t>((set[kStateByte] & 0xf0) | state);
}

// What OpenSM's LID manager writes to a channel adapter's port on its first sweep: the
// port's PortInfo with the subnet's settings, PortState and PortPhysicalState "no change".
mad::MadBytes sweep_set(MadRig& rig) {
  auto set = rig.port_info_set();
  put_be(set, 64, 8, 0);                        // M_Key
  put_be(set, 72, 8, 0xfe80'0000'0000'0000ull); // GidPrefix
  put_be(set, kLid, 2, 0x0004);                 // LID
  put_be(set, 82, 2, 0x0001);                   // MasterSMLID
  set[kPhysByte] = 0x02;                        // no change | LinkDownDefault Polling
  set_state(set, 0);                            // no change
  set[98] = 0x00;                               // protect bits 0, LMC 0
  set[100] = 0x50;                              // NeighborMTU 4096, MasterSMSL 0
  set[107] = 0x10;                              // OperationalVLs VL0
  set[115] = 18;                                // SubnetTimeOut 18
  set[117] = 0x88;
  return set;
}

TEST(SmaPortInfoSet, SubnetManagerSweepAssignsTheLid) {
  MadRig rig;
  auto set = sweep_set(rig);
  put_be(set, 72, 8, 0xfe80'0000'0000'0042ull);
  set[98] = 0x01;       // LMC 1
  set[115] = 0x80 | 18; // ClientReregister
  EXPECT_EQ(rig.answer(set), 0);
  const IbPort& port = rig.core.ib;
  EXPECT_EQ(port.lid, 4);
  EXPECT_EQ(port.lmc, 1);
  EXPECT_EQ(port.sm_lid, 1);
  EXPECT_EQ(port.gid_prefix, 0xfe80'0000'0000'0042ull);
  EXPECT_EQ(port.subnet_timeout, 18);
  EXPECT_EQ(port.logical_state, ORNIC_PORT_INIT);
  EXPECT_EQ(rig.port_change(), ORNIC_PORT_CHANGE_LID | ORNIC_PORT_CHANGE_SM |
                                   ORNIC_PORT_CHANGE_GID | ORNIC_PORT_CHANGE_CLIENT_REREG);
  // The response is the new PortInfo; it says the reregistration was asked for.
  EXPECT_EQ(be_at(rig.out, kLid, 2), 4u);
  EXPECT_EQ(rig.out[115], 0x80 | 18);
  // Later Gets read ClientReregister as 0.
  rig.get(mad::kAttrPortInfo, 1);
  EXPECT_EQ(rig.out[115], 18);
}

TEST(SmaPortInfoSet, OnlyWhatChangedIsReported) {
  MadRig rig;
  auto set = sweep_set(rig);
  EXPECT_EQ(rig.answer(set), 0);
  EXPECT_EQ(rig.port_change(), ORNIC_PORT_CHANGE_LID | ORNIC_PORT_CHANGE_SM);
  EXPECT_EQ(rig.answer(set), 0);
  EXPECT_TRUE(rig.events().empty());
  set[100] = 0x57; // MasterSMSL 7
  EXPECT_EQ(rig.answer(set), 0);
  EXPECT_EQ(rig.port_change(), ORNIC_PORT_CHANGE_SM);
  EXPECT_EQ(rig.core.ib.sm_sl, 7);
}

TEST(SmaPortInfoSet, StateMachineInitArmedActiveDown) {
  MadRig rig;
  auto set = sweep_set(rig);
  EXPECT_EQ(rig.answer(set), 0);
  rig.events();
  // Init -> Active skips Armed: refused.
  set_state(set, ORNIC_PORT_ACTIVE);
  EXPECT_EQ(rig.answer(set), mad::kStatusInvalidField);
  EXPECT_EQ(rig.out[kStateByte] & 0x0f, ORNIC_PORT_INIT);
  set_state(set, ORNIC_PORT_ARMED);
  EXPECT_EQ(rig.answer(set), 0);
  EXPECT_EQ(rig.out[kStateByte] & 0x0f, ORNIC_PORT_ARMED);
  EXPECT_EQ(rig.core.ib.logical_state, ORNIC_PORT_ARMED);
  EXPECT_TRUE(rig.events().empty()); // PORT_STATE only around Active
  // Armed again: refused (only from Init).
  EXPECT_EQ(rig.answer(set), mad::kStatusInvalidField);
  set_state(set, ORNIC_PORT_ACTIVE);
  EXPECT_EQ(rig.answer(set), 0);
  EXPECT_TRUE(rig.core.ib.active());
  auto events = rig.events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, ORNIC_EQE_PORT_STATE);
  EXPECT_EQ(le(events[0].data), ORNIC_PORT_ACTIVE);
  // Active -> Active and Active -> Armed are refused.
  EXPECT_EQ(rig.answer(set), mad::kStatusInvalidField);
  set_state(set, ORNIC_PORT_ARMED);
  EXPECT_EQ(rig.answer(set), mad::kStatusInvalidField);
  EXPECT_TRUE(rig.core.ib.active());
  // Down from Active: the link retrains and the port is back in Init.
  set_state(set, ORNIC_PORT_DOWN);
  EXPECT_EQ(rig.answer(set), 0);
  EXPECT_EQ(rig.core.ib.logical_state, ORNIC_PORT_INIT);
  EXPECT_EQ(rig.out[kStateByte] & 0x0f, ORNIC_PORT_INIT);
  events = rig.events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, ORNIC_EQE_PORT_STATE);
  EXPECT_EQ(le(events[0].data), ORNIC_PORT_DOWN);
  // The LID the SM set stays.
  EXPECT_EQ(rig.core.ib.lid, 4);
}

TEST(SmaPortInfoSet, DownWithoutALinkStaysDown) {
  MadRig rig;
  rig.core.ib_physical_link(false);
  auto set = rig.port_info_set();
  set[kPhysByte] = 0x02;
  set_state(set, ORNIC_PORT_DOWN);
  EXPECT_EQ(rig.answer(set), 0);
  EXPECT_EQ(rig.core.ib.logical_state, ORNIC_PORT_DOWN);
  EXPECT_EQ(rig.out[kPhysByte], 0x22); // Polling | Polling
  // Armed from Down: refused.
  set_state(set, ORNIC_PORT_ARMED);
  EXPECT_EQ(rig.answer(set), mad::kStatusInvalidField);
}

TEST(SmaPortInfoSet, UnknownStatesAreRefused) {
  MadRig rig;
  auto set = sweep_set(rig);
  for (uint8_t state : {uint8_t{ORNIC_PORT_INIT}, uint8_t{5}, uint8_t{15}}) {
    set_state(set, state);
    EXPECT_EQ(rig.answer(set), mad::kStatusInvalidField) << int{state};
    EXPECT_EQ(rig.core.ib.lid, 0) << "nothing applied";
  }
  EXPECT_TRUE(rig.events().empty());
}

TEST(SmaPortInfoSet, PhysicalStatePollingRetrainsDisabledIsRefused) {
  MadRig rig;
  rig.core.set_ib_port_state(ORNIC_PORT_ARMED);
  auto set = sweep_set(rig);
  set[kPhysByte] = 0x32; // Disabled
  EXPECT_EQ(rig.answer(set), mad::kStatusInvalidField);
  EXPECT_EQ(rig.core.ib.logical_state, ORNIC_PORT_ARMED);
  set[kPhysByte] = 0x22; // Polling
  EXPECT_EQ(rig.answer(set), 0);
  EXPECT_EQ(rig.core.ib.logical_state, ORNIC_PORT_INIT);
  set[kPhysByte] = 0x01; // LinkDownDefaultState Sleep
  EXPECT_EQ(rig.answer(set), mad::kStatusInvalidField);
}

// Each of these values alone makes the Set fail with nothing changed.
TEST(SmaPortInfoSet, OutOfRangeValuesChangeNothing) {
  struct Case {
    const char* what;
    size_t offset;
    size_t size;
    uint64_t value;
    uint32_t modifier = 1;
  };
  const Case cases[] = {
      {"multicast LID", kLid, 2, 0xc000},
      {"permissive LID", kLid, 2, 0xffff},
      {"multicast SM LID", 82, 2, 0xfffe},
      {"NeighborMTU 0", 100, 1, 0x00},
      {"NeighborMTU above MTUCap", 100, 1, 0x60},
      {"OperationalVLs VL0-1", 107, 1, 0x20},
      {"LinkWidthEnabled 1X", 93, 1, 0x01},
      {"LinkWidthEnabled 12X", 93, 1, 0x08},
      {"LinkSpeedEnabled DDR", 99, 1, 0x02},
      {"LinkSpeedExtEnabled disable", 127, 1, 30, 0x8000'0001u},
      {"LinkSpeedExtEnabled FDR", 127, 1, 0x01, 0x8000'0001u},
      {"port 2", kLid, 2, 4, 2},
  };
  for (const Case& c : cases) {
    MadRig rig;
    auto set = sweep_set(rig);
    put_be(set, 20, 4, c.modifier);
    put_be(set, c.offset, c.size, c.value);
    EXPECT_EQ(rig.answer(set), mad::kStatusInvalidField) << c.what;
    EXPECT_EQ(rig.core.ib.lid, 0) << c.what;
    EXPECT_EQ(rig.core.ib.sm_lid, 0) << c.what;
    EXPECT_EQ(rig.core.ib.subnet_timeout, 0) << c.what;
    EXPECT_TRUE(rig.events().empty()) << c.what;
    // A refused Set is answered with the PortInfo as it stands.
    if (c.modifier == 1 || c.modifier == 0x8000'0001u) {
      EXPECT_EQ(rig.out[115], 0) << c.what;
    }
  }
}

TEST(SmaPortInfoSet, EnabledFieldsTakeNoChangeSupportedOrASubset) {
  MadRig rig;
  auto set = sweep_set(rig);
  set[93] = 0xff; // LinkWidthEnabled: set to supported
  set[99] = 0x0f; // LinkSpeedEnabled: set to supported
  set[127] = 30;  // LinkSpeedExtEnabled "disable": ignored without bit 31
  EXPECT_EQ(rig.answer(set), 0);
  EXPECT_EQ(rig.out[93], 0x02);
  EXPECT_EQ(rig.out[99] & 0x0f, 0x01);
  EXPECT_EQ(rig.out[127], 0x02);
  set[93] = 0;
  set[99] = 0x10;
  set[127] = 31; // set to supported, with bit 31
  put_be(set, 20, 4, 0x8000'0001u);
  EXPECT_EQ(rig.answer(set), 0);
  EXPECT_EQ(rig.out[93], 0x02);
  EXPECT_EQ(rig.out[99] & 0x0f, 0x01);
}

TEST(SmaPortInfoSet, WritableFieldsAreKept) {
  MadRig rig;
  auto set = sweep_set(rig);
  put_be(set, 64, 8, 0x1111'2222'3333'4444ull); // M_Key
  put_be(set, 90, 2, 30);                       // M_KeyLeasePeriod
  set[98] = 0x80 | 0x07;                        // protect bits 2, LMC 7
  set[100] = 0x4f;                              // NeighborMTU 2048, MasterSMSL 15
  set[102] = 0x33;                              // VLHighLimit
  set[105] = 0x35;                              // InitTypeReply 3
  set[117] = 0x4a;                              // thresholds
  set[107] = 0x00;                              // OperationalVLs: no change
  EXPECT_EQ(rig.answer(set), 0);
  const IbPort& port = rig.core.ib;
  EXPECT_EQ(port.m_key, 0x1111'2222'3333'4444ull);
  EXPECT_EQ(port.m_key_lease_period, 30);
  EXPECT_EQ(port.m_key_protect_bits, 2);
  EXPECT_EQ(port.lmc, 7);
  EXPECT_EQ(port.neighbor_mtu, ORNIC_MTU_2048);
  EXPECT_EQ(port.sm_sl, 15);
  EXPECT_EQ(port.vl_high_limit, 0x33);
  EXPECT_EQ(port.init_type_reply, 3);
  EXPECT_EQ(port.local_phy_errors_threshold, 4);
  EXPECT_EQ(port.overrun_errors_threshold, 0xa);
  EXPECT_EQ(port.operational_vls, 1);
  // Read-only fields written with other values are left as they are.
  EXPECT_EQ(rig.out[105] & 0x0f, ORNIC_MTU_4096);
  EXPECT_EQ(be_at(rig.out, 84, 4), 0x0200'4840u);
}

TEST(SmaPortInfoSet, ViolationCountersResetOnlyWhenWrittenZero) {
  MadRig rig;
  rig.core.ib.m_key_violations = 3;
  rig.core.ib.p_key_violations = 4;
  rig.core.ib.q_key_violations = 5;
  auto set = sweep_set(rig); // carries the counts it read
  put_be(set, 110, 2, 0);    // P_KeyViolations
  EXPECT_EQ(rig.answer(set), 0);
  EXPECT_EQ(rig.core.ib.m_key_violations, 3);
  EXPECT_EQ(rig.core.ib.p_key_violations, 0);
  EXPECT_EQ(rig.core.ib.q_key_violations, 5);
}

} // namespace
} // namespace ornic::test
