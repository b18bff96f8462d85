// ORNIC_WQE_FLAG_AV (wqe.rst, "Inline address vector"): a kernel UD QP addresses a datagram
// from its own WQE instead of an AH, and every use the spec forbids fails the WQE.
#include <set>

#include <gtest/gtest.h>

#include "rdma_pair.hpp"
#include "roce/parser.hpp"

namespace ornic::test {
namespace {

// Keeps a copy of every frame node A puts on the wire.
struct CaptureA {
  explicit CaptureA(RdmaPair& pair) {
    pair.wire.policy = [this](int side, uint64_t, const LossyWire::Frame& frame) {
      if (side == 0)
        frames.push_back(frame);
      return WireAction::deliver;
    };
  }
  CaptureA(const CaptureA&) = delete;
  CaptureA& operator=(const CaptureA&) = delete;
  std::vector<LossyWire::Frame> frames;
};

roce::ParsedPacket parse(const LossyWire::Frame& frame) {
  roce::ParsedPacket packet;
  EXPECT_EQ(roce::parse_frame(std::span<const uint8_t>(
                                  reinterpret_cast<const uint8_t*>(frame.data()), frame.size()),
                              packet),
            roce::ParseError::ok);
  return packet;
}

void fill(Node& node, uint64_t offset, size_t length, uint8_t seed) {
  for (size_t i = 0; i < length; ++i)
    *node.at(offset + i) = std::byte(static_cast<uint8_t>(seed + i * 7));
}

bool same(Node& from, uint64_t from_offset, Node& to, uint64_t to_offset, size_t length) {
  return std::memcmp(from.at(from_offset), to.at(to_offset), length) == 0;
}

ornic_send_wqe ud_send(uint64_t wr_id, uint32_t remote_qpn, uint32_t qkey,
                       uint8_t opcode = ORNIC_WQE_OP_SEND) {
  auto w = send_wqe(opcode, wr_id);
  w.ud.remote_qpn = to_le(remote_qpn);
  w.ud.qkey = to_le(qkey);
  return w;
}

struct UdPair {
  explicit UdPair(bool ipv6 = false) : pair(ipv6) {
    ua = pair.create_qp(pair.a, ORNIC_QPT_UD);
    ub = pair.create_qp(pair.b, ORNIC_QPT_UD);
    pair.bring_up_ud(ua, 0x11);
    pair.bring_up_ud(ub, 0x22);
  }
  RdmaPair pair;
  Qp ua, ub;
};

TEST(InlineAv, Ipv4DatagramCarriesTheWqesAddressGrhAndSourceQpn) {
  UdPair p;
  RdmaPair& pair = p.pair;
  CaptureA capture(pair);
  const auto& frames = capture.frames;
  fill(pair.a, 0, 100, 3);
  std::vector<uint8_t> inline_data(64);
  for (size_t i = 0; i < inline_data.size(); ++i)
    inline_data[i] = static_cast<uint8_t>(0xa0 + i);
  std::memset(pair.b.at(0), 0xee, 8192); // the GRH area's unused bytes must be zeroed
  p.ub.post_recv(5, {sge(pair.b.buffer, 40 + 100, pair.b.key)});
  p.ub.post_recv(6, {sge(pair.b.buffer + 4096, 40 + 64, pair.b.key)});

  ornic_wqe_av av = RdmaPair::inline_av(pair.b);
  av.traffic_class = 0x28;
  av.hop_limit = 0; // means 64
  av.udp_sport = to_le<uint16_t>(0xd123);
  auto w = ud_send(1, p.ub.qpn, 0x22, ORNIC_WQE_OP_SEND_IMM);
  w.imm_data = 0x04030201;
  p.ua.post_send_av(w, av, {sge(pair.a.buffer, 100, pair.a.key)});
  p.ua.post_send_av_inline(ud_send(2, p.ub.qpn, 0x22), av, inline_data);

  const auto sent = pair.wait_cqes(pair.a, 2);
  ASSERT_EQ(sent.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(sent[i].status, ORNIC_CQE_SUCCESS);
    EXPECT_EQ(le(sent[i].wr_id), 1u + i);
    EXPECT_EQ(le(sent[i].wqe_index), 3u * i); // AV block + one data block each
  }
  EXPECT_EQ(p.ua.attr().state, ORNIC_QPS_RTS);

  const auto got = pair.wait_cqes(pair.b, 2);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(le(got[0].wr_id), 5u);
  EXPECT_EQ(le(got[0].byte_len), 140u);
  EXPECT_EQ(le(got[0].src_qp), p.ua.qpn);
  EXPECT_EQ(got[0].flags, ORNIC_CQE_FLAG_GRH | ORNIC_CQE_FLAG_IPV4 | ORNIC_CQE_FLAG_IMM);
  EXPECT_EQ(got[0].imm_data, 0x04030201u);
  EXPECT_TRUE(same(pair.a, 0, pair.b, 40, 100));
  EXPECT_EQ(le(got[1].wr_id), 6u);
  EXPECT_EQ(le(got[1].byte_len), 104u);
  EXPECT_EQ(le(got[1].src_qp), p.ua.qpn);
  EXPECT_EQ(got[1].flags, ORNIC_CQE_FLAG_GRH | ORNIC_CQE_FLAG_IPV4);
  EXPECT_EQ(std::memcmp(pair.b.at(4096 + 40), inline_data.data(), inline_data.size()), 0);

  // GRH area: 20 zero bytes, then the IPv4 header the vector produced.
  for (int i = 0; i < 20; ++i)
    EXPECT_EQ(*pair.b.at(i), std::byte{0}) << i;
  const auto* ip = reinterpret_cast<const uint8_t*>(pair.b.at(20));
  EXPECT_EQ(ip[0], 0x45);
  EXPECT_EQ(ip[1], 0x2a); // traffic class, ECN ECT(0) (roce.rst, "Congestion control")
  EXPECT_EQ(ip[8], 64);   // hop_limit 0 -> TTL 64
  EXPECT_EQ(std::memcmp(ip + 12, pair.a.gid.data() + 12, 4), 0);
  EXPECT_EQ(std::memcmp(ip + 16, pair.b.gid.data() + 12, 4), 0);

  ASSERT_EQ(frames.size(), 2u);
  for (const auto& frame : frames) {
    const auto packet = parse(frame);
    const roce::PacketDescription& d = packet.description;
    EXPECT_EQ(d.destination_mac, kMacB);
    EXPECT_EQ(d.source_mac, kMacA);
    EXPECT_EQ(d.udp_source_port, 0xd123);
    EXPECT_EQ(d.bth.destination_qp, p.ub.qpn);
    ASSERT_TRUE(d.deth.has_value());
    EXPECT_EQ(d.deth->source_qp, p.ua.qpn);
    EXPECT_EQ(d.deth->qkey, 0x22u);
  }
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_WQE_ERRORS), 0u);
}

TEST(InlineAv, Ipv6DatagramTakesFlowLabelHopLimitAndTrafficClass) {
  UdPair p(true);
  RdmaPair& pair = p.pair;
  CaptureA capture(pair);
  const auto& frames = capture.frames;
  fill(pair.a, 0, 300, 9);
  p.ub.post_recv(1, {sge(pair.b.buffer, 40 + 300, pair.b.key)});
  ornic_wqe_av av = RdmaPair::inline_av(pair.b);
  av.flow_label = to_le(0x12345u);
  av.hop_limit = 7;
  av.traffic_class = 0x10;
  // bit 31: the QP's own Q_Key (0x11), which the receiver does not accept; then explicit.
  p.ua.post_send_av(ud_send(1, p.ub.qpn, 0x80000000u), av, {sge(pair.a.buffer, 300, pair.a.key)});
  p.ua.post_send_av(ud_send(2, p.ub.qpn, 0x22), av, {sge(pair.a.buffer, 300, pair.a.key)});
  ASSERT_EQ(pair.wait_cqes(pair.a, 2).size(), 2u);
  const auto got = pair.wait_cqes(pair.b, 1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(le(got[0].byte_len), 340u);
  EXPECT_EQ(got[0].flags, ORNIC_CQE_FLAG_GRH);
  EXPECT_EQ(le(got[0].src_qp), p.ua.qpn);
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_QKEY_ERRORS), 1u);
  EXPECT_TRUE(same(pair.a, 0, pair.b, 40, 300));
  const auto* grh = reinterpret_cast<const uint8_t*>(pair.b.at(0));
  EXPECT_EQ(grh[0] >> 4, 6);
  EXPECT_EQ(((grh[0] & 0xf) << 4) | (grh[1] >> 4), 0x12);              // class, ECT(0)
  EXPECT_EQ(((grh[1] & 0xf) << 16) | (grh[2] << 8) | grh[3], 0x12345); // flow label
  EXPECT_EQ(grh[7], 7);                                                // hop limit
  EXPECT_EQ(std::memcmp(grh + 8, pair.a.gid.data(), 16), 0);
  EXPECT_EQ(std::memcmp(grh + 24, pair.b.gid.data(), 16), 0);
  ASSERT_EQ(frames.size(), 2u);
  const auto packet = parse(frames[0]);
  EXPECT_EQ(packet.description.flow_label, 0x12345u);
  EXPECT_EQ(packet.description.deth->qkey, 0x11u);
  // udp_sport 0: the device's choice, as for an AH.
  EXPECT_EQ(packet.description.udp_source_port, roce::roce_udp_source_port(0, p.ua.qpn, p.ub.qpn));
}

TEST(InlineAv, LargestWqesStillFitEightBlocks) {
  UdPair p;
  RdmaPair& pair = p.pair;
  fill(pair.a, 0, 256, 1);
  std::vector<ornic_sge> sges;
  for (uint32_t i = 0; i < 16; ++i)
    sges.push_back(sge(pair.a.buffer + i * 16, 16, pair.a.key));
  std::vector<uint8_t> inline_data(256);
  for (size_t i = 0; i < inline_data.size(); ++i)
    inline_data[i] = static_cast<uint8_t>(255 - i);
  p.ub.post_recv(1, {sge(pair.b.buffer, 40 + 256, pair.b.key)});
  p.ub.post_recv(2, {sge(pair.b.buffer + 4096, 40 + 256, pair.b.key)});
  const ornic_wqe_av av = RdmaPair::inline_av(pair.b);
  p.ua.post_send_av(ud_send(1, p.ub.qpn, 0x22), av, sges);               // 2 + 4 blocks
  p.ua.post_send_av_inline(ud_send(2, p.ub.qpn, 0x22), av, inline_data); // 2 + 4 blocks
  const auto sent = pair.wait_cqes(pair.a, 2);
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(sent[1].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(le(sent[1].wqe_index), 6u);
  const auto got = pair.wait_cqes(pair.b, 2);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(le(got[0].byte_len), 296u);
  EXPECT_TRUE(same(pair.a, 0, pair.b, 40, 256));
  EXPECT_EQ(le(got[1].byte_len), 296u);
  EXPECT_EQ(std::memcmp(pair.b.at(4096 + 40), inline_data.data(), 256), 0);
}

// One WQE on `qp` that must fail with LOC_QP_OP_ERR / `vendor_err` before anything is sent.
void expect_wqe_error(RdmaPair& pair, Qp& qp, uint8_t vendor_err, uint32_t expected_state) {
  const uint64_t frames_before = pair.wire.sent[0];
  const auto done = pair.wait_cqes(*qp.node, 1, 10'000'000, 2);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].status, ORNIC_CQE_LOC_QP_OP_ERR);
  EXPECT_EQ(done[0].vendor_err, vendor_err);
  EXPECT_EQ(le(done[0].qpn), qp.qpn);
  EXPECT_EQ(qp.state(), expected_state);
  EXPECT_EQ(pair.wire.sent[0], frames_before);
}

TEST(InlineAvErrors, UserQpMayNotAddressItsOwnPackets) {
  UdPair p;
  RdmaPair& pair = p.pair;
  const uint32_t page = pair.alloc_db_page(pair.a);
  ASSERT_NE(page, uint32_t{ORNIC_DB_PAGE_KERNEL});
  Qp user = pair.create_qp(pair.a, ORNIC_QPT_UD, page);
  pair.bring_up_ud(user, 0x22);
  user.post_send_av(ud_send(1, p.ub.qpn, 0x22), RdmaPair::inline_av(pair.b),
                    {sge(pair.a.buffer, 8, pair.a.key)});
  expect_wqe_error(pair, user, ORNIC_VERR_BAD_AH, ORNIC_QPS_SQE);
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_WQE_ERRORS), 1u);
  EXPECT_EQ(pair.wire.sent[0], 0u);

  // A user QP on the same page still sends through an AH, and the kernel QP inline.
  Qp user2 = pair.create_qp(pair.a, ORNIC_QPT_UD, page);
  pair.bring_up_ud(user2, 0x22);
  p.ub.post_recv(1, {sge(pair.b.buffer, 100, pair.b.key)});
  p.ub.post_recv(2, {sge(pair.b.buffer + 4096, 100, pair.b.key)});
  auto w = ud_send(2, p.ub.qpn, 0x22);
  w.ud.ah = to_le(pair.create_ah(pair.a, pair.b));
  user2.post_send(w, {sge(pair.a.buffer, 8, pair.a.key)});
  p.ua.post_send_av(ud_send(3, p.ub.qpn, 0x22), RdmaPair::inline_av(pair.b),
                    {sge(pair.a.buffer, 8, pair.a.key)});
  const auto sent = pair.wait_cqes(pair.a, 2);
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(sent[1].status, ORNIC_CQE_SUCCESS);
  const auto got = pair.wait_cqes(pair.b, 2);
  ASSERT_EQ(got.size(), 2u);
  // The engine serves ready QPs in its own order; both datagrams arrive.
  const std::set<uint32_t> sources = {le(got[0].src_qp), le(got[1].src_qp)};
  EXPECT_EQ(sources, (std::set<uint32_t>{user2.qpn, p.ua.qpn}));
}

TEST(InlineAvErrors, RcQpRejectsTheFlag) {
  RdmaPair pair;
  auto [qa, qb] = pair.rc_pair();
  qb.post_recv(1, {sge(pair.b.buffer, 64, pair.b.key)});
  qa.post_send_av(send_wqe(ORNIC_WQE_OP_SEND, 1), RdmaPair::inline_av(pair.b),
                  {sge(pair.a.buffer, 8, pair.a.key)});
  expect_wqe_error(pair, qa, ORNIC_VERR_BAD_AH, ORNIC_QPS_ERR);
  EXPECT_FALSE(pair.b.poll().has_value());
}

TEST(InlineAvErrors, AhTogetherWithTheFlag) {
  UdPair p;
  auto w = ud_send(1, p.ub.qpn, 0x22);
  w.ud.ah = to_le(p.pair.create_ah(p.pair.a, p.pair.b));
  p.ua.post_send_av(w, RdmaPair::inline_av(p.pair.b), {});
  expect_wqe_error(p.pair, p.ua, ORNIC_VERR_BAD_AH, ORNIC_QPS_SQE);
}

TEST(InlineAvErrors, ReservedBitsSet) {
  UdPair p;
  RdmaPair& pair = p.pair;
  const std::vector<std::function<void(ornic_wqe_av&)>> spoil = {
      [](ornic_wqe_av& av) { av.reserved0 = 1; },
      [](ornic_wqe_av& av) { av.reserved1[5] = to_le(0x100u); },
      [](ornic_wqe_av& av) { av.dlid = to_le<uint16_t>(1); }, // InfiniBand only
      [](ornic_wqe_av& av) { av.av_flags = ORNIC_AV_FLAG_GRH; },
      [](ornic_wqe_av& av) { av.flow_label = to_le(0x100000u); }, // beyond 20 bits
  };
  for (const auto& change : spoil) {
    Qp qp = pair.create_qp(pair.a, ORNIC_QPT_UD);
    pair.bring_up_ud(qp, 0x22);
    ornic_wqe_av av = RdmaPair::inline_av(pair.b);
    change(av);
    qp.post_send_av(ud_send(1, p.ub.qpn, 0x22), av, {sge(pair.a.buffer, 8, pair.a.key)});
    expect_wqe_error(pair, qp, ORNIC_VERR_RESERVED_NONZERO, ORNIC_QPS_SQE);
  }
}

TEST(InlineAvErrors, FlagWithoutRoomForTheVector) {
  UdPair p;
  p.ua.post_send(send_wqe(ORNIC_WQE_OP_SEND, 1, ORNIC_WQE_FLAG_SIGNALED | ORNIC_WQE_FLAG_AV), {});
  expect_wqe_error(p.pair, p.ua, ORNIC_VERR_BAD_BLOCKS, ORNIC_QPS_SQE);
}

TEST(InlineAvErrors, SourceGidMissingOrOfTheOtherFamily) {
  UdPair p;
  RdmaPair& pair = p.pair;
  const std::vector<std::function<void(ornic_wqe_av&)>> spoil = {
      [](ornic_wqe_av& av) { av.sgid_index = 3; },   // empty entry
      [](ornic_wqe_av& av) { av.sgid_index = 200; }, // beyond the table
      [](ornic_wqe_av& av) { av.dgid[0] = 0xfd; },   // IPv6 destination, IPv4 source
  };
  for (const auto& change : spoil) {
    Qp qp = pair.create_qp(pair.a, ORNIC_QPT_UD);
    pair.bring_up_ud(qp, 0x22);
    ornic_wqe_av av = RdmaPair::inline_av(pair.b);
    change(av);
    qp.post_send_av(ud_send(1, p.ub.qpn, 0x22), av, {sge(pair.a.buffer, 8, pair.a.key)});
    expect_wqe_error(pair, qp, ORNIC_VERR_BAD_AH, ORNIC_QPS_SQE);
  }
  // An AH whose GIDs are of two families fails the same way (the check is shared).
  ornic_admin_create_ah c{};
  c.hdr.opcode = ORNIC_ADMIN_CREATE_AH;
  c.pd = to_le(pair.a.pd);
  c.dgid[0] = 0xfd;
  c.dgid[15] = 2;
  const auto created = pair.a.h.execute(DriverHarness::as_sqe(c));
  ASSERT_EQ(created.status, ORNIC_ADMIN_STATUS_SUCCESS);
  auto w = ud_send(1, p.ub.qpn, 0x22);
  w.ud.ah = created.result0;
  p.ua.post_send(w, {});
  expect_wqe_error(pair, p.ua, ORNIC_VERR_BAD_AH, ORNIC_QPS_SQE);
  EXPECT_EQ(pair.wire.sent[0], 0u);
}

} // namespace
} // namespace ornic::test
