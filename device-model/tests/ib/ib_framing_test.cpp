// IbFraming against the port rules of infiniband.rst: LID routes (SLID from the LMC and path
// bits, VL15 for QP 0, a GRH for groups), what leaves and enters the port in each logical
// state, DLID ownership, the permissive LID and VL15, partitions, receive origins, and the
// port counters the PMA reports.
#include <vector>

#include <gtest/gtest.h>

#include "core/nic_core.hpp"
#include "ib/ib_framing.hpp"
#include "ib/packet_codec.hpp"
#include "sample_ib_packets.hpp"
#include "sample_packets.hpp"

namespace ornic::ib {
namespace {

using testing::build_ib_packet;
using testing::sample_ib_packet;

const iba::OpcodeInfo& info_of(iba::Opcode opcode) {
  for (const iba::OpcodeInfo& info : iba::all_opcodes())
    if (info.opcode == opcode)
      return info;
  throw std::logic_error("no such opcode");
}

class IbFramingTest : public ::testing::Test {
protected:
  IbFramingTest() {
    core.ib.enabled = true;
    core.ib.port_guid = 0x0200000000000001ull;
    core.ib.lid = 0x20;
    core.ib.lmc = 1;
    core.ib.logical_state = ORNIC_PORT_ACTIVE;
  }

  // A packet to this port (or to `dlid`) from LID 0x12.
  std::vector<uint8_t> incoming(iba::Opcode opcode, uint16_t dlid, uint8_t vl = 0,
                                uint32_t qpn = 0x22, bool global = false) {
    iba::OutboundPacket packet = sample_ib_packet(info_of(opcode), global);
    packet.route.local.destination_lid = dlid;
    packet.route.local.source_lid = 0x12;
    packet.route.local.virtual_lane = vl;
    packet.bth.destination_qp = qpn;
    return build_ib_packet(packet, roce::testing::sample_payload(info_of(opcode), 8));
  }

  iba::ParseStatus parse(const std::vector<uint8_t>& frame) {
    received = iba::ReceivedPacket{};
    return framing.parse(frame, received);
  }

  NicCore core{{0x02, 0, 0, 0, 0, 1}};
  IbFraming framing{core};
  iba::ReceivedPacket received;
};

TEST_F(IbFramingTest, RouteTakesLidsSlAndPathBits) {
  ornic_wqe_av av{};
  av.dlid = to_le<uint16_t>(0x12);
  av.sl = 3;
  av.src_path_bits = 0x3; // only the bit below LMC 1 counts
  iba::Route route;
  ASSERT_TRUE(framing.route(av, 5, 6, route));
  EXPECT_EQ(route.local.destination_lid, 0x12);
  EXPECT_EQ(route.local.source_lid, 0x21);
  EXPECT_EQ(route.local.service_level, 3);
  EXPECT_EQ(route.local.virtual_lane, 0);
  EXPECT_FALSE(route.has_global);

  ASSERT_TRUE(framing.route(av, ORNIC_QPN_SMI, 0, route));
  EXPECT_EQ(route.local.virtual_lane, 15);

  av.dlid = to_le<uint16_t>(0xffff);
  ASSERT_TRUE(framing.route(av, ORNIC_QPN_SMI, 0, route));
  EXPECT_EQ(route.local.source_lid, 0xffff) << "a permissive DLID goes with a permissive SLID";

  av.dlid = 0;
  EXPECT_FALSE(framing.route(av, 5, 6, route));
}

TEST_F(IbFramingTest, GlobalRoutesCarryThePortGid) {
  ornic_wqe_av av{};
  av.dlid = to_le<uint16_t>(0xc001); // a group: always a GRH
  av.dgid[0] = 0xff;
  av.hop_limit = 1;
  iba::Route route;
  ASSERT_TRUE(framing.route(av, 5, 0xffffff, route));
  EXPECT_TRUE(route.has_global);
  EXPECT_EQ(route.global.source_gid, core.ib.port_gid());
  EXPECT_EQ(route.global.source_gid[0], 0xfe);
  EXPECT_EQ(route.global.source_gid[15], 0x01);
  EXPECT_EQ(route.global.hop_limit, 1);
  av.sgid_index = 1;
  EXPECT_FALSE(framing.route(av, 5, 0xffffff, route)) << "the port has GID 0 only";
}

TEST_F(IbFramingTest, OnlyVl15LeavesAPortThatIsNotActive) {
  core.ib.logical_state = ORNIC_PORT_INIT;
  iba::OutboundPacket packet = sample_ib_packet(info_of(iba::Opcode::ud_send_only), false);
  iba::FramePlan plan;
  EXPECT_FALSE(framing.plan(packet, 8, plan));
  EXPECT_EQ(core.counters.get(ORNIC_CNT_TX_PORT_NOT_ACTIVE), 1u);
  EXPECT_EQ(core.ib.counters.xmit_discards, 1u);
  packet.route.local.virtual_lane = 15;
  EXPECT_TRUE(framing.plan(packet, 8, plan));
}

TEST_F(IbFramingTest, AcceptsItsOwnLidsOnly) {
  EXPECT_EQ(parse(incoming(iba::Opcode::rc_send_only, 0x20)), iba::ParseStatus::packet);
  EXPECT_EQ(received.route.local.source_lid, 0x12);
  EXPECT_EQ(parse(incoming(iba::Opcode::rc_send_only, 0x21)), iba::ParseStatus::packet)
      << "LMC 1: the port owns two LIDs";
  EXPECT_EQ(parse(incoming(iba::Opcode::rc_send_only, 0x22)), iba::ParseStatus::bad_header);
  EXPECT_EQ(core.counters.get(ORNIC_CNT_RX_WRONG_DLID), 1u);
  EXPECT_EQ(parse(incoming(iba::Opcode::rc_send_only, 0xffff)), iba::ParseStatus::bad_header)
      << "the permissive LID on a data VL";
  EXPECT_EQ(core.counters.get(ORNIC_CNT_RX_WRONG_DLID), 2u);
  EXPECT_EQ(core.ib.counters.rcv_switch_relay_errors, 2u);
}

TEST_F(IbFramingTest, Vl15IsForTheSmiQpOnly) {
  EXPECT_EQ(parse(incoming(iba::Opcode::ud_send_only, 0xffff, 15, 0)), iba::ParseStatus::packet);
  EXPECT_EQ(parse(incoming(iba::Opcode::ud_send_only, 0x20, 15, 1)), iba::ParseStatus::bad_header);
  EXPECT_EQ(core.counters.get(ORNIC_CNT_RX_VL15_DROPPED), 1u);
  EXPECT_EQ(core.ib.counters.vl15_dropped, 1u);
  EXPECT_EQ(parse(incoming(iba::Opcode::ud_send_only, 0x20, 0, 0)), iba::ParseStatus::bad_header)
      << "QP 0 on a data VL";
}

TEST_F(IbFramingTest, SubnetManagementReachesAPortWithoutLid) {
  core.ib.lid = 0;
  core.ib.logical_state = ORNIC_PORT_INIT;
  EXPECT_EQ(parse(incoming(iba::Opcode::ud_send_only, 0xffff, 15, 0)), iba::ParseStatus::packet);
  EXPECT_EQ(parse(incoming(iba::Opcode::ud_send_only, 0x20, 0, 2)), iba::ParseStatus::bad_header);
}

TEST_F(IbFramingTest, AnArmedPortBecomesActiveOnADataPacket) {
  core.ib.logical_state = ORNIC_PORT_INIT;
  EXPECT_EQ(parse(incoming(iba::Opcode::rc_send_only, 0x20)), iba::ParseStatus::bad_header);
  EXPECT_EQ(core.counters.get(ORNIC_CNT_RX_PORT_NOT_ACTIVE), 1u);
  core.ib.logical_state = ORNIC_PORT_ARMED;
  EXPECT_EQ(parse(incoming(iba::Opcode::rc_send_only, 0x20)), iba::ParseStatus::packet);
  EXPECT_EQ(core.ib.logical_state, ORNIC_PORT_ACTIVE);
}

TEST_F(IbFramingTest, GroupsNeedAGrh) {
  EXPECT_EQ(parse(incoming(iba::Opcode::ud_send_only, 0xc001, 0, 0xffffff, true)),
            iba::ParseStatus::packet);
  EXPECT_TRUE(received.link_multicast);
  EXPECT_TRUE(framing.is_multicast(received.route));
  EXPECT_EQ(parse(incoming(iba::Opcode::ud_send_only, 0xc001, 0, 0xffffff, false)),
            iba::ParseStatus::bad_header);
}

TEST_F(IbFramingTest, BadCrcsAndLengthsAreCountedAsReceiveErrors) {
  std::vector<uint8_t> frame = incoming(iba::Opcode::rc_send_only, 0x20);
  frame[frame.size() - 1] ^= 1;
  EXPECT_EQ(parse(frame), iba::ParseStatus::bad_icrc);
  EXPECT_EQ(core.counters.get(ORNIC_CNT_RX_BAD_VCRC), 1u);
  frame.push_back(0);
  EXPECT_EQ(parse(frame), iba::ParseStatus::bad_header);
  EXPECT_EQ(core.counters.get(ORNIC_CNT_RX_BAD_LRH), 1u);
  EXPECT_EQ(core.ib.counters.rcv_errors, 2u);
}

TEST_F(IbFramingTest, PartitionsFollowMembership) {
  core.ib.pkeys = {0xffff, 0x8001, 0x0002, 0};
  uint16_t index = 99;
  EXPECT_TRUE(framing.partition_admits(1, false, 0x0001, index)) << "full member takes limited";
  EXPECT_EQ(index, 1);
  EXPECT_FALSE(framing.partition_admits(2, false, 0x0002, index)) << "two limited members";
  EXPECT_TRUE(framing.partition_admits(2, false, 0x8002, index));
  EXPECT_FALSE(framing.partition_admits(3, false, 0x0000, index)) << "the invalid P_Key";
  EXPECT_TRUE(framing.partition_admits(0, true, 0x8001, index)) << "GSI: any entry";
  EXPECT_EQ(index, 1);
  EXPECT_FALSE(framing.partition_admits(0, true, 0x7777, index));
  EXPECT_EQ(core.counters.get(ORNIC_CNT_RX_PKEY_ERRORS), 3u);
  EXPECT_EQ(core.ib.p_key_violations, 3);
  EXPECT_EQ(core.ib.counters.rcv_constraint_errors, 3u);
  EXPECT_EQ(framing.partition_key(1), 0x8001);
}

TEST_F(IbFramingTest, ReceiveOriginHasTheSenderAndThePathBits) {
  ASSERT_EQ(parse(incoming(iba::Opcode::ud_send_only, 0x21)), iba::ParseStatus::packet);
  received.pkey_index = 4;
  const iba::ReceiveOrigin origin = framing.origin_of(received);
  EXPECT_EQ(origin.slid, 0x12);
  EXPECT_EQ(origin.sl, 5);
  EXPECT_EQ(origin.dlid_path_bits, 1);
  EXPECT_EQ(origin.pkey_index, 4);
}

TEST_F(IbFramingTest, PortCountersCountPacketsAndWords) {
  iba::OutboundPacket packet = sample_ib_packet(info_of(iba::Opcode::rc_send_only), false);
  iba::FramePlan plan;
  ASSERT_TRUE(framing.plan(packet, 100, plan));
  std::vector<uint8_t> frame(plan.frame_bytes);
  (void)framing.write_headers(packet, plan, frame);
  framing.seal(packet, plan, frame);
  EXPECT_EQ(core.ib.counters.xmit_packets, 1u);
  EXPECT_EQ(core.ib.counters.xmit_data_words, (frame.size() + 3) / 4);
  EXPECT_EQ(core.ib.counters.unicast_xmit_packets, 1u);
  const std::vector<uint8_t> in = incoming(iba::Opcode::rc_send_only, 0x20);
  ASSERT_EQ(parse(in), iba::ParseStatus::packet);
  EXPECT_EQ(core.ib.counters.rcv_packets, 1u);
  EXPECT_EQ(core.ib.counters.rcv_data_words, (in.size() + 3) / 4);
}

TEST_F(IbFramingTest, UdGrhIsTheReceivedGrhOrNothing) {
  const std::vector<uint8_t> global = incoming(iba::Opcode::ud_send_only, 0x20, 0, 2, true);
  ASSERT_EQ(parse(global), iba::ParseStatus::packet);
  iba::UdGrh grh = framing.ud_grh(received, global);
  EXPECT_TRUE(grh.present);
  EXPECT_FALSE(grh.ipv4);
  EXPECT_TRUE(std::equal(grh.bytes.begin(), grh.bytes.end(), global.begin() + 8));
  const std::vector<uint8_t> local = incoming(iba::Opcode::ud_send_only, 0x20, 0, 2, false);
  ASSERT_EQ(parse(local), iba::ParseStatus::packet);
  EXPECT_FALSE(framing.ud_grh(received, local).present);
}

} // namespace
} // namespace ornic::ib
