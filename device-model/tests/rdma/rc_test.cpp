// Every opcode end to end over a perfect wire, IPv4 and IPv6 GIDs and RoCE v1, UD and
// loopback.
#include <gtest/gtest.h>

#include "rdma_pair.hpp"

namespace ornic::test {
namespace {

void fill(Node& node, uint64_t offset, size_t length, uint8_t seed) {
  for (size_t i = 0; i < length; ++i)
    *node.at(offset + i) = std::byte{static_cast<uint8_t>(seed + i * 7)};
}

bool same(Node& x, uint64_t xo, Node& y, uint64_t yo, size_t length) {
  return std::memcmp(x.at(xo), y.at(yo), length) == 0;
}

enum class Gids : uint8_t { ipv4, ipv6, roce_v1, vlan };

class RcTransport : public ::testing::TestWithParam<Gids> {
protected:
  RcTransport()
      : pair(RdmaPair::Options{.ipv6 = GetParam() == Gids::ipv6,
                               .roce_v1 = GetParam() == Gids::roce_v1,
                               .vlan_id = GetParam() == Gids::vlan ? std::optional<uint16_t>(42)
                                                                   : std::nullopt}) {}
  RdmaPair pair;
};

TEST_P(RcTransport, SendMultiPacketWithImmediate) {
  auto [qa, qb] = pair.rc_pair(ORNIC_MTU_1024);
  constexpr size_t kLength = 5000; // 5 packets of 1024, the last 904
  fill(pair.a, 0, kLength, 3);
  qb.post_recv(77, {sge(pair.b.buffer + 8192, 4096, pair.b.key),
                    sge(pair.b.buffer + 16384, 4096, pair.b.key)});
  auto w = send_wqe(ORNIC_WQE_OP_SEND_IMM, 11, ORNIC_WQE_FLAG_SIGNALED | ORNIC_WQE_FLAG_SOLICITED);
  w.imm_data = 0x78563412; // bytes 12 34 56 78 in memory
  qa.post_send(w, {sge(pair.a.buffer, kLength, pair.a.key)});

  const auto sent = pair.wait_cqes(pair.a, 1);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(le(sent[0].wr_id), 11u);
  EXPECT_EQ(sent[0].opcode, ORNIC_CQE_OP_SEND);
  const auto received = pair.wait_cqes(pair.b, 1);
  ASSERT_EQ(received.size(), 1u);
  EXPECT_EQ(received[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(le(received[0].wr_id), 77u);
  EXPECT_EQ(le(received[0].byte_len), kLength);
  EXPECT_EQ(received[0].opcode, ORNIC_CQE_OP_RECV);
  EXPECT_TRUE(received[0].flags & ORNIC_CQE_FLAG_IMM);
  EXPECT_EQ(received[0].imm_data, 0x78563412u);
  EXPECT_EQ(le(received[0].qpn), qb.qpn);
  EXPECT_TRUE(same(pair.a, 0, pair.b, 8192, 4096));
  EXPECT_TRUE(same(pair.a, 4096, pair.b, 16384, kLength - 4096));
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_TX_RDMA_PACKETS), 5u);
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_RETRANSMITS), 0u);
}

TEST_P(RcTransport, RdmaWriteAndWriteWithImmediate) {
  auto [qa, qb] = pair.rc_pair(ORNIC_MTU_256);
  fill(pair.a, 0, 3000, 9);
  auto w = send_wqe(ORNIC_WQE_OP_RDMA_WRITE, 1);
  w.rdma.remote_addr = to_le(pair.b.buffer + 100);
  w.rdma.rkey = to_le(pair.b.key);
  qa.post_send(w,
               {sge(pair.a.buffer, 1000, pair.a.key), sge(pair.a.buffer + 1000, 2000, pair.a.key)});
  qb.post_recv(5, {});
  auto wi = send_wqe(ORNIC_WQE_OP_RDMA_WRITE_IMM, 2);
  wi.rdma.remote_addr = to_le(pair.b.buffer + 200000);
  wi.rdma.rkey = to_le(pair.b.key);
  wi.imm_data = 0x01020304;
  qa.post_send(wi, {sge(pair.a.buffer, 300, pair.a.key)});

  const auto sent = pair.wait_cqes(pair.a, 2);
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(sent[0].opcode, ORNIC_CQE_OP_RDMA_WRITE);
  EXPECT_EQ(le(sent[1].wr_id), 2u);
  EXPECT_TRUE(same(pair.a, 0, pair.b, 100, 3000));
  EXPECT_TRUE(same(pair.a, 0, pair.b, 200000, 300));
  const auto received = pair.wait_cqes(pair.b, 1);
  ASSERT_EQ(received.size(), 1u);
  EXPECT_EQ(received[0].opcode, ORNIC_CQE_OP_RECV_RDMA_IMM);
  EXPECT_EQ(le(received[0].byte_len), 300u);
  EXPECT_EQ(received[0].imm_data, 0x01020304u);
}

TEST_P(RcTransport, RdmaReadSegmentedByMtu) {
  auto [qa, qb] = pair.rc_pair(ORNIC_MTU_512);
  fill(pair.b, 4096, 2100, 21);
  auto w = send_wqe(ORNIC_WQE_OP_RDMA_READ, 9);
  w.rdma.remote_addr = to_le(pair.b.buffer + 4096);
  w.rdma.rkey = to_le(pair.b.key);
  qa.post_send(w, {sge(pair.a.buffer + 65536, 100, pair.a.key),
                   sge(pair.a.buffer + 70000, 2000, pair.a.key)});
  const auto done = pair.wait_cqes(pair.a, 1);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(done[0].opcode, ORNIC_CQE_OP_RDMA_READ);
  EXPECT_EQ(le(done[0].byte_len), 2100u);
  EXPECT_TRUE(same(pair.b, 4096, pair.a, 65536, 100));
  EXPECT_TRUE(same(pair.b, 4196, pair.a, 70000, 2000));
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_TX_RDMA_PACKETS), 5u); // 5 responses of <= 512
}

TEST_P(RcTransport, Atomics) {
  auto [qa, qb] = pair.rc_pair();
  const uint64_t initial = 1000;
  std::memcpy(pair.b.at(512), &initial, 8);
  auto add = send_wqe(ORNIC_WQE_OP_ATOMIC_FETCH_ADD, 1);
  add.atomic.remote_addr = to_le(pair.b.buffer + 512);
  add.atomic.rkey = to_le(pair.b.key);
  add.atomic.compare_add = to_le<uint64_t>(5);
  qa.post_send(add, {sge(pair.a.buffer, 8, pair.a.key)});
  auto cas = send_wqe(ORNIC_WQE_OP_ATOMIC_CMP_SWP, 2);
  cas.atomic.remote_addr = to_le(pair.b.buffer + 512);
  cas.atomic.rkey = to_le(pair.b.key);
  cas.atomic.compare_add = to_le<uint64_t>(1005);
  cas.atomic.swap = to_le<uint64_t>(42);
  qa.post_send(cas, {sge(pair.a.buffer + 8, 8, pair.a.key)});
  const auto done = pair.wait_cqes(pair.a, 2);
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[0].opcode, ORNIC_CQE_OP_FETCH_ADD);
  EXPECT_EQ(done[1].opcode, ORNIC_CQE_OP_COMP_SWAP);
  EXPECT_EQ(done[1].status, ORNIC_CQE_SUCCESS);
  uint64_t first = 0, second = 0, now = 0;
  std::memcpy(&first, pair.a.at(0), 8);
  std::memcpy(&second, pair.a.at(8), 8);
  std::memcpy(&now, pair.b.at(512), 8);
  EXPECT_EQ(first, 1000u);
  EXPECT_EQ(second, 1005u);
  EXPECT_EQ(now, 42u);
}

TEST_P(RcTransport, UnsignaledWqesCompleteOnlyThroughLaterSignaledOne) {
  auto [qa, qb] = pair.rc_pair();
  for (int i = 0; i < 3; ++i) {
    auto w = send_wqe(ORNIC_WQE_OP_RDMA_WRITE, 100 + i, i == 2 ? ORNIC_WQE_FLAG_SIGNALED : 0);
    w.rdma.remote_addr = to_le(pair.b.buffer + 64 * i);
    w.rdma.rkey = to_le(pair.b.key);
    qa.post_send(w, {sge(pair.a.buffer, 64, pair.a.key)});
  }
  const auto done = pair.wait_cqes(pair.a, 1, 10'000'000, 5);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(le(done[0].wr_id), 102u);
  EXPECT_EQ(le(done[0].wqe_index), 4u); // blocks 0-1, 2-3, 4-5
  EXPECT_FALSE(pair.a.poll().has_value());
}

TEST_P(RcTransport, InlineSend) {
  auto [qa, qb] = pair.rc_pair();
  qb.post_recv(1, {sge(pair.b.buffer, 256, pair.b.key)});
  std::vector<uint8_t> data(100);
  for (size_t i = 0; i < data.size(); ++i)
    data[i] = static_cast<uint8_t>(i * 3);
  qa.post_send_inline(send_wqe(ORNIC_WQE_OP_SEND, 1), data);
  const auto received = pair.wait_cqes(pair.b, 1);
  ASSERT_EQ(received.size(), 1u);
  EXPECT_EQ(le(received[0].byte_len), 100u);
  EXPECT_EQ(std::memcmp(pair.b.at(0), data.data(), data.size()), 0);
}

TEST_P(RcTransport, UdSendDeliversGrhAndSourceQp) {
  Qp ua = pair.create_qp(pair.a, ORNIC_QPT_UD);
  Qp ub = pair.create_qp(pair.b, ORNIC_QPT_UD);
  pair.bring_up_ud(ua, 0x1234);
  pair.bring_up_ud(ub, 0x1234);
  const uint32_t ah = pair.create_ah(pair.a, pair.b);
  ub.post_recv(3, {sge(pair.b.buffer, 40 + 512, pair.b.key)});
  fill(pair.a, 0, 500, 1);
  auto w = send_wqe(ORNIC_WQE_OP_SEND, 8);
  w.ud.ah = to_le(ah);
  w.ud.remote_qpn = to_le(ub.qpn);
  w.ud.qkey = to_le(0x80000000u); // the QP's own Q_Key
  ua.post_send(w, {sge(pair.a.buffer, 500, pair.a.key)});
  const auto sent = pair.wait_cqes(pair.a, 1);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].status, ORNIC_CQE_SUCCESS);
  const auto received = pair.wait_cqes(pair.b, 1);
  ASSERT_EQ(received.size(), 1u);
  EXPECT_EQ(received[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(le(received[0].byte_len), 540u);
  EXPECT_EQ(le(received[0].src_qp) & ORNIC_QPN_MASK, ua.qpn);
  EXPECT_TRUE(received[0].flags & ORNIC_CQE_FLAG_GRH);
  EXPECT_EQ((received[0].flags & ORNIC_CQE_FLAG_IPV4) != 0,
            GetParam() == Gids::ipv4 || GetParam() == Gids::vlan);
  // The tag's TCI, split between vlan_tci_hi and src_qp's top byte: PCP 5, VLAN 42.
  EXPECT_EQ((received[0].flags & ORNIC_CQE_FLAG_VLAN) != 0, GetParam() == Gids::vlan);
  if (GetParam() == Gids::vlan) {
    EXPECT_EQ(received[0].vlan_tci_hi << 8 | le(received[0].src_qp) >> 24, 5 << 13 | 42);
  }
  EXPECT_EQ((received[0].flags & ORNIC_CQE_FLAG_ROCE_V1) != 0, GetParam() == Gids::roce_v1);
  EXPECT_TRUE(same(pair.a, 0, pair.b, 40, 500));
  // The source address sits at the end of the GRH area (IPv4: bytes 32..35); RoCE v1's
  // GRH is the packet's own: NxtHdr 0x1b, the IPv4-mapped source GID at bytes 8..23.
  if (GetParam() == Gids::ipv4 || GetParam() == Gids::vlan) {
    EXPECT_EQ(std::to_integer<uint8_t>(*pair.b.at(35)), 1);
  } else {
    EXPECT_EQ(std::to_integer<uint8_t>(*pair.b.at(8 + 15)), 1);
    EXPECT_EQ(std::to_integer<uint8_t>(*pair.b.at(6)) == 0x1b, GetParam() == Gids::roce_v1);
  }
}

TEST(UdTransport, ManyMoreDatagramsThanTheRcWindow) {
  // UD gets no ACKs: its PSNs must never close a send window (ibv_ud_pingpong hung at 64).
  RdmaPair pair;
  Qp ua = pair.create_qp(pair.a, ORNIC_QPT_UD), ub = pair.create_qp(pair.b, ORNIC_QPT_UD);
  pair.bring_up_ud(ua, 7);
  pair.bring_up_ud(ub, 7);
  const uint32_t ah = pair.create_ah(pair.a, pair.b);
  constexpr int kCount = 150;
  for (int i = 0; i < kCount; ++i) {
    if (i % 40 == 0)
      for (int j = 0; j < 40; ++j)
        ub.post_recv(i + j, {sge(pair.b.buffer + 128 * ((i + j) % 64), 128, pair.b.key)});
    auto w = send_wqe(ORNIC_WQE_OP_SEND, i);
    w.ud.ah = to_le(ah);
    w.ud.remote_qpn = to_le(ub.qpn);
    w.ud.qkey = to_le(7u);
    ua.post_send(w, {sge(pair.a.buffer, 16, pair.a.key)});
    if (i % 16 == 15)
      pair.pump(); // the SQ holds 32 two-block WQEs
  }
  const auto sent = pair.wait_cqes(pair.a, kCount, 10'000'000, 3);
  EXPECT_EQ(sent.size(), static_cast<size_t>(kCount));
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_TX_RDMA_PACKETS), static_cast<uint64_t>(kCount));
}

INSTANTIATE_TEST_SUITE_P(Gids, RcTransport,
                         ::testing::Values(Gids::ipv4, Gids::ipv6, Gids::roce_v1, Gids::vlan),
                         [](const auto& info) {
                           switch (info.param) {
                           case Gids::ipv4:
                             return "IPv4";
                           case Gids::ipv6:
                             return "IPv6";
                           case Gids::roce_v1:
                             return "RoceV1";
                           case Gids::vlan:
                             break;
                           }
                           return "Vlan42";
                         });

TEST(RcLoopback, TwoQpsOnOneNicTalkWithoutTheWire) {
  RdmaPair pair;
  Qp q1 = pair.create_qp(pair.a), q2 = pair.create_qp(pair.a);
  // Both ends on node a: the destination GID is the port's own.
  Qp peer2 = q2, peer1 = q1;
  pair.connect(q1, peer2);
  pair.connect(q2, peer1);
  fill(pair.a, 0, 2000, 5);
  q2.post_recv(1, {sge(pair.a.buffer + 100000, 4096, pair.a.key)});
  q1.post_send(send_wqe(ORNIC_WQE_OP_SEND, 2), {sge(pair.a.buffer, 2000, pair.a.key)});
  const auto done = pair.wait_cqes(pair.a, 2);
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(done[1].status, ORNIC_CQE_SUCCESS);
  EXPECT_TRUE(same(pair.a, 0, pair.a, 100000, 2000));
  EXPECT_EQ(pair.wire.sent[0], 0u);
}

} // namespace
} // namespace ornic::test
