// The GSI QP (qp.rst, roce.rst "Unreliable datagram"): QPN 1 on the kernel's doorbell page,
// UD semantics, sends with source QPN 1 and receives datagrams for QPN 1 checked against
// its Q_Key — what the MAD layer needs to carry RoCE CM MADs.
#include <gtest/gtest.h>

#include "rdma_pair.hpp"

namespace ornic::test {
namespace {

constexpr uint32_t kQp1Qkey = 0x80010000; // IB_QP1_QKEY, set by the driver with MODIFY_QP

ornic_send_wqe mad_send(uint64_t wr_id, uint32_t qkey) {
  auto w = send_wqe(ORNIC_WQE_OP_SEND, wr_id);
  w.ud.remote_qpn = to_le(uint32_t{ORNIC_QPN_GSI});
  w.ud.qkey = to_le(qkey);
  return w;
}

void fill(Node& node, uint64_t offset, size_t length, uint8_t seed) {
  for (size_t i = 0; i < length; ++i)
    *node.at(offset + i) = std::byte(static_cast<uint8_t>(seed ^ i));
}

class Gsi : public ::testing::Test {
protected:
  void SetUp() override {
    ga = pair.create_qp(pair.a, ORNIC_QPT_GSI);
    gb = pair.create_qp(pair.b, ORNIC_QPT_GSI);
    ASSERT_EQ(ga.qpn, uint32_t{ORNIC_QPN_GSI});
    ASSERT_EQ(gb.qpn, uint32_t{ORNIC_QPN_GSI});
    pair.bring_up_ud(ga, kQp1Qkey);
    pair.bring_up_ud(gb, kQp1Qkey);
  }

  // One MAD-sized datagram from `from` to QP1 of `to_node`, checked on arrival.
  void round_trip_leg(Qp& from, Qp& to, uint32_t qkey, uint64_t offset) {
    Node& src = *from.node;
    Node& dst = *to.node;
    fill(src, offset, 256, static_cast<uint8_t>(offset >> 12));
    to.post_recv(offset, {sge(dst.buffer + offset, 40 + 256, dst.key)});
    from.post_send_av(mad_send(offset, qkey), RdmaPair::inline_av(dst),
                      {sge(src.buffer + offset, 256, src.key)});
    const auto sent = pair.wait_cqes(src, 1);
    ASSERT_EQ(sent.size(), 1u);
    EXPECT_EQ(sent[0].status, ORNIC_CQE_SUCCESS);
    EXPECT_EQ(le(sent[0].qpn), uint32_t{ORNIC_QPN_GSI});
    const auto got = pair.wait_cqes(dst, 1);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].status, ORNIC_CQE_SUCCESS);
    EXPECT_EQ(got[0].opcode, ORNIC_CQE_OP_RECV);
    EXPECT_EQ(le(got[0].wr_id), offset);
    EXPECT_EQ(le(got[0].qpn), uint32_t{ORNIC_QPN_GSI});
    EXPECT_EQ(le(got[0].src_qp), uint32_t{ORNIC_QPN_GSI});
    EXPECT_EQ(le(got[0].byte_len), 296u);
    EXPECT_EQ(got[0].flags, ORNIC_CQE_FLAG_GRH | ORNIC_CQE_FLAG_IPV4);
    EXPECT_EQ(std::memcmp(src.at(offset), dst.at(offset + 40), 256), 0);
    // The GRH area's IPv4 header names the sender.
    EXPECT_EQ(std::memcmp(dst.at(offset + 20 + 12), src.gid.data() + 12, 4), 0);
  }

  RdmaPair pair;
  Qp ga, gb;
};

TEST_F(Gsi, Qp1ToQp1RoundTrip) {
  // The MAD layer asks for the QP's own Q_Key (bit 31); explicit 0x80010000 also has bit
  // 31 set, so both mean the QP's Q_Key.
  round_trip_leg(ga, gb, 0x80000000u, 0x1000);
  round_trip_leg(gb, ga, kQp1Qkey, 0x2000);
  round_trip_leg(ga, gb, kQp1Qkey, 0x3000);
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_RX_QKEY_ERRORS), 0u);
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_QKEY_ERRORS), 0u);
}

TEST_F(Gsi, WrongQkeyIsDroppedAndCountedTheReceiveStaysPosted) {
  // An ordinary UD QP (Q_Key 0x1234) sends to QP1 with its own Q_Key.
  Qp ua = pair.create_qp(pair.a, ORNIC_QPT_UD);
  pair.bring_up_ud(ua, 0x1234);
  gb.post_recv(7, {sge(pair.b.buffer, 40 + 64, pair.b.key)});
  ua.post_send_av(mad_send(1, 0x1234), RdmaPair::inline_av(pair.b),
                  {sge(pair.a.buffer, 64, pair.a.key)});
  ua.post_send_av(mad_send(2, 0x80000000u), RdmaPair::inline_av(pair.b),
                  {sge(pair.a.buffer, 64, pair.a.key)});
  const auto sent = pair.wait_cqes(pair.a, 2);
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[1].status, ORNIC_CQE_SUCCESS);
  pair.pump();
  EXPECT_FALSE(pair.b.poll().has_value());
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_QKEY_ERRORS), 2u);
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_UNKNOWN_QP), 0u);
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_UD_NO_RECV), 0u);

  // The same receive WQE takes the next datagram with the right Q_Key, from QP1.
  fill(pair.a, 0x4000, 64, 0x5a);
  ga.post_send_av(mad_send(3, 0x80000000u), RdmaPair::inline_av(pair.b),
                  {sge(pair.a.buffer + 0x4000, 64, pair.a.key)});
  const auto got = pair.wait_cqes(pair.b, 1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(le(got[0].wr_id), 7u);
  EXPECT_EQ(le(got[0].src_qp), uint32_t{ORNIC_QPN_GSI});
  EXPECT_EQ(std::memcmp(pair.a.at(0x4000), pair.b.at(40), 64), 0);
}

TEST_F(Gsi, OrdinaryUdQpReachesQp1WhenItsQkeyIsQp1s) {
  // What a kernel UD QP set to the QP1 Q_Key would send (and any UD peer answering a MAD).
  Qp ua = pair.create_qp(pair.a, ORNIC_QPT_UD);
  pair.bring_up_ud(ua, kQp1Qkey);
  gb.post_recv(9, {sge(pair.b.buffer, 40 + 32, pair.b.key)});
  ua.post_send_av(mad_send(1, 0x80000000u), RdmaPair::inline_av(pair.b),
                  {sge(pair.a.buffer, 32, pair.a.key)});
  const auto got = pair.wait_cqes(pair.b, 1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(le(got[0].qpn), uint32_t{ORNIC_QPN_GSI});
  EXPECT_EQ(le(got[0].src_qp), ua.qpn);
}

} // namespace
} // namespace ornic::test
