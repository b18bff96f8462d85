// The send window and ACK policy (roce.rst, "Send window", "ACK"): up to 1024 PSNs in
// flight, AckReq once per quarter window and at the end of a burst, one ACK per receive
// batch at the responder, go-back-N recovering a loss anywhere in a full window, and the
// window shrinking after a timeout and growing back with ACKs.
#include <gtest/gtest.h>

#include "rdma/transport_engine.hpp"
#include "rdma_pair.hpp"

namespace ornic::test {
namespace {

constexpr int kA = 0, kB = 1; // wire sides: frames sent by a / by b
constexpr size_t kBth = 42;   // Ethernet + IPv4 + UDP: the BTH of an IPv4 RoCEv2 frame
constexpr uint32_t kWindow = TransportEngine::kSendWindow;
constexpr uint32_t kMtu = 256; // ORNIC_MTU_256: a window of packets is 256 KiB
constexpr uint32_t kWindowBytes = kWindow * kMtu;

bool ack_request(const LossyWire::Frame& frame) {
  return (static_cast<uint8_t>(frame[kBth + 8]) & 0x80) != 0;
}
uint32_t psn_of(const LossyWire::Frame& frame) {
  return (static_cast<uint32_t>(frame[kBth + 9]) << 16) |
         (static_cast<uint32_t>(frame[kBth + 10]) << 8) | static_cast<uint32_t>(frame[kBth + 11]);
}

class SendWindowTest : public ::testing::Test {
protected:
  void SetUp() override {
    qa = pair.create_qp(pair.a, ORNIC_QPT_RC, ORNIC_DB_PAGE_KERNEL, 10);
    qb = pair.create_qp(pair.b, ORNIC_QPT_RC, ORNIC_DB_PAGE_KERNEL, 10);
    pair.connect(qa, qb, ORNIC_MTU_256);
    pair.connect(qb, qa, ORNIC_MTU_256);
    for (size_t i = 0; i < Node::kBufferBytes; ++i)
      *pair.a.at(i) = std::byte{static_cast<uint8_t>(i * 7 + i / 251)};
  }

  void write(uint64_t wr_id, uint64_t offset, uint32_t length, bool ring = true) {
    auto w = send_wqe(ORNIC_WQE_OP_RDMA_WRITE, wr_id);
    w.rdma.remote_addr = to_le(pair.b.buffer + offset);
    w.rdma.rkey = to_le(pair.b.key);
    qa.post_send(w, {sge(pair.a.buffer + offset, length, pair.a.key)}, ring);
  }

  // Every completion successful, in order from wr_id 1, `count` of them.
  void expect_completions(size_t count) {
    const auto done = pair.wait_cqes(pair.a, count);
    ASSERT_EQ(done.size(), count);
    for (size_t i = 0; i < count; ++i) {
      EXPECT_EQ(done[i].status, ORNIC_CQE_SUCCESS) << i;
      EXPECT_EQ(le(done[i].wr_id), i + 1);
    }
  }
  bool arrived(uint64_t offset, size_t length) {
    return std::memcmp(pair.a.at(offset), pair.b.at(offset), length) == 0;
  }

  RdmaPair pair;
  Qp qa, qb;
};

TEST_F(SendWindowTest, AckReqOncePerQuarterWindow) {
  // One WRITE of a whole window of packets: AckReq on every 256th and on the last.
  std::vector<uint32_t> asked; // packet index (PSN offset) of every AckReq
  uint32_t first_psn = 0, data_frames = 0;
  pair.wire.policy = [&](int side, uint64_t, const LossyWire::Frame& frame) {
    if (side == kA) {
      if (data_frames++ == 0)
        first_psn = psn_of(frame);
      if (ack_request(frame))
        asked.push_back((psn_of(frame) - first_psn) & 0xffffff);
    }
    return WireAction::deliver;
  };
  write(1, 0, kWindowBytes);
  expect_completions(1);
  EXPECT_TRUE(arrived(0, kWindowBytes));
  EXPECT_EQ(data_frames, kWindow);
  const uint32_t q = TransportEngine::kAckRequestInterval;
  EXPECT_EQ(asked, (std::vector<uint32_t>{q - 1, 2 * q - 1, 3 * q - 1, kWindow - 1}));
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_RETRANSMITS), 0u);
}

TEST_F(SendWindowTest, ABurstOfSmallWritesAsksOnceAndIsAcknowledgedPerBatch) {
  // 200 WRITEs of 64 B behind one doorbell: only the last packet asks for an ACK, and
  // the responder answers each batch it receives once, not each message.
  uint32_t asked = 0, acks = 0;
  pair.wire.policy = [&](int side, uint64_t, const LossyWire::Frame& frame) {
    if (side == kA)
      asked += ack_request(frame) ? 1 : 0;
    else
      ++acks;
    return WireAction::deliver;
  };
  constexpr uint32_t kCount = 200;
  for (uint32_t i = 0; i < kCount; ++i)
    write(i + 1, uint64_t{i} * 64, 64, i + 1 == kCount);
  expect_completions(kCount);
  EXPECT_TRUE(arrived(0, kCount * 64));
  EXPECT_EQ(asked, 1u);
  EXPECT_GE(acks, 1u);
  EXPECT_LE(acks, kCount / TransportEngine::kPacketsPerTurn + 2);
}

TEST_F(SendWindowTest, OnlyAWindowLeavesBeforeAnAck) {
  // Four windows of packets queued: a alone (no delivery) sends exactly one window.
  for (uint32_t i = 0; i < 4; ++i)
    write(i + 1, uint64_t{i} * kWindowBytes, kWindowBytes, i == 3);
  pair.a.h.run_loop();
  EXPECT_EQ(pair.wire.sent[kA], kWindow);
  expect_completions(4);
  EXPECT_TRUE(arrived(0, 4 * size_t{kWindowBytes}));
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_TX_RDMA_PACKETS), 4u * kWindow);
}

TEST_F(SendWindowTest, ALostPacketInsideTheWindowIsResentFromTheNak) {
  // Packet 500 of 1024 is lost once: the responder NAKs the gap (PSN sequence error) and
  // the requester goes back to it; no ACK timeout is needed.
  pair.wire.policy = [](int side, uint64_t n, const LossyWire::Frame&) {
    return side == kA && n == 500 ? WireAction::drop : WireAction::deliver;
  };
  write(1, 0, kWindowBytes);
  expect_completions(1);
  EXPECT_TRUE(arrived(0, kWindowBytes));
  EXPECT_GE(pair.a.counter(ORNIC_CNT_NAKS_RECEIVED), 1u);
  EXPECT_GE(pair.a.counter(ORNIC_CNT_RETRANSMITS), 1u);
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_TIMEOUTS), 0u);
  EXPECT_FALSE(pair.a.poll().has_value()); // completed exactly once
}

TEST_F(SendWindowTest, ALostLastPacketOfTheWindowIsResentOnTheTimeout) {
  // Nothing follows the lost packet to show the gap: the ACK timeout resends it.
  pair.wire.policy = [](int side, uint64_t n, const LossyWire::Frame&) {
    return side == kA && n == kWindow - 1 ? WireAction::drop : WireAction::deliver;
  };
  write(1, 0, kWindowBytes);
  expect_completions(1);
  EXPECT_TRUE(arrived(0, kWindowBytes));
  EXPECT_GE(pair.a.counter(ORNIC_CNT_TIMEOUTS), 1u);
}

TEST_F(SendWindowTest, AfterATimeoutOnlyTheRecoveryWindowIsResent) {
  // The responder got everything but its ACKs are lost (a peer too slow to answer in
  // time looks the same): each timeout resends 8 packets, not a window of duplicates.
  bool acks_lost = true;
  pair.wire.policy = [&](int side, uint64_t, const LossyWire::Frame&) {
    return side == kB && acks_lost ? WireAction::drop : WireAction::deliver;
  };
  write(1, 0, kWindowBytes);
  pair.pump();
  ASSERT_EQ(pair.wire.sent[kA], kWindow);
  constexpr int64_t kTimeoutNs = int64_t{4096} << 14; // connect()'s timeout 14
  pair.advance(kTimeoutNs + 1'000'000);
  EXPECT_EQ(pair.wire.sent[kA], kWindow + kRcRecoveryWindow);
  pair.advance(kTimeoutNs + 1'000'000);
  EXPECT_EQ(pair.wire.sent[kA], kWindow + 2 * kRcRecoveryWindow);
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_TIMEOUTS), 2u);
  acks_lost = false;
  expect_completions(1);
  EXPECT_TRUE(arrived(0, kWindowBytes));
  EXPECT_LE(pair.a.counter(ORNIC_CNT_RETRANSMITS), 3u * kRcRecoveryWindow);
}

TEST_F(SendWindowTest, TheWindowDoublesPerAckAfterATimeout) {
  // Packets 100..1023 are lost: the timeout resends from 100, 8 packets first, then twice
  // as many per ACK, so the 924 come back in a few bursts, each resent once.
  uint32_t asked_after = 0;
  pair.wire.policy = [&](int side, uint64_t n, const LossyWire::Frame& frame) {
    if (side != kA)
      return WireAction::deliver;
    if (n >= kWindow && ack_request(frame))
      ++asked_after;
    return n >= 100 && n < kWindow ? WireAction::drop : WireAction::deliver;
  };
  write(1, 0, kWindowBytes);
  expect_completions(1);
  EXPECT_TRUE(arrived(0, kWindowBytes));
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_TIMEOUTS), 1u);
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_RETRANSMITS), kWindow - 100);
  // 8 + 16 + ... + 256 + the rest: a burst per ACK, each ending in AckReq (one resend of
  // all 924 at once would ask only 4 times: per quarter window and at the end).
  EXPECT_GE(asked_after, 7u);
  EXPECT_LE(asked_after, 12u);
}

TEST_F(SendWindowTest, LostAcksAreCoveredByTheNextOne) {
  // Every ACK but the last is lost: a later, coalesced ACK acknowledges everything.
  pair.wire.policy = [](int side, uint64_t n, const LossyWire::Frame&) {
    return side == kB && n < 3 ? WireAction::drop : WireAction::deliver;
  };
  for (uint32_t i = 0; i < 4; ++i)
    write(i + 1, uint64_t{i} * 65536, 65536, i == 3);
  expect_completions(4);
  EXPECT_TRUE(arrived(0, 4 * 65536));
}

} // namespace
} // namespace ornic::test
