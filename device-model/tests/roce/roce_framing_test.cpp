// RoceFraming, the iba::Framing of RoCEv2, against a NicCore it reads the port's
// addresses from: routes from address vectors (GID table, MACs, ECN, UDP source port),
// frames in three steps identical to the builder's, and every answer a received frame
// gets (status, peer, group, loopback, UD GRH, MTU, congestion mark and notification).
#include <algorithm>
#include <vector>

#include <zlib.h>

#include <gtest/gtest.h>

#include "roce/builder.hpp"
#include "roce/cnp.hpp"
#include "roce/ecn.hpp"
#include "roce/roce_framing.hpp"
#include "sample_packets.hpp"

namespace ornic::roce {
namespace {

using namespace iba;

constexpr MacAddress kOwnMac = {0x02, 0, 0, 0, 0, 0x01};
constexpr MacAddress kPeerMac = {0x02, 0, 0, 0, 0, 0x02};

class RoceFramingTest : public ::testing::Test {
protected:
  void SetUp() override {
    core.resources.gids[0] = GidEntry{ORNIC_GID_TYPE_ROCE_V2_IPV4, own_v4};
    core.resources.gids[1] = GidEntry{ORNIC_GID_TYPE_ROCE_V2_IPV6, own_v6};
  }
  ornic_wqe_av av_to(const Gid& gid, uint8_t sgid_index) const {
    ornic_wqe_av av{};
    av.sgid_index = sgid_index;
    std::copy(gid.begin(), gid.end(), av.dgid);
    std::copy(kPeerMac.begin(), kPeerMac.end(), av.dmac);
    av.traffic_class = 0x28;
    av.hop_limit = 0;
    av.flow_label = to_le<uint32_t>(0xfff12345);
    return av;
  }
  OutboundPacket write_only(const Route& route) const {
    OutboundPacket packet;
    packet.route = route;
    packet.bth.opcode = static_cast<uint8_t>(Opcode::rc_rdma_write_only);
    packet.bth.destination_qp = 0x12;
    packet.bth.psn = 7;
    packet.reth = Reth{0x1000, 0x55, 5};
    return packet;
  }
  // The frame the framing makes, in its three steps.
  std::vector<uint8_t> frame_of(const OutboundPacket& packet, std::span<const uint8_t> payload) {
    iba::FramePlan plan;
    EXPECT_TRUE(framing.plan(packet, payload.size(), plan));
    std::vector<uint8_t> frame(plan.frame_bytes, 0xaa);
    const std::span<uint8_t> area = framing.write_headers(packet, plan, frame);
    EXPECT_EQ(area.size(), payload.size());
    std::copy(payload.begin(), payload.end(), area.begin());
    framing.seal(packet, plan, frame);
    return frame;
  }

  NicCore core{kOwnMac};
  RoceFraming framing{core};
  Gid own_v4 = gid_from_ipv4({10, 0, 0, 1});
  Gid peer_v4 = gid_from_ipv4({10, 0, 0, 2});
  Gid own_v6 = *gid_from_string("fd00::1");
  Gid peer_v6 = *gid_from_string("fd00::2");
};

TEST_F(RoceFramingTest, RouteTakesTheGidTableTheMacsEcnAndTheFlowsUdpPort) {
  Route route;
  ASSERT_TRUE(framing.route(av_to(peer_v4, 0), 0x11, 0x22, route));
  EXPECT_EQ(route.global.source_gid, own_v4);
  EXPECT_EQ(route.global.destination_gid, peer_v4);
  EXPECT_EQ(route.global.traffic_class, with_ect(core.cc, 0x28));
  EXPECT_EQ(route.global.traffic_class & kEcnMask, kEcnEct0);
  EXPECT_EQ(route.global.hop_limit, 64);
  EXPECT_EQ(route.global.flow_label, 0x12345u);
  EXPECT_EQ(route.ethernet.source_mac, kOwnMac);
  EXPECT_EQ(route.ethernet.destination_mac, kPeerMac);
  EXPECT_EQ(route.ethernet.flow_entropy, roce_udp_source_port(0, 0x11, 0x22));
  EXPECT_TRUE(route.has_global);
}

TEST_F(RoceFramingTest, NoRouteFromAnEmptyGidEntryOrAcrossIpFamilies) {
  Route route;
  EXPECT_FALSE(framing.route(av_to(peer_v4, 2), 1, 2, route));   // empty entry
  EXPECT_FALSE(framing.route(av_to(peer_v4, 200), 1, 2, route)); // beyond the table
  EXPECT_FALSE(framing.route(av_to(peer_v6, 0), 1, 2, route));   // IPv4 to IPv6
  EXPECT_FALSE(framing.route(av_to(peer_v4, 1), 1, 2, route));   // IPv6 to IPv4
}

TEST_F(RoceFramingTest, AGroupIsReachedAtItsIpMulticastMac) {
  const Gid group = gid_from_ipv4({239, 1, 2, 3});
  Route route;
  ASSERT_TRUE(framing.route(av_to(group, 0), 1, ORNIC_QPN_MULTICAST, route));
  EXPECT_TRUE(framing.is_multicast(route));
  EXPECT_EQ(route.ethernet.destination_mac, multicast_mac(group));
  ASSERT_TRUE(framing.route(av_to(peer_v4, 0), 1, 2, route));
  EXPECT_FALSE(framing.is_multicast(route));
}

TEST_F(RoceFramingTest, LocalIsAnyGidOfThePort) {
  Route route;
  ASSERT_TRUE(framing.route(av_to(own_v6, 1), 1, 2, route));
  EXPECT_TRUE(framing.is_local(route));
  ASSERT_TRUE(framing.route(av_to(peer_v6, 1), 1, 2, route));
  EXPECT_FALSE(framing.is_local(route));
}

TEST_F(RoceFramingTest, FramesAreTheBuildersAndParseBack) {
  for (const uint8_t sgid : {0, 1}) {
    Route route;
    ASSERT_TRUE(framing.route(av_to(sgid == 0 ? peer_v4 : peer_v6, sgid), 0x11, 0x22, route));
    const OutboundPacket packet = write_only(route);
    const std::vector<uint8_t> payload = {1, 2, 3, 4, 5};
    const std::vector<uint8_t> frame = frame_of(packet, payload);

    PacketDescription description;
    static_cast<TransportHeaders&>(description) = packet;
    static_cast<Addressing&>(description) = RoceFraming::addressing_of(route);
    std::vector<uint8_t> built;
    ASSERT_EQ(build_frame(description, payload, built), BuildError::ok);
    EXPECT_EQ(frame, built);

    ReceivedPacket received;
    ASSERT_EQ(framing.parse(frame, received), ParseStatus::packet);
    EXPECT_EQ(received.route.global.source_gid, route.global.source_gid);
    EXPECT_EQ(received.route.ethernet.flow_entropy, route.ethernet.flow_entropy);
    EXPECT_EQ(received.reth, packet.reth);
    EXPECT_EQ(received.bth.psn, 7u);
    EXPECT_EQ(std::vector<uint8_t>(received.payload.begin(), received.payload.end()), payload);
    EXPECT_FALSE(received.link_multicast);
    EXPECT_FALSE(received.congestion_experienced);
  }
}

TEST_F(RoceFramingTest, NoPlanAcrossIpFamilies) {
  Route route;
  ASSERT_TRUE(framing.route(av_to(peer_v4, 0), 1, 2, route));
  route.global.destination_gid = peer_v6;
  iba::FramePlan plan;
  EXPECT_FALSE(framing.plan(write_only(route), 0, plan));
}

TEST_F(RoceFramingTest, ParseSaysWhatIsWrongAndMarksCongestion) {
  Route route;
  ASSERT_TRUE(framing.route(av_to(peer_v4, 0), 1, 2, route));
  std::vector<uint8_t> frame = frame_of(write_only(route), std::vector<uint8_t>{9, 9});
  ReceivedPacket received;
  std::vector<uint8_t> bad_icrc = frame;
  bad_icrc[bad_icrc.size() - 1] ^= 1;
  EXPECT_EQ(framing.parse(bad_icrc, received), ParseStatus::bad_icrc);
  EXPECT_EQ(framing.parse(std::span(frame).first(20), received), ParseStatus::bad_header);

  // CE in the IPv4 header (the ICRC does not cover it, the header checksum does).
  route.global.traffic_class = kEcnCe;
  frame = frame_of(write_only(route), std::vector<uint8_t>{9, 9});
  ReceivedPacket marked;
  ASSERT_EQ(framing.parse(frame, marked), ParseStatus::packet);
  EXPECT_TRUE(marked.congestion_experienced);
}

TEST_F(RoceFramingTest, CongestionNotificationIsACnpBackAlongTheRoute) {
  core.cc.np_cnp_dscp = 46;
  Route route;
  ASSERT_TRUE(framing.route(av_to(peer_v6, 1), 0x11, 0x22, route));
  std::vector<uint8_t> cnp;
  ASSERT_TRUE(framing.build_congestion_notification(route, 0x22, cnp));
  ReceivedPacket received;
  ASSERT_EQ(framing.parse(cnp, received), ParseStatus::congestion_notification);
  EXPECT_EQ(received.bth.opcode, kCnpOpcode);
  EXPECT_EQ(received.bth.destination_qp, 0x22u);
  EXPECT_EQ(received.route.global.source_gid, own_v6);
  EXPECT_EQ(received.route.global.traffic_class, 46 << 2); // never ECN-capable
  EXPECT_EQ(received.route.ethernet.flow_entropy, route.ethernet.flow_entropy);
  // A CNP cut short is refused like any broken frame.
  std::vector<uint8_t> longer;
  PacketDescription description;
  static_cast<Addressing&>(description) = RoceFraming::addressing_of(route);
  ASSERT_TRUE(build_cnp(description, 0x22, 0, longer));
  EXPECT_EQ(framing.parse(std::span(longer).first(longer.size() - 1), received),
            ParseStatus::bad_header);
}

TEST_F(RoceFramingTest, ThePeerIsTheQpsDgidAndNeverAGroupMac) {
  Route route;
  ASSERT_TRUE(framing.route(av_to(peer_v4, 0), 1, 2, route));
  // A packet from the peer: its source is the peer's GID.
  std::swap(route.global.source_gid, route.global.destination_gid);
  const std::vector<uint8_t> frame = frame_of(write_only(route), {});
  ReceivedPacket received;
  ASSERT_EQ(framing.parse(frame, received), ParseStatus::packet);
  ornic_qp_attr attr{};
  std::copy(peer_v4.begin(), peer_v4.end(), attr.dgid);
  EXPECT_TRUE(framing.from_connected_peer(attr, received, true));
  received.link_multicast = true;
  EXPECT_FALSE(framing.from_connected_peer(attr, received, true));
  EXPECT_TRUE(framing.from_connected_peer(attr, received, false)); // looped back here
  received.link_multicast = false;
  std::copy(own_v4.begin(), own_v4.end(), attr.dgid);
  EXPECT_FALSE(framing.from_connected_peer(attr, received, true));
}

TEST_F(RoceFramingTest, UdGrhIsTheIpHeaderAndUdMtuTheEthernetOnes) {
  for (const uint8_t sgid : {0, 1}) {
    Route route;
    ASSERT_TRUE(framing.route(av_to(sgid == 0 ? peer_v4 : peer_v6, sgid), 1, 2, route));
    OutboundPacket packet;
    packet.route = route;
    packet.bth.opcode = static_cast<uint8_t>(Opcode::ud_send_only);
    packet.deth = Deth{0x22, 1};
    const std::vector<uint8_t> frame = frame_of(packet, std::vector<uint8_t>{1, 2, 3});
    ReceivedPacket received;
    ASSERT_EQ(framing.parse(frame, received), ParseStatus::packet);
    const UdGrh grh = framing.ud_grh(received, frame);
    EXPECT_TRUE(grh.present);
    EXPECT_EQ(grh.ipv4, sgid == 0);
    std::array<uint8_t, 40> expected{};
    if (sgid == 0)
      std::copy_n(frame.begin() + 14, 20, expected.begin() + 20);
    else
      std::copy_n(frame.begin() + 14, 40, expected.begin());
    EXPECT_EQ(grh.bytes, expected);
  }
  core.eth_mtu = 1500;
  EXPECT_EQ(framing.ud_mtu_bytes(), 1024u);
  core.eth_mtu = 9000;
  EXPECT_EQ(framing.ud_mtu_bytes(), 4096u);
}

// RoCE v1 (roce.rst, "RoCE v1"): a v1 GID entry's packets are Ethertype 0x8915 frames
// with the GRH in place of IP and UDP; their ICRC is zlib's CRC-32 over annex A16's
// pseudo-packet, computed here without the model's CRC code.
class RoceV1FramingTest : public RoceFramingTest {
protected:
  void SetUp() override {
    RoceFramingTest::SetUp();
    core.resources.gids[2] = GidEntry{ORNIC_GID_TYPE_ROCE_V1, own_v4};
    core.resources.gids[3] = GidEntry{ORNIC_GID_TYPE_ROCE_V1, own_v6};
  }
  static uint32_t reference_icrc(std::span<const uint8_t> frame) {
    const size_t end = 14 + 40 + (size_t{frame[18]} << 8 | frame[19]);
    std::vector<uint8_t> pseudo(8, 0xff);
    pseudo.insert(pseudo.end(), frame.begin() + 14, frame.begin() + static_cast<long>(end - 4));
    pseudo[8] |= 0x0f; // GRH traffic class and flow label
    pseudo[9] = pseudo[10] = pseudo[11] = 0xff;
    pseudo[8 + 7] = 0xff;      // hop limit
    pseudo[8 + 40 + 4] = 0xff; // BTH resv8a
    return static_cast<uint32_t>(crc32(0, pseudo.data(), static_cast<uInt>(pseudo.size())));
  }
};

TEST_F(RoceV1FramingTest, AV1EntrySendsAGrhInEthertype8915WithAnA16Icrc) {
  core.cc.ect = ORNIC_CC_ECT_1; // RoCEv2 packets would claim ECT(1)
  for (const uint8_t sgid : {2, 3}) {
    Route route;
    ASSERT_TRUE(framing.route(av_to(sgid == 2 ? peer_v4 : peer_v6, sgid), 0x11, 0x22, route));
    EXPECT_TRUE(route.ethernet.roce_v1);
    EXPECT_EQ(route.global.traffic_class, 0x28); // no ECN on a fabric no router marks
    const std::vector<uint8_t> payload = {1, 2, 3, 4, 5};
    const std::vector<uint8_t> frame = frame_of(write_only(route), payload);
    ASSERT_EQ(frame.size(), 14u + 40 + 12 + 16 + 8 + 4);
    EXPECT_EQ(frame[12], 0x89);
    EXPECT_EQ(frame[13], 0x15);
    EXPECT_EQ(frame[14] >> 4, 6);              // GRH IPVer
    EXPECT_EQ(frame[14 + 6], 0x1b);            // NxtHdr: IBA transport
    EXPECT_EQ(frame[14 + 7], 64);              // hop limit
    EXPECT_EQ(frame[14 + 5], 12 + 16 + 8 + 4); // PayLen: BTH through ICRC
    EXPECT_TRUE(std::equal(route.global.source_gid.begin(), route.global.source_gid.end(),
                           frame.begin() + 14 + 8));
    EXPECT_EQ(frame[14 + 40], static_cast<uint8_t>(Opcode::rc_rdma_write_only));
    const uint32_t wire = load_icrc(std::span(frame).last<4>());
    EXPECT_EQ(wire, reference_icrc(frame));

    ReceivedPacket received;
    ASSERT_EQ(framing.parse(frame, received), ParseStatus::packet);
    EXPECT_TRUE(received.route.ethernet.roce_v1);
    EXPECT_EQ(received.route.global.source_gid, route.global.source_gid);
    EXPECT_EQ(received.route.global.destination_gid, route.global.destination_gid);
    EXPECT_EQ(received.reth, write_only(route).reth);
    EXPECT_EQ(std::vector<uint8_t>(received.payload.begin(), received.payload.end()), payload);
    EXPECT_FALSE(received.congestion_experienced);
  }
}

TEST_F(RoceV1FramingTest, AGrhCarriesGidsOfBothForms) {
  Route route;
  ASSERT_TRUE(framing.route(av_to(peer_v6, 2), 1, 2, route)); // an IPv4-mapped source
  iba::FramePlan plan;
  EXPECT_TRUE(framing.plan(write_only(route), 0, plan));
}

TEST_F(RoceV1FramingTest, BadIcrcAndBadGrhsAreRefused) {
  Route route;
  ASSERT_TRUE(framing.route(av_to(peer_v6, 3), 1, 2, route));
  const std::vector<uint8_t> frame = frame_of(write_only(route), std::vector<uint8_t>{9, 9});
  ReceivedPacket received;
  std::vector<uint8_t> bad = frame;
  bad[bad.size() - 5] ^= 1; // payload bit
  EXPECT_EQ(framing.parse(bad, received), ParseStatus::bad_icrc);
  bad = frame;
  bad[14 + 6] = 17; // NxtHdr UDP: not a RoCE v1 packet
  EXPECT_EQ(framing.parse(bad, received), ParseStatus::bad_header);
  bad = frame;
  bad[14] = 0x40; // IPVer 4
  EXPECT_EQ(framing.parse(bad, received), ParseStatus::bad_header);
  bad = frame;
  bad[14 + 4] = 0xff; // PayLen past the frame
  EXPECT_EQ(framing.parse(bad, received), ParseStatus::bad_header);
  EXPECT_EQ(framing.parse(std::span(frame).first(14 + 39), received), ParseStatus::bad_header);
  // Traffic class, flow label and hop limit are outside the ICRC.
  bad = frame;
  bad[14 + 1] ^= 0x5a;
  bad[14 + 7] = 3;
  EXPECT_EQ(framing.parse(bad, received), ParseStatus::packet);
}

TEST_F(RoceV1FramingTest, AQpHearsOnlyTheRoceVersionOfItsOwnGid) {
  Route route;
  ASSERT_TRUE(framing.route(av_to(peer_v4, 2), 1, 2, route));
  std::swap(route.global.source_gid, route.global.destination_gid);
  const std::vector<uint8_t> frame = frame_of(write_only(route), {});
  ReceivedPacket received;
  ASSERT_EQ(framing.parse(frame, received), ParseStatus::packet);
  ornic_qp_attr attr{};
  std::copy(peer_v4.begin(), peer_v4.end(), attr.dgid);
  attr.sgid_index = 2;
  EXPECT_TRUE(framing.from_connected_peer(attr, received, true));
  attr.sgid_index = 0; // the same address's RoCEv2 entry
  EXPECT_FALSE(framing.from_connected_peer(attr, received, true));
  attr.sgid_index = 7; // empty
  EXPECT_FALSE(framing.from_connected_peer(attr, received, true));
}

TEST_F(RoceV1FramingTest, UdGrhIsThePacketsOwnGrh) {
  Route route;
  ASSERT_TRUE(framing.route(av_to(peer_v4, 2), 1, 2, route));
  OutboundPacket packet;
  packet.route = route;
  packet.bth.opcode = static_cast<uint8_t>(Opcode::ud_send_only);
  packet.deth = Deth{0x22, 1};
  const std::vector<uint8_t> frame = frame_of(packet, std::vector<uint8_t>{1, 2, 3});
  ReceivedPacket received;
  ASSERT_EQ(framing.parse(frame, received), ParseStatus::packet);
  const UdGrh grh = framing.ud_grh(received, frame);
  EXPECT_TRUE(grh.present);
  EXPECT_TRUE(grh.roce_v1);
  EXPECT_FALSE(grh.ipv4);
  EXPECT_TRUE(std::equal(grh.bytes.begin(), grh.bytes.end(), frame.begin() + 14));
}

// VLANs (roce.rst, "VLANs"): a VLAN GID's frames carry an 802.1Q tag with the entry's VLAN
// ID and the address vector's SL as the PCP; received tags come back in the origin.
TEST_F(RoceFramingTest, AVlanGidTagsItsFramesWithTheAvsPriority) {
  core.resources.gids[4] = GidEntry{ORNIC_GID_TYPE_ROCE_V2_IPV4, own_v4, 42};
  core.resources.gids[5] = GidEntry{ORNIC_GID_TYPE_ROCE_V1, own_v6, 4094};
  for (const uint8_t sgid : {4, 5}) {
    ornic_wqe_av av = av_to(sgid == 4 ? peer_v4 : peer_v6, sgid);
    av.sl = 5;
    Route route;
    ASSERT_TRUE(framing.route(av, 1, 2, route));
    const std::vector<uint8_t> payload = {7, 7, 7};
    const std::vector<uint8_t> frame = frame_of(write_only(route), payload);
    EXPECT_EQ(frame[12], 0x81);
    EXPECT_EQ(frame[13], 0x00);
    const uint16_t vid = sgid == 4 ? 42 : 4094;
    EXPECT_EQ(frame[14] << 8 | frame[15], 5 << 13 | vid);
    EXPECT_EQ(frame[16] << 8 | frame[17], sgid == 4 ? 0x0800 : 0x8915);
    ReceivedPacket received;
    ASSERT_EQ(framing.parse(frame, received), ParseStatus::packet);
    EXPECT_EQ(received.route.ethernet.vlan_id, vid);
    EXPECT_EQ(received.route.ethernet.priority, 5);
    EXPECT_EQ(std::vector<uint8_t>(received.payload.begin(), received.payload.end()), payload);
    EXPECT_EQ(framing.origin_of(received).vlan_tci, 5 << 13 | vid);
    // Frame length: the untagged one's plus the tag.
    core.resources.gids[sgid]->vlan_id.reset();
    Route untagged;
    ASSERT_TRUE(framing.route(av, 1, 2, untagged));
    EXPECT_EQ(frame_of(write_only(untagged), payload).size() + 4, frame.size());
  }
}

TEST_F(RoceFramingTest, TagsWithoutAVlanAreRead) {
  Route route;
  ASSERT_TRUE(framing.route(av_to(peer_v4, 0), 1, 2, route));
  std::vector<uint8_t> frame = frame_of(write_only(route), std::vector<uint8_t>{1, 2});
  ReceivedPacket received;
  ASSERT_EQ(framing.parse(frame, received), ParseStatus::packet);
  EXPECT_FALSE(received.route.ethernet.vlan_id);
  EXPECT_FALSE(framing.origin_of(received).vlan_tci);
  // A priority tag (VLAN ID 0): a priority, no VLAN.
  std::vector<uint8_t> tagged(frame.begin(), frame.begin() + 12);
  tagged.insert(tagged.end(), {0x81, 0x00, 0x60, 0x00});
  tagged.insert(tagged.end(), frame.begin() + 12, frame.end());
  ASSERT_EQ(framing.parse(tagged, received), ParseStatus::packet);
  EXPECT_FALSE(received.route.ethernet.vlan_id);
  EXPECT_EQ(received.route.ethernet.priority, 3);
  // VLAN ID 4095, a second tag, a frame cut inside the tag: refused.
  tagged[14] = 0x6f;
  tagged[15] = 0xff;
  EXPECT_EQ(framing.parse(tagged, received), ParseStatus::bad_header);
  tagged[14] = 0x00;
  tagged[15] = 0x07;
  tagged[16] = 0x81;
  tagged[17] = 0x00;
  EXPECT_EQ(framing.parse(tagged, received), ParseStatus::bad_header);
  EXPECT_EQ(framing.parse(std::span(tagged).first(16), received), ParseStatus::bad_header);
}

} // namespace
} // namespace ornic::roce
