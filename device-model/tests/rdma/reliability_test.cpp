// Loss, duplication, reordering and corruption on the wire; RNR; retry exhaustion.
#include <random>

#include <gtest/gtest.h>

#include "rdma_pair.hpp"

namespace ornic::test {
namespace {

constexpr int kA = 0, kB = 1; // wire sides: frames sent by a / by b

void fill(Node& node, uint64_t offset, size_t length, uint8_t seed) {
  for (size_t i = 0; i < length; ++i)
    *node.at(offset + i) = std::byte{static_cast<uint8_t>(seed + i * 13)};
}

bool same(Node& x, uint64_t xo, Node& y, uint64_t yo, size_t length) {
  return std::memcmp(x.at(xo), y.at(yo), length) == 0;
}

class Reliability : public ::testing::Test {
protected:
  // A 5-packet SEND (MTU 1024) from a to b; checks both completions and the data.
  void send_and_check(size_t length = 5000) {
    fill(pair.a, 0, length, 1);
    qb.post_recv(1, {sge(pair.b.buffer + 65536, 8192, pair.b.key)});
    qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, 2), {sge(pair.a.buffer, length, pair.a.key)});
    const auto sent = pair.wait_cqes(pair.a, 1);
    ASSERT_EQ(sent.size(), 1u);
    EXPECT_EQ(sent[0].status, ORNIC_CQE_SUCCESS);
    const auto received = pair.wait_cqes(pair.b, 1);
    ASSERT_EQ(received.size(), 1u);
    EXPECT_EQ(received[0].status, ORNIC_CQE_SUCCESS);
    EXPECT_EQ(le(received[0].byte_len), length);
    EXPECT_TRUE(same(pair.a, 0, pair.b, 65536, length));
    EXPECT_FALSE(pair.b.poll().has_value()); // delivered exactly once
  }

  void SetUp() override { std::tie(qa, qb) = pair.rc_pair(ORNIC_MTU_1024); }

  RdmaPair pair;
  Qp qa, qb;
};

TEST_F(Reliability, LostMiddlePacketIsRecoveredByGoBackN) {
  pair.wire.policy = [](int side, uint64_t n, const auto&) {
    return side == kA && n == 1 ? WireAction::drop : WireAction::deliver;
  };
  send_and_check();
  EXPECT_GE(pair.b.counter(ORNIC_CNT_RX_PSN_ERRORS), 1u);
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_NAKS_SENT), 1u); // once per gap
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_NAKS_RECEIVED), 1u);
  EXPECT_GE(pair.a.counter(ORNIC_CNT_RETRANSMITS), 4u);
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_TIMEOUTS), 0u);
}

TEST_F(Reliability, LostLastPacketIsRecoveredByTimeout) {
  pair.wire.policy = [](int side, uint64_t n, const auto&) {
    return side == kA && n == 4 ? WireAction::drop : WireAction::deliver;
  };
  send_and_check();
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_TIMEOUTS), 1u);
  EXPECT_GE(pair.a.counter(ORNIC_CNT_RETRANSMITS), 1u);
}

TEST_F(Reliability, LostAckMeansDuplicatesThatAreReacknowledged) {
  pair.wire.policy = [](int side, uint64_t n, const auto&) {
    return side == kB && n == 0 ? WireAction::drop : WireAction::deliver;
  };
  send_and_check();
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_TIMEOUTS), 1u);
}

TEST_F(Reliability, DuplicatedFramesAreHarmless) {
  pair.wire.policy = [](int, uint64_t, const auto&) { return WireAction::duplicate; };
  send_and_check();
}

TEST_F(Reliability, ReorderedFramesAreRecovered) {
  pair.wire.policy = [](int side, uint64_t n, const auto&) {
    return side == kA && n == 1 ? WireAction::delay : WireAction::deliver;
  };
  send_and_check();
}

TEST_F(Reliability, CorruptFrameIsDroppedCountedAndResent) {
  pair.wire.policy = [](int side, uint64_t n, const auto&) {
    return side == kA && n == 2 ? WireAction::corrupt : WireAction::deliver;
  };
  send_and_check();
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_BAD_ICRC), 1u);
}

TEST_F(Reliability, RandomLossManyMessagesInOrder) {
  std::mt19937 rng(1234);
  pair.wire.policy = [&](int, uint64_t, const auto&) {
    const auto roll = rng() % 100;
    if (roll < 8)
      return WireAction::drop;
    if (roll < 10)
      return WireAction::duplicate;
    if (roll < 12)
      return WireAction::delay;
    return WireAction::deliver;
  };
  constexpr int kMessages = 24;
  constexpr size_t kLength = 2500;
  fill(pair.a, 0, kLength * kMessages, 7);
  for (int i = 0; i < kMessages; ++i)
    qb.post_recv(i, {sge(pair.b.buffer + 262144 + i * 4096, 4096, pair.b.key)});
  for (int i = 0; i < kMessages; ++i)
    qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, i),
                 {sge(pair.a.buffer + i * kLength, kLength, pair.a.key)});
  const auto sent = pair.wait_cqes(pair.a, kMessages, 10'000'000, 2000);
  ASSERT_EQ(sent.size(), static_cast<size_t>(kMessages));
  const auto received = pair.wait_cqes(pair.b, kMessages);
  ASSERT_EQ(received.size(), static_cast<size_t>(kMessages));
  for (int i = 0; i < kMessages; ++i) {
    EXPECT_EQ(sent[i].status, ORNIC_CQE_SUCCESS);
    EXPECT_EQ(le(sent[i].wr_id), static_cast<uint64_t>(i));
    EXPECT_EQ(le(received[i].wr_id), static_cast<uint64_t>(i));
    EXPECT_TRUE(same(pair.a, i * kLength, pair.b, 262144 + i * 4096, kLength)) << i;
  }
}

TEST_F(Reliability, LostReadResponseIsReadAgain) {
  fill(pair.b, 8192, 3000, 4);
  pair.wire.policy = [](int side, uint64_t n, const auto&) {
    return side == kB && n == 1 ? WireAction::drop : WireAction::deliver;
  };
  auto w = send_wqe(ORNIC_WQE_OP_RDMA_READ, 3);
  w.rdma.remote_addr = to_le(pair.b.buffer + 8192);
  w.rdma.rkey = to_le(pair.b.key);
  qa.post_send(w, {sge(pair.a.buffer, 3000, pair.a.key)});
  const auto done = pair.wait_cqes(pair.a, 1);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_TRUE(same(pair.b, 8192, pair.a, 0, 3000));
  // The response after the gap gives the loss away: no timeout needed.
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_TIMEOUTS), 0u);
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_RETRANSMITS), 1u); // the READ request, once
}

TEST_F(Reliability, LostLastReadResponseIsRecoveredByTimeout) {
  fill(pair.b, 8192, 3000, 4);
  pair.wire.policy = [](int side, uint64_t n, const auto&) {
    return side == kB && n == 2 ? WireAction::drop : WireAction::deliver;
  };
  auto w = send_wqe(ORNIC_WQE_OP_RDMA_READ, 3);
  w.rdma.remote_addr = to_le(pair.b.buffer + 8192);
  w.rdma.rkey = to_le(pair.b.key);
  qa.post_send(w, {sge(pair.a.buffer, 3000, pair.a.key)});
  const auto done = pair.wait_cqes(pair.a, 1);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_TRUE(same(pair.b, 8192, pair.a, 0, 3000));
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_TIMEOUTS), 1u);
}

TEST_F(Reliability, RandomLossOnReads) {
  std::mt19937 rng(99);
  pair.wire.policy = [&](int, uint64_t, const auto&) {
    return rng() % 100 < 10 ? WireAction::drop : WireAction::deliver;
  };
  fill(pair.b, 0, 8 * 5000, 3);
  for (int i = 0; i < 8; ++i) {
    auto w = send_wqe(ORNIC_WQE_OP_RDMA_READ, i);
    w.rdma.remote_addr = to_le(pair.b.buffer + i * 5000);
    w.rdma.rkey = to_le(pair.b.key);
    qa.post_send(w, {sge(pair.a.buffer + 131072 + i * 5000, 5000, pair.a.key)});
  }
  const auto done = pair.wait_cqes(pair.a, 8, 10'000'000, 2000);
  ASSERT_EQ(done.size(), 8u);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(done[i].status, ORNIC_CQE_SUCCESS);
    EXPECT_EQ(le(done[i].wr_id), static_cast<uint64_t>(i));
  }
  EXPECT_TRUE(same(pair.b, 0, pair.a, 131072, 8 * 5000));
}

// What an NVMe-oF target does to its host: several multi-packet READs outstanding at
// once (up to max_rd_atomic), each scattered over many 4 KiB SGEs, under loss,
// duplication and reordering in both directions.
TEST_F(Reliability, RandomFaultsOnOutstandingScatteredReads) {
  std::mt19937 rng(4242);
  pair.wire.policy = [&](int, uint64_t, const auto&) {
    const auto roll = rng() % 1000;
    if (roll < 20)
      return WireAction::drop;
    if (roll < 30)
      return WireAction::duplicate;
    if (roll < 50)
      return WireAction::delay;
    return WireAction::deliver;
  };
  constexpr int kReads = 12;
  constexpr uint32_t kSges = 8, kSgeBytes = 4096, kReadBytes = kSges * kSgeBytes;
  fill(pair.b, 0, kReads * kReadBytes, 9);
  for (int i = 0; i < kReads; ++i) {
    auto w = send_wqe(ORNIC_WQE_OP_RDMA_READ, i);
    w.rdma.remote_addr = to_le(pair.b.buffer + i * kReadBytes);
    w.rdma.rkey = to_le(pair.b.key);
    std::vector<ornic_sge> sges;
    // A READ resumed in the middle must find the right SGE and offset.
    for (uint32_t j = 0; j < kSges; ++j)
      sges.push_back(
          sge(pair.a.buffer + 524288 + i * kReadBytes + j * kSgeBytes, kSgeBytes, pair.a.key));
    qa.post_send(w, sges);
  }
  const auto done = pair.wait_cqes(pair.a, kReads, 10'000'000, 4000);
  ASSERT_EQ(done.size(), static_cast<size_t>(kReads));
  for (int i = 0; i < kReads; ++i) {
    EXPECT_EQ(done[i].status, ORNIC_CQE_SUCCESS) << i;
    EXPECT_EQ(le(done[i].wr_id), static_cast<uint64_t>(i));
  }
  EXPECT_TRUE(same(pair.b, 0, pair.a, 524288, kReads * kReadBytes));
}

TEST_F(Reliability, LostAtomicAckIsAnsweredFromTheSavedResult) {
  const uint64_t initial = 10;
  std::memcpy(pair.b.at(0), &initial, 8);
  pair.wire.policy = [](int side, uint64_t n, const auto&) {
    return side == kB && n == 0 ? WireAction::drop : WireAction::deliver;
  };
  auto w = send_wqe(ORNIC_WQE_OP_ATOMIC_FETCH_ADD, 3);
  w.atomic.remote_addr = to_le(pair.b.buffer);
  w.atomic.rkey = to_le(pair.b.key);
  w.atomic.compare_add = to_le<uint64_t>(1);
  qa.post_send(w, {sge(pair.a.buffer + 64, 8, pair.a.key)});
  const auto done = pair.wait_cqes(pair.a, 1);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].status, ORNIC_CQE_SUCCESS);
  uint64_t original = 0, now = 0;
  std::memcpy(&original, pair.a.at(64), 8);
  std::memcpy(&now, pair.b.at(0), 8);
  EXPECT_EQ(original, 10u);
  EXPECT_EQ(now, 11u); // executed once
}

TEST_F(Reliability, RnrNakThenSuccessOnceTheReceiveIsPosted) {
  fill(pair.a, 0, 100, 2);
  qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, 5), {sge(pair.a.buffer, 100, pair.a.key)});
  pair.pump();
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RNR_NAKS), 1u);
  pair.advance(1'000'000); // past min_rnr_timer (10 us): retried, NAKed again
  EXPECT_GE(pair.b.counter(ORNIC_CNT_RNR_NAKS), 2u);
  qb.post_recv(9, {sge(pair.b.buffer, 4096, pair.b.key)});
  const auto sent = pair.wait_cqes(pair.a, 1, 1'000'000);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].status, ORNIC_CQE_SUCCESS);
  const auto received = pair.wait_cqes(pair.b, 1);
  ASSERT_EQ(received.size(), 1u);
  EXPECT_TRUE(same(pair.a, 0, pair.b, 0, 100));
}

TEST(ReliabilityErrors, PeerGoneEndsInRetryExceededAndErr) {
  RdmaPair pair;
  Qp qa = pair.create_qp(pair.a), qb = pair.create_qp(pair.b);
  pair.connect(qa, qb, ORNIC_MTU_1024, ORNIC_ACCESS_REMOTE_WRITE, /*retry_cnt=*/3);
  pair.connect(qb, qa);
  pair.wire.up = false;
  auto w = send_wqe(ORNIC_WQE_OP_RDMA_WRITE, 1);
  w.rdma.remote_addr = to_le(pair.b.buffer);
  w.rdma.rkey = to_le(pair.b.key);
  qa.post_send(w, {sge(pair.a.buffer, 64, pair.a.key)});
  qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, 2), {});
  const auto done = pair.wait_cqes(pair.a, 2, 50'000'000);
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[0].status, ORNIC_CQE_RETRY_EXC_ERR);
  EXPECT_EQ(done[1].status, ORNIC_CQE_WR_FLUSH_ERR);
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_TIMEOUTS), 4u); // 3 retries, then give up
  EXPECT_EQ(qa.state(), ORNIC_QPS_ERR);
}

TEST(ReliabilityErrors, RnrRetriesExhausted) {
  RdmaPair pair;
  Qp qa = pair.create_qp(pair.a), qb = pair.create_qp(pair.b);
  pair.connect(qa, qb, ORNIC_MTU_1024, 0, 7, /*rnr_retry=*/2);
  pair.connect(qb, qa);
  qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, 1), {});
  const auto done = pair.wait_cqes(pair.a, 1, 1'000'000);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].status, ORNIC_CQE_RNR_RETRY_EXC_ERR);
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RNR_NAKS), 3u);
  EXPECT_EQ(qa.state(), ORNIC_QPS_ERR);
  EXPECT_EQ(qb.state(), ORNIC_QPS_RTS); // the responder is fine
}

} // namespace
} // namespace ornic::test
