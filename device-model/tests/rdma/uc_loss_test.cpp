// UC on a lossy wire (roce.rst, "Unreliable connected"): a lost, late or duplicated packet
// never makes the responder NAK or deliver a broken message; it drops the message in
// progress and resynchronizes at the next FIRST/ONLY packet, filling the same receive WQE
// again. Also the SRQ case and the pacing by the port's backlog.
#include <random>

#include <gtest/gtest.h>

#include "rdma/transport_engine.hpp"
#include "rdma_pair.hpp"

namespace ornic::test {
namespace {

constexpr int kA = 0, kB = 1; // wire sides: frames sent by a / by b

void fill(Node& node, uint64_t offset, size_t length, uint8_t seed) {
  for (size_t i = 0; i < length; ++i)
    *node.at(offset + i) = std::byte{static_cast<uint8_t>(seed + i * 11)};
}

bool same(Node& x, uint64_t xo, Node& y, uint64_t yo, size_t length) {
  return std::memcmp(x.at(xo), y.at(yo), length) == 0;
}

class UcLoss : public ::testing::Test {
protected:
  void SetUp() override { std::tie(qa, qb) = pair.uc_pair(ORNIC_MTU_1024); }

  // Message i: `length` bytes from a's buffer at i * 8 KiB.
  void send(uint64_t i, size_t length) {
    fill(pair.a, i * 8192, length, static_cast<uint8_t>(i + 1));
    qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, 100 + i),
                 {sge(pair.a.buffer + i * 8192, static_cast<uint32_t>(length), pair.a.key)});
  }
  void recv(uint64_t wr_id, uint64_t slot) {
    qb.post_recv(wr_id, {sge(pair.b.buffer + slot * 8192, 8192, pair.b.key)});
  }
  // Every send completes at the requester whatever the wire did.
  void expect_sent(size_t count) {
    const auto sent = pair.wait_cqes(pair.a, count);
    ASSERT_EQ(sent.size(), count);
    for (const auto& cqe : sent)
      EXPECT_EQ(cqe.status, ORNIC_CQE_SUCCESS);
  }
  // The receive CQEs, after everything has settled.
  std::vector<ornic_cqe> received() {
    pair.advance(1'000'000);
    std::vector<ornic_cqe> got;
    while (auto cqe = pair.b.poll())
      got.push_back(*cqe);
    return got;
  }
  void expect_no_answer() {
    EXPECT_EQ(pair.wire.sent[kB], 0u);
    EXPECT_EQ(pair.b.counter(ORNIC_CNT_NAKS_SENT), 0u);
    EXPECT_EQ(qb.state(), ORNIC_QPS_RTS);
  }

  RdmaPair pair;
  Qp qa, qb;
};

// In the tests below a sends message 0 as frames 0..4 (5000 bytes), message 1 from frame 5.
TEST_F(UcLoss, LostMiddlePacketDropsTheMessageAndTheNextOneFillsTheSameWqe) {
  pair.wire.policy = [](int side, uint64_t n, const auto&) {
    return side == kA && n == 2 ? WireAction::drop : WireAction::deliver;
  };
  recv(1, 0);
  recv(2, 1);
  send(0, 5000);
  send(1, 3000);
  expect_sent(2);
  const auto got = received();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(le(got[0].wr_id), 1u); // the WQE the dropped message had taken
  EXPECT_EQ(le(got[0].byte_len), 3000u);
  EXPECT_TRUE(same(pair.a, 8192, pair.b, 0, 3000));
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_UC_DROPPED), 1u);
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_PSN_ERRORS), 1u);
  expect_no_answer();
  // WQE 2 is still posted.
  send(2, 100);
  expect_sent(1);
  const auto later = received();
  ASSERT_EQ(later.size(), 1u);
  EXPECT_EQ(le(later[0].wr_id), 2u);
}

TEST_F(UcLoss, LostFirstPacketDropsTheRestOfItsMessage) {
  pair.wire.policy = [](int side, uint64_t n, const auto&) {
    return side == kA && n == 0 ? WireAction::drop : WireAction::deliver;
  };
  recv(1, 0);
  send(0, 5000);
  send(1, 3000);
  expect_sent(2);
  const auto got = received();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(le(got[0].wr_id), 1u);
  EXPECT_EQ(le(got[0].byte_len), 3000u);
  EXPECT_TRUE(same(pair.a, 8192, pair.b, 0, 3000));
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_UC_DROPPED), 1u); // once, not per packet
  expect_no_answer();
}

TEST_F(UcLoss, LostLastPacketIsNoticedAtTheNextFirst) {
  pair.wire.policy = [](int side, uint64_t n, const auto&) {
    return side == kA && n == 4 ? WireAction::drop : WireAction::deliver;
  };
  recv(1, 0);
  send(0, 5000);
  send(1, 3000);
  expect_sent(2);
  const auto got = received();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(le(got[0].wr_id), 1u);
  EXPECT_EQ(le(got[0].byte_len), 3000u);
  EXPECT_TRUE(same(pair.a, 8192, pair.b, 0, 3000));
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_UC_DROPPED), 1u);
}

TEST_F(UcLoss, LostOnlyPacketLosesJustThatMessage) {
  pair.wire.policy = [](int side, uint64_t n, const auto&) {
    return side == kA && n == 1 ? WireAction::drop : WireAction::deliver;
  };
  for (uint64_t i = 0; i < 3; ++i)
    recv(10 + i, i);
  for (uint64_t i = 0; i < 3; ++i)
    send(i, 500);
  expect_sent(3);
  const auto got = received();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(le(got[0].wr_id), 10u);
  EXPECT_EQ(le(got[1].wr_id), 11u); // message 2 in the second WQE
  EXPECT_TRUE(same(pair.a, 0, pair.b, 0, 500));
  EXPECT_TRUE(same(pair.a, 2 * 8192, pair.b, 8192, 500));
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_UC_DROPPED), 0u); // nothing of it was seen
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_PSN_ERRORS), 1u);
}

// A middle packet overtaken by the next: the gap drops the message; the late packet is stale
// and changes nothing.
TEST_F(UcLoss, ReorderedPacketInsideAMessage) {
  pair.wire.policy = [](int side, uint64_t n, const auto&) {
    return side == kA && n == 1 ? WireAction::delay : WireAction::deliver;
  };
  recv(1, 0);
  send(0, 5000);
  send(1, 3000);
  expect_sent(2);
  const auto got = received();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(le(got[0].byte_len), 3000u);
  EXPECT_TRUE(same(pair.a, 8192, pair.b, 0, 3000));
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_UC_DROPPED), 1u);
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_PSN_ERRORS), 2u); // the gap, then the late one
}

// Whole messages out of order: the later one is delivered, the overtaken one arrives stale
// and is dropped, never delivered out of order.
TEST_F(UcLoss, ReorderedMessages) {
  pair.wire.policy = [](int side, uint64_t n, const auto&) {
    return side == kA && n == 0 ? WireAction::delay : WireAction::deliver;
  };
  recv(1, 0);
  recv(2, 1);
  send(0, 300);
  send(1, 400);
  expect_sent(2);
  const auto got = received();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(le(got[0].wr_id), 1u);
  EXPECT_EQ(le(got[0].byte_len), 400u);
  EXPECT_TRUE(same(pair.a, 8192, pair.b, 0, 400));
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_PSN_ERRORS), 2u);
}

TEST_F(UcLoss, DuplicatedPacketsAreDeliveredOnce) {
  pair.wire.policy = [](int, uint64_t, const auto&) { return WireAction::duplicate; };
  for (uint64_t i = 0; i < 4; ++i)
    recv(10 + i, i);
  send(0, 5000);
  send(1, 100);
  expect_sent(2);
  const auto got = received();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(le(got[0].byte_len), 5000u);
  EXPECT_EQ(le(got[1].byte_len), 100u);
  EXPECT_TRUE(same(pair.a, 0, pair.b, 0, 5000));
  EXPECT_TRUE(same(pair.a, 8192, pair.b, 8192, 100));
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_UC_DROPPED), 0u);
}

TEST_F(UcLoss, CorruptPacketIsAGap) {
  pair.wire.policy = [](int side, uint64_t n, const auto&) {
    return side == kA && n == 3 ? WireAction::corrupt : WireAction::deliver;
  };
  recv(1, 0);
  send(0, 5000);
  send(1, 64);
  expect_sent(2);
  const auto got = received();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(le(got[0].byte_len), 64u);
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_BAD_ICRC), 1u);
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_UC_DROPPED), 1u);
}

// A lost part of a WRITE: what arrived before the gap stays in memory, nothing completes,
// and a WRITE with immediate after it still gets its receive WQE.
TEST_F(UcLoss, LostPacketOfAWriteThenWriteWithImmediate) {
  pair.wire.policy = [](int side, uint64_t n, const auto&) {
    return side == kA && n == 1 ? WireAction::drop : WireAction::deliver;
  };
  fill(pair.a, 0, 3000, 3);
  auto w = send_wqe(ORNIC_WQE_OP_RDMA_WRITE, 20);
  w.rdma.remote_addr = to_le(pair.b.buffer + 65536);
  w.rdma.rkey = to_le(pair.b.key);
  qa.post_send(w, {sge(pair.a.buffer, 3000, pair.a.key)});
  qb.post_recv(21, {});
  auto wi = send_wqe(ORNIC_WQE_OP_RDMA_WRITE_IMM, 22);
  wi.rdma.remote_addr = to_le(pair.b.buffer + 131072);
  wi.rdma.rkey = to_le(pair.b.key);
  qa.post_send(wi, {sge(pair.a.buffer, 2000, pair.a.key)});
  expect_sent(2);
  const auto got = received();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].opcode, ORNIC_CQE_OP_RECV_RDMA_IMM);
  EXPECT_EQ(le(got[0].wr_id), 21u);
  EXPECT_EQ(le(got[0].byte_len), 2000u);
  EXPECT_TRUE(same(pair.a, 0, pair.b, 65536, 1024)); // the FIRST packet landed
  EXPECT_TRUE(same(pair.a, 0, pair.b, 131072, 2000));
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_UC_DROPPED), 1u);
}

TEST_F(UcLoss, RandomLossManyMessages) {
  std::mt19937 rng(4321);
  pair.wire.policy = [&](int, uint64_t, const auto&) {
    const auto roll = rng() % 100;
    if (roll < 6)
      return WireAction::drop;
    if (roll < 8)
      return WireAction::duplicate;
    if (roll < 10)
      return WireAction::delay;
    return WireAction::deliver;
  };
  constexpr uint64_t kMessages = 30; // 2 blocks each: within the 64-block SQ
  for (uint64_t i = 0; i < kMessages; ++i)
    recv(i, i);
  for (uint64_t i = 0; i < kMessages; ++i)
    send(i, 500 + 150 * i);
  expect_sent(kMessages);
  const auto got = received();
  ASSERT_GT(got.size(), 0u);
  ASSERT_LT(got.size(), kMessages); // some were lost
  // Whatever arrived is whole, in order, and each in the next WQE.
  uint64_t last_message = 0;
  for (size_t k = 0; k < got.size(); ++k) {
    EXPECT_EQ(got[k].status, ORNIC_CQE_SUCCESS);
    EXPECT_EQ(le(got[k].wr_id), k);
    const uint64_t length = le(got[k].byte_len);
    ASSERT_EQ((length - 500) % 150, 0u);
    const uint64_t message = (length - 500) / 150;
    if (k > 0) {
      EXPECT_GT(message, last_message);
    }
    last_message = message;
    EXPECT_TRUE(same(pair.a, message * 8192, pair.b, k * 8192, length)) << message;
  }
  EXPECT_EQ(pair.wire.sent[kB], 0u);
  EXPECT_EQ(qb.state(), ORNIC_QPS_RTS);
}

// The port's transmit backlog holds a UC QP back (no window of its own); it resumes on its
// pacing timer once the port has room.
TEST_F(UcLoss, PacedByThePortBacklog) {
  pair.wire.backlog = TransportEngine::kUcBacklogLimit;
  recv(1, 0);
  send(0, 5000);
  pair.pump();
  EXPECT_EQ(pair.wire.sent[kA], 0u);
  EXPECT_FALSE(pair.a.poll().has_value());
  pair.advance(TransportEngine::kUcPaceNs);
  EXPECT_EQ(pair.wire.sent[kA], 0u); // still full
  pair.wire.backlog = TransportEngine::kUcBacklogLimit - 1;
  pair.advance(TransportEngine::kUcPaceNs);
  EXPECT_EQ(pair.wire.sent[kA], 5u);
  expect_sent(1);
  const auto got = received();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(le(got[0].byte_len), 5000u);
}

// SRQ: the WQE a dropped message took from the SRQ stays with the QP and takes the next
// message; the QP going to ERR flushes it on the QP's CQ.
TEST(UcSrq, DroppedMessageKeepsItsSrqWqe) {
  RdmaPair pair;
  ornic_admin_create_srq c{};
  c.hdr.opcode = ORNIC_ADMIN_CREATE_SRQ;
  c.mem = pair.b.h.contiguous_ring(64 * 64);
  const uint64_t ring = le(c.mem.addr);
  c.pd = to_le(pair.b.pd);
  c.log_depth = 6;
  const auto srq_cqe = pair.b.h.execute(DriverHarness::as_sqe(c));
  ASSERT_EQ(srq_cqe.status, ORNIC_ADMIN_STATUS_SUCCESS);
  const uint32_t srqn = le(srq_cqe.result0);
  for (uint32_t i = 0; i < 2; ++i) {
    ornic_recv_wqe w{};
    w.wr_id = to_le(uint64_t{60 + i});
    w.num_blocks = 1;
    w.num_sge = 1;
    w.sge[0] = sge(pair.b.buffer + 8192 * i, 8192, pair.b.key);
    pair.b.h.write(ring + 64 * i, w);
  }
  pair.b.h.doorbell(0, ORNIC_DB_SRQ, ORNIC_DB_VALUE(srqn, 0, 2));
  ornic_admin_create_qp q{};
  q.hdr.opcode = ORNIC_ADMIN_CREATE_QP;
  q.sq_mem = pair.b.h.contiguous_ring(64 * 64);
  q.pd = to_le(pair.b.pd);
  q.send_cqn = q.recv_cqn = to_le(pair.b.cqn);
  q.srqn = to_le(srqn);
  q.qp_type = ORNIC_QPT_UC;
  q.flags = ORNIC_QP_FLAG_USE_SRQ;
  q.sq_log_depth = 6;
  const auto qp_cqe = pair.b.h.execute(DriverHarness::as_sqe(q));
  ASSERT_EQ(qp_cqe.status, ORNIC_ADMIN_STATUS_SUCCESS);
  Qp qb;
  qb.node = &pair.b;
  qb.qpn = le(qp_cqe.result0);
  qb.sq = le(q.sq_mem.addr);
  Qp qa = pair.create_qp(pair.a, ORNIC_QPT_UC);
  pair.connect_uc(qa, qb);
  pair.connect_uc(qb, qa);

  pair.wire.policy = [](int side, uint64_t n, const auto&) {
    return side == kA && n == 1 ? WireAction::drop : WireAction::deliver;
  };
  fill(pair.a, 0, 3000, 9);
  qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, 1), {sge(pair.a.buffer, 3000, pair.a.key)});
  qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, 2), {sge(pair.a.buffer, 2500, pair.a.key)});
  EXPECT_EQ(pair.wait_cqes(pair.a, 2).size(), 2u);
  const auto got = pair.wait_cqes(pair.b, 1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(le(got[0].wr_id), 60u);
  EXPECT_EQ(le(got[0].byte_len), 2500u);
  EXPECT_TRUE(same(pair.a, 0, pair.b, 0, 2500));
  // The next message takes WQE 61 and is cut short; ERR then flushes the WQE it holds.
  pair.wire.policy = [](int side, uint64_t n, const auto&) {
    return side == kA && n == 7 ? WireAction::drop : WireAction::deliver;
  };
  qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, 3), {sge(pair.a.buffer, 3000, pair.a.key)});
  EXPECT_EQ(pair.wait_cqes(pair.a, 1).size(), 1u);
  ornic_qp_attr attr{};
  attr.state = ORNIC_QPS_ERR;
  ASSERT_EQ(pair.b.h.modify_qp(qb.qpn, attr, ORNIC_QP_ATTR_STATE).status,
            ORNIC_ADMIN_STATUS_SUCCESS);
  const auto flushed = pair.wait_cqes(pair.b, 1);
  ASSERT_EQ(flushed.size(), 1u);
  EXPECT_EQ(le(flushed[0].wr_id), 61u);
  EXPECT_EQ(flushed[0].status, ORNIC_CQE_WR_FLUSH_ERR);
}

} // namespace
} // namespace ornic::test
