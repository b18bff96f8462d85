// SMA Gets against the IBA's byte offsets (an SMP's attribute starts at byte 64), the
// response header, and what the SMA answers with a status or leaves to software.
#include <gtest/gtest.h>

#include "mad_rig.hpp"

namespace ornic::test {
namespace {

using mad::Outcome;

TEST(SmaGet, NodeInfo) {
  MadRig rig;
  rig.get(mad::kAttrNodeInfo);
  const auto& o = rig.out;
  EXPECT_EQ(o[64], 1);                              // BaseVersion
  EXPECT_EQ(o[65], 1);                              // ClassVersion
  EXPECT_EQ(o[66], 1);                              // NodeType: channel adapter
  EXPECT_EQ(o[67], 1);                              // NumPorts
  EXPECT_EQ(be_at(o, 68, 8), kNodeGuid);            // SystemImageGUID
  EXPECT_EQ(be_at(o, 76, 8), kNodeGuid);            // NodeGUID
  EXPECT_EQ(be_at(o, 84, 8), kPortGuid);            // PortGUID
  EXPECT_EQ(be_at(o, 92, 2), 16u);                  // PartitionCap
  EXPECT_EQ(be_at(o, 94, 2), ORNIC_PCI_DEVICE_ID);  // DeviceID
  EXPECT_EQ(be_at(o, 96, 4), ORNIC_PCI_REVISION);   // Revision
  EXPECT_EQ(o[100], 1);                             // LocalPortNum
  EXPECT_EQ(be_at(o, 101, 3), ORNIC_PCI_VENDOR_ID); // VendorID
  EXPECT_EQ(be_at(o, 104, 8), 0u);
}

TEST(SmaGet, NodeDescriptionIsZeroPadded) {
  MadRig rig;
  rig.core.ib.node_description = std::string(70, 'x'); // longer than the attribute
  rig.get(mad::kAttrNodeDescription);
  EXPECT_EQ(rig.out[64], 'x');
  EXPECT_EQ(rig.out[127], 'x');
  EXPECT_EQ(rig.out[128], 0);
  rig.core.ib.node_description = "ornic 02:0a:00:00:00:01";
  rig.get(mad::kAttrNodeDescription);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(&rig.out[64])), "ornic 02:0a:00:00:00:01");
  EXPECT_EQ(rig.out[127], 0);
}

TEST(SmaGet, GuidInfoHoldsThePortGuidAndASetChangesNothing) {
  MadRig rig;
  rig.get(mad::kAttrGuidInfo);
  EXPECT_EQ(be_at(rig.out, 64, 8), kPortGuid);
  for (size_t i = 1; i < 8; ++i)
    EXPECT_EQ(be_at(rig.out, 64 + 8 * i, 8), 0u);
  auto set = MadRig::request(mad::kClassSubnLid, mad::kMethodSet, mad::kAttrGuidInfo);
  put_be(set, 64, 8, 0x1234);
  put_be(set, 72, 8, 0x5678);
  EXPECT_EQ(rig.answer(set), 0);
  EXPECT_EQ(be_at(rig.out, 64, 8), kPortGuid);
  EXPECT_EQ(be_at(rig.out, 72, 8), 0u);
  EXPECT_EQ(rig.core.ib.port_guid, kPortGuid);
  EXPECT_EQ(rig.answer(MadRig::request(mad::kClassSubnLid, mad::kMethodGet, mad::kAttrGuidInfo, 1)),
            mad::kStatusInvalidField);
}

TEST(SmaGet, PortInfoEveryField) {
  MadRig rig;
  IbPort& port = rig.core.ib;
  port.m_key = 0x0102030405060708ull;
  port.gid_prefix = 0xfe80'0000'0000'0123ull;
  port.lid = 0x0017;
  port.lmc = 2;
  port.sm_lid = 0x0001;
  port.sm_sl = 3;
  port.m_key_lease_period = 60;
  port.m_key_protect_bits = 1;
  port.subnet_timeout = 18;
  port.m_key_violations = 4;
  port.p_key_violations = 5;
  port.q_key_violations = 6;
  port.vl_high_limit = 9;
  port.sw_capability_mask = 1u << 1; // IsSM, from MODIFY_PORT
  rig.get(mad::kAttrPortInfo, 1);
  const auto& o = rig.out;
  EXPECT_EQ(be_at(o, 64, 8), port.m_key);
  EXPECT_EQ(be_at(o, 72, 8), port.gid_prefix);
  EXPECT_EQ(be_at(o, 80, 2), 0x17u);
  EXPECT_EQ(be_at(o, 82, 2), 1u);
  // IsSM, IsSLMappingSupported, IsSystemImageGUIDSupported, IsExtendedSpeedsSupported,
  // IsClientReregistrationSupported; no IsTrapSupported or IsNoticeSupported.
  EXPECT_EQ(be_at(o, 84, 4), 0x0200'4842u);
  EXPECT_EQ(be_at(o, 88, 2), 0u);  // DiagCode
  EXPECT_EQ(be_at(o, 90, 2), 60u); // M_KeyLeasePeriod
  EXPECT_EQ(o[92], 1);             // LocalPortNum
  EXPECT_EQ(o[93], 0x02);          // LinkWidthEnabled 4X
  EXPECT_EQ(o[94], 0x02);          // LinkWidthSupported
  EXPECT_EQ(o[95], 0x02);          // LinkWidthActive
  EXPECT_EQ(o[96], 0x12);          // LinkSpeedSupported SDR | PortState Init
  EXPECT_EQ(o[97], 0x52);          // PortPhysicalState LinkUp | LinkDownDefault Polling
  EXPECT_EQ(o[98], 0x42);          // M_KeyProtectBits 1 | LMC 2
  EXPECT_EQ(o[99], 0x11);          // LinkSpeedActive | LinkSpeedEnabled: SDR
  EXPECT_EQ(o[100], 0x53);         // NeighborMTU 4096 | MasterSMSL 3
  EXPECT_EQ(o[101], 0x10);         // VLCap VL0 | InitType
  EXPECT_EQ(o[102], 9);            // VLHighLimit
  EXPECT_EQ(o[103], 8);            // VLArbitrationHighCap
  EXPECT_EQ(o[104], 8);            // VLArbitrationLowCap
  EXPECT_EQ(o[105], 0x05);         // InitTypeReply | MTUCap 4096
  EXPECT_EQ(o[106], 0);            // VLStallCount | HOQLife
  EXPECT_EQ(o[107], 0x10);         // OperationalVLs VL0, no enforcement
  EXPECT_EQ(be_at(o, 108, 2), 4u);
  EXPECT_EQ(be_at(o, 110, 2), 5u);
  EXPECT_EQ(be_at(o, 112, 2), 6u);
  EXPECT_EQ(o[114], 1);            // GUIDCap
  EXPECT_EQ(o[115], 18);           // ClientReregister 0 | SubnetTimeOut
  EXPECT_EQ(o[116], 8);            // RespTimeValue
  EXPECT_EQ(o[117], 0x88);         // LocalPhyErrors | OverrunErrors thresholds
  EXPECT_EQ(be_at(o, 118, 2), 0u); // MaxCreditHint
  EXPECT_EQ(be_at(o, 120, 4), 0u); // LinkRoundTripLatency
  EXPECT_EQ(be_at(o, 124, 2), 0u); // CapabilityMask2
  EXPECT_EQ(o[126], 0x22);         // LinkSpeedExtActive | Supported: EDR
  EXPECT_EQ(o[127], 0x02);         // LinkSpeedExtEnabled: EDR
  EXPECT_TRUE(zero_at(o, 128, 128));
}

TEST(SmaGet, PortInfoModifierNamesTheArrivalPortOrPortOne) {
  MadRig rig;
  rig.get(mad::kAttrPortInfo, 0);
  rig.get(mad::kAttrPortInfo, 1);
  rig.get(mad::kAttrPortInfo, 0x8000'0001u); // SMSupportsExtendedSpeeds
  for (uint32_t modifier : {2u, 0x100u, 0x4000'0001u})
    EXPECT_EQ(rig.answer(MadRig::request(mad::kClassSubnLid, mad::kMethodGet, mad::kAttrPortInfo,
                                         modifier)),
              mad::kStatusInvalidField)
        << modifier;
}

TEST(SmaGet, DirectedRouteResponseHasTheDirectionBitAndKeepsThePath) {
  MadRig rig;
  auto request = MadRig::request(mad::kClassSubnDirected, mad::kMethodGet, mad::kAttrNodeInfo);
  request[6] = 0;                 // hop pointer
  request[7] = 0;                 // hop count
  put_be(request, 32, 2, 0xffff); // DrSLID
  put_be(request, 34, 2, 0xffff); // DrDLID
  request[128] = 0x5a;            // initial path
  EXPECT_EQ(rig.answer(request), mad::kSmpDirection);
  EXPECT_EQ(rig.out[1], mad::kClassSubnDirected);
  EXPECT_EQ(be_at(rig.out, 32, 4), 0xffff'ffffu);
  EXPECT_EQ(rig.out[128], 0x5a);
  EXPECT_EQ(be_at(rig.out, 76, 8), kNodeGuid);
  // An error keeps the bit too.
  request[2] = 2;
  EXPECT_EQ(rig.answer(request), mad::kSmpDirection | mad::kStatusBadVersion);
}

TEST(SmaGet, LidRoutedResponseHasNoDirectionBit) {
  MadRig rig;
  EXPECT_EQ(rig.answer(MadRig::request(mad::kClassSubnLid, mad::kMethodGet, mad::kAttrNodeInfo)),
            0);
}

TEST(SmaGet, BadVersionsAreAnsweredWithStatus4) {
  MadRig rig;
  auto request = MadRig::request(mad::kClassSubnLid, mad::kMethodGet, mad::kAttrNodeInfo);
  request[2] = 2; // class version
  EXPECT_EQ(rig.answer(request), mad::kStatusBadVersion);
  request[2] = 1;
  request[0] = 2; // base version
  EXPECT_EQ(rig.answer(request), mad::kStatusBadVersion);
}

TEST(SmaGet, UnsupportedAttributesAndMethodsAreAnsweredWithStatus0xC) {
  MadRig rig;
  for (uint16_t attribute :
       {mad::kAttrSwitchInfo, uint16_t{0x0019}, uint16_t{0xff90}, uint16_t{0x0002}})
    EXPECT_EQ(rig.answer(MadRig::request(mad::kClassSubnLid, mad::kMethodGet, attribute)),
              mad::kStatusUnsupportedMethodAttr)
        << attribute;
  for (uint16_t attribute : {mad::kAttrNodeInfo, mad::kAttrNodeDescription})
    EXPECT_EQ(rig.answer(MadRig::request(mad::kClassSubnLid, mad::kMethodSet, attribute)),
              mad::kStatusUnsupportedMethodAttr)
        << attribute;
}

TEST(SmaGet, WhatIsNotTheSmasGoesToSoftware) {
  MadRig rig;
  // SMInfo belongs to the subnet manager.
  EXPECT_EQ(rig.run(MadRig::request(mad::kClassSubnLid, mad::kMethodGet, mad::kAttrSmInfo)),
            Outcome::not_handled);
  EXPECT_EQ(rig.run(MadRig::request(mad::kClassSubnDirected, mad::kMethodSet, mad::kAttrSmInfo)),
            Outcome::not_handled);
  // Responses and traps are for a subnet manager on this port.
  EXPECT_EQ(
      rig.run(MadRig::request(mad::kClassSubnDirected, mad::kMethodGetResp, mad::kAttrPortInfo)),
      Outcome::not_handled);
  EXPECT_EQ(rig.run(MadRig::request(mad::kClassSubnLid, 0x05, 0x0002)), Outcome::not_handled);
  // Other classes: subnet administration, communication management.
  EXPECT_EQ(rig.run(MadRig::request(0x03, mad::kMethodGet, 0x0035)), Outcome::not_handled);
  EXPECT_EQ(rig.run(MadRig::request(0x07, 0x03, 0x0010)), Outcome::not_handled);
}

TEST(SmaGet, TrapRepressIsConsumed) {
  MadRig rig;
  EXPECT_EQ(rig.run(MadRig::request(mad::kClassSubnLid, mad::kMethodTrapRepress, 0x0002)),
            Outcome::consumed);
  EXPECT_TRUE(rig.events().empty());
}

} // namespace
} // namespace ornic::test
