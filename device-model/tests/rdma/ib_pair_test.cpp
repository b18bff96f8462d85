// Two InfiniBand ports back to back (infiniband.rst), configured through their SMAs as a
// subnet manager would (LIDs 1 and 2, Armed, then Active): RC and UD by LID, with and
// without a GRH; the receive completions' LIDs; partitions and Q_Keys refused and counted
// while other QPs go on; a port that is not Active sends nothing; the PMA counts what the
// port moved.
#include <array>
#include <cstring>

#include <gtest/gtest.h>

#include "rdma_pair.hpp"

namespace ornic::test {
namespace {

void fill(Node& node, uint64_t offset, size_t length, uint8_t seed) {
  for (size_t i = 0; i < length; ++i)
    *node.at(offset + i) = std::byte{static_cast<uint8_t>(seed + i * 3)};
}

class IbPair : public ::testing::Test {
protected:
  IbPair() : pair(RdmaPair::Options{.infiniband = true}) {}

  ornic_send_wqe ud_send(uint64_t wr_id, uint32_t remote_qpn, uint32_t qkey) {
    auto w = send_wqe(ORNIC_WQE_OP_SEND, wr_id);
    w.ud.remote_qpn = to_le(remote_qpn);
    w.ud.qkey = to_le(qkey);
    return w;
  }

  RdmaPair pair;
};

TEST_F(IbPair, PortsAreActiveWithTheirLids) {
  EXPECT_EQ(pair.a.lid, 1);
  EXPECT_EQ(pair.b.lid, 2);
  const Node::Mad info = pair.b.smp(0x01, 0x0015, 1);
  EXPECT_EQ(info[64 + 16] << 8 | info[64 + 17], 2);
  EXPECT_EQ(info[64 + 32] & 0x0f, ORNIC_PORT_ACTIVE);
}

TEST_F(IbPair, RcWriteAndSendByLid) {
  auto [qa, qb] = pair.rc_pair(ORNIC_MTU_1024);
  fill(pair.a, 0, 3000, 5);
  auto w = send_wqe(ORNIC_WQE_OP_RDMA_WRITE, 1);
  w.rdma.remote_addr = to_le(pair.b.buffer + 64);
  w.rdma.rkey = to_le(pair.b.key);
  qa.post_send(w, {sge(pair.a.buffer, 3000, pair.a.key)});
  qb.post_recv(9, {sge(pair.b.buffer + 8192, 4096, pair.b.key)});
  qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, 2), {sge(pair.a.buffer, 1000, pair.a.key)});
  const auto sent = pair.wait_cqes(pair.a, 2);
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(sent[1].status, ORNIC_CQE_SUCCESS);
  const auto got = pair.wait_cqes(pair.b, 1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(le(got[0].byte_len), 1000u);
  EXPECT_EQ(std::memcmp(pair.a.at(0), pair.b.at(64), 3000), 0);
  EXPECT_EQ(std::memcmp(pair.a.at(0), pair.b.at(8192), 1000), 0);
  // The receive says who sent it, by LID.
  EXPECT_EQ(le(pair.b.last_origin.slid), 1);
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_RETRANSMITS), 0u);
}

TEST_F(IbPair, UdByLidWithAndWithoutGrh) {
  Qp ua = pair.create_qp(pair.a, ORNIC_QPT_UD);
  Qp ub = pair.create_qp(pair.b, ORNIC_QPT_UD);
  pair.bring_up_ud(ua, 0x1111);
  pair.bring_up_ud(ub, 0x1111);
  fill(pair.a, 0, 256, 7);

  ub.post_recv(1, {sge(pair.b.buffer, 40 + 256, pair.b.key)});
  ua.post_send_av(ud_send(1, ub.qpn, 0x1111), RdmaPair::inline_av(pair.b),
                  {sge(pair.a.buffer, 256, pair.a.key)});
  auto got = pair.wait_cqes(pair.b, 1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(got[0].flags & ORNIC_CQE_FLAG_GRH, 0) << "no GRH on a local route";
  EXPECT_EQ(le(got[0].src_qp), ua.qpn);
  EXPECT_EQ(le(pair.b.last_origin.slid), 1);
  EXPECT_EQ(std::memcmp(pair.a.at(0), pair.b.at(40), 256), 0);

  // With a GRH: the receiver's first 40 bytes are the GRH, naming the sender's GID.
  ornic_wqe_av av = RdmaPair::inline_av(pair.b);
  av.av_flags = ORNIC_AV_FLAG_GRH;
  av.hop_limit = 1;
  std::copy(pair.b.gid.begin(), pair.b.gid.end(), av.dgid);
  ub.post_recv(2, {sge(pair.b.buffer + 4096, 40 + 256, pair.b.key)});
  ua.post_send_av(ud_send(2, ub.qpn, 0x1111), av, {sge(pair.a.buffer, 256, pair.a.key)});
  got = pair.wait_cqes(pair.b, 1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_TRUE(got[0].flags & ORNIC_CQE_FLAG_GRH);
  EXPECT_EQ(std::memcmp(pair.b.at(4096 + 8), pair.a.gid.data(), 16), 0) << "SGID";
  EXPECT_EQ(std::memcmp(pair.b.at(4096 + 24), pair.b.gid.data(), 16), 0) << "DGID";
  EXPECT_EQ(std::memcmp(pair.a.at(0), pair.b.at(4096 + 40), 256), 0);
}

TEST_F(IbPair, WrongQkeyIsDroppedAndCountedInPortInfo) {
  Qp ua = pair.create_qp(pair.a, ORNIC_QPT_UD);
  Qp ub = pair.create_qp(pair.b, ORNIC_QPT_UD);
  pair.bring_up_ud(ua, 0x2222);
  pair.bring_up_ud(ub, 0x3333);
  ub.post_recv(1, {sge(pair.b.buffer, 40 + 64, pair.b.key)});
  ua.post_send_av(ud_send(1, ub.qpn, 0x2222), RdmaPair::inline_av(pair.b),
                  {sge(pair.a.buffer, 64, pair.a.key)});
  ASSERT_EQ(pair.wait_cqes(pair.a, 1).size(), 1u);
  EXPECT_TRUE(pair.wait_cqes(pair.b, 1, 10'000'000, 5).empty());
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_QKEY_ERRORS), 1u);
  const Node::Mad info = pair.b.smp(0x01, 0x0015, 1);
  EXPECT_EQ(info[64 + 48] << 8 | info[64 + 49], 1) << "Q_KeyViolations";
  // The right Q_Key still reaches the receive that stayed posted.
  ua.post_send_av(ud_send(2, ub.qpn, 0x3333), RdmaPair::inline_av(pair.b),
                  {sge(pair.a.buffer, 64, pair.a.key)});
  const auto got = pair.wait_cqes(pair.b, 1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].status, ORNIC_CQE_SUCCESS);
}

TEST_F(IbPair, PartitionsAdmitMembersOnly) {
  // B's table: the default partition, and 0x0005 as a limited member only.
  pair.b.set_pkeys({0xffff, 0x0005});
  pair.a.set_pkeys({0xffff, 0x0005});
  auto [qa, qb] = pair.rc_pair();
  // An RC pair in partition 5 on both sides: two limited members do not communicate.
  Qp pa = pair.create_qp(pair.a);
  Qp pb = pair.create_qp(pair.b);
  pa.pkey_index = pb.pkey_index = 1;
  pair.connect(pa, pb);
  pair.connect(pb, pa);
  pb.post_recv(1, {sge(pair.b.buffer, 64, pair.b.key)});
  pa.post_send(send_wqe(ORNIC_WQE_OP_SEND, 1), {sge(pair.a.buffer, 64, pair.a.key)});
  pair.advance(20'000'000);
  EXPECT_GE(pair.b.counter(ORNIC_CNT_RX_PKEY_ERRORS), 1u);
  const Node::Mad info = pair.b.smp(0x01, 0x0015, 1);
  EXPECT_GE(info[64 + 46] << 8 | info[64 + 47], 1) << "P_KeyViolations";
  // The pair in the default partition is unaffected.
  qb.post_recv(2, {sge(pair.b.buffer + 4096, 64, pair.b.key)});
  qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, 2), {sge(pair.a.buffer, 64, pair.a.key)});
  bool received = false;
  for (const auto& cqe : pair.wait_cqes(pair.b, 1))
    received = received || (le(cqe.wr_id) == 2 && cqe.status == ORNIC_CQE_SUCCESS);
  EXPECT_TRUE(received);
  // A P_Key index beyond the table is refused.
  Qp qc = pair.create_qp(pair.a);
  ornic_qp_attr attr{};
  attr.state = ORNIC_QPS_INIT;
  attr.pkey_index = to_le<uint16_t>(ORNIC_IB_PKEY_TABLE_LEN);
  EXPECT_EQ(pair.a.h.modify_qp(qc.qpn, attr, ORNIC_QP_ATTR_STATE | ORNIC_QP_ATTR_PKEY_INDEX).status,
            ORNIC_ADMIN_STATUS_BAD_FIELD);
}

TEST_F(IbPair, PmaCountsWhatThePortSent) {
  auto [qa, qb] = pair.rc_pair(ORNIC_MTU_1024);
  Node::Mad in{};
  in[0] = 1;
  in[1] = 0x04; // PerfMgt
  in[2] = 1;
  in[3] = 0x01;   // Get
  in[17] = 0x12;  // PortCounters
  in[64 + 1] = 1; // PortSelect
  Node::Mad before{}, after{};
  ASSERT_EQ(pair.a.h.mad_ifc(in, before).status, ORNIC_ADMIN_STATUS_SUCCESS);
  auto w = send_wqe(ORNIC_WQE_OP_RDMA_WRITE, 1);
  w.rdma.remote_addr = to_le(pair.b.buffer);
  w.rdma.rkey = to_le(pair.b.key);
  qa.post_send(w, {sge(pair.a.buffer, 4096, pair.a.key)});
  ASSERT_EQ(pair.wait_cqes(pair.a, 1).size(), 1u);
  ASSERT_EQ(pair.a.h.mad_ifc(in, after).status, ORNIC_ADMIN_STATUS_SUCCESS);
  auto be32 = [](const Node::Mad& m, size_t at) {
    return uint32_t{m[at]} << 24 | uint32_t{m[at + 1]} << 16 | uint32_t{m[at + 2]} << 8 | m[at + 3];
  };
  // PortXmitPkts at 64 + 32: four packets of 1024 for 4096 bytes.
  EXPECT_EQ(be32(after, 64 + 32) - be32(before, 64 + 32), 4u);
  // PortXmitData at 64 + 24, in words: at least the payload's 1024.
  EXPECT_GE(be32(after, 64 + 24) - be32(before, 64 + 24), 1024u);
}

TEST_F(IbPair, APortThatIsNotActiveSendsNothing) {
  Qp ua = pair.create_qp(pair.a, ORNIC_QPT_UD);
  pair.bring_up_ud(ua, 1);
  // PortState Down (1): the link retrains to Init, where only VL15 moves.
  Node::Mad info = pair.a.smp(0x01, 0x0015, 1);
  info[64 + 32] = static_cast<uint8_t>((info[64 + 32] & 0xf0) | ORNIC_PORT_DOWN);
  info[64 + 33] &= 0x0f;
  info = pair.a.smp(0x02, 0x0015, 1, &info);
  EXPECT_NE(info[64 + 32] & 0x0f, ORNIC_PORT_ACTIVE);
  const uint64_t sent_before = pair.a.counter(ORNIC_CNT_TX_RDMA_PACKETS);
  ua.post_send_av(ud_send(1, 2, 1), RdmaPair::inline_av(pair.b),
                  {sge(pair.a.buffer, 64, pair.a.key)});
  pair.wait_cqes(pair.a, 1);
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_TX_PORT_NOT_ACTIVE), 1u);
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_TX_RDMA_PACKETS), sent_before);
}

} // namespace
} // namespace ornic::test
