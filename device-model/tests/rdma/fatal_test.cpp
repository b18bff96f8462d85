// registers.rst, FATAL: a device in FATAL stops all processing. Nothing it still had going
// (RoCE and Ethernet receive, transport timers, transmits scheduled before FATAL, READ
// responses waiting in the ring, Ethernet TX) moves data into or out of guest memory.
#include <cstring>

#include <gtest/gtest.h>

#include "rdma_pair.hpp"

namespace ornic::test {
namespace {

constexpr int kA = 0, kB = 1;

class Fatal : public ::testing::Test {
protected:
  void SetUp() override {
    std::tie(qa, qb) = pair.rc_pair(ORNIC_MTU_1024);
    pair.wire.policy = [this](int side, uint64_t, const LossyWire::Frame&) {
      ++sent[side];
      return block[side] ? WireAction::drop : WireAction::deliver;
    };
  }

  // A tail beyond the admin ring: the device cannot trust its driver any more.
  static void make_fatal(Node& node) {
    node.h.write_reg(ORNIC_REG_AQ_SQ_TAIL, 1000);
    ASSERT_NE(node.h.reg(ORNIC_REG_DEV_STATUS) & ORNIC_DEV_STATUS_FATAL, 0u);
  }

  void post_write(uint64_t wr_id, size_t length) {
    for (size_t i = 0; i < length; ++i)
      *pair.a.at(i) = std::byte{static_cast<uint8_t>(wr_id + i)};
    auto w = send_wqe(ORNIC_WQE_OP_RDMA_WRITE, wr_id);
    w.rdma.remote_addr = to_le(pair.b.buffer + 65536);
    w.rdma.rkey = to_le(pair.b.key);
    qa.post_send(w, {sge(pair.a.buffer, static_cast<uint32_t>(length), pair.a.key)});
  }

  // An Ethernet ring of `node` on its CQ; returns the ring id.
  uint32_t eth_ring(Node& node, uint8_t opcode, uint64_t& ring) {
    ornic_admin_create_eth_ring c{};
    c.hdr.opcode = opcode;
    c.mem = node.h.contiguous_ring(16 * ORNIC_ETH_DESC_SIZE);
    c.log_depth = 4;
    c.cqn = to_le(node.cqn);
    ring = le(c.mem.addr);
    const auto cqe = node.h.execute(DriverHarness::as_sqe(c));
    EXPECT_EQ(cqe.status, ORNIC_ADMIN_STATUS_SUCCESS);
    return le(cqe.result0);
  }

  RdmaPair pair;
  Qp qa, qb;
  uint64_t sent[2] = {0, 0};
  bool block[2] = {false, false};
};

TEST_F(Fatal, RoceRequestsAreNotExecutedOrAnswered) {
  std::vector<std::byte> before(pair.b.at(65536), pair.b.at(65536) + 4096);
  make_fatal(pair.b);
  const uint64_t b_sent = sent[kB];
  post_write(7, 4096);
  pair.wait_cqes(pair.a, 1, 10'000'000, 5);
  EXPECT_EQ(std::memcmp(before.data(), pair.b.at(65536), 4096), 0) << "placed after FATAL";
  EXPECT_EQ(sent[kB], b_sent) << "b answered after FATAL";
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_RDMA_PACKETS), 0u);
}

TEST_F(Fatal, EthernetFramesAreNotReceived) {
  uint64_t ring = 0;
  const uint32_t rx = eth_ring(pair.b, ORNIC_ADMIN_ETH_CREATE_RX_RING, ring);
  const uint64_t buffer = pair.b.h.alloc(2048, 64);
  for (uint32_t i = 0; i < 2; ++i) {
    ornic_eth_rx_desc desc{};
    desc.addr = to_le(buffer + i * 1024);
    desc.length = to_le<uint16_t>(1024);
    pair.b.h.write(ring + uint64_t{i} * ORNIC_ETH_DESC_SIZE, desc);
  }
  pair.b.h.doorbell(0, ORNIC_DB_ETH_RX, ORNIC_DB_VALUE(rx, 0, 2));
  pair.pump();
  std::vector<std::byte> frame(100, std::byte{0x5c});
  std::copy(pair.b.mac.begin(), pair.b.mac.end(), reinterpret_cast<uint8_t*>(frame.data()));
  frame[12] = std::byte{0x88}; // a local experimental EtherType, not IP
  frame[13] = std::byte{0xb5};
  pair.wire.end(kA).send(frame);
  pair.pump();
  ASSERT_EQ(pair.b.counter(ORNIC_CNT_ETH_RX_FRAMES), 1u); // the device works before FATAL
  ASSERT_EQ(std::memcmp(pair.b.h.memory.at(buffer), frame.data(), frame.size()), 0);

  make_fatal(pair.b);
  frame[20] = std::byte{0x77};
  pair.wire.end(kA).send(frame);
  pair.pump();
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_ETH_RX_FRAMES), 1u);
  EXPECT_EQ(*pair.b.h.memory.at(buffer + 1024 + 20), std::byte{0}) << "received after FATAL";
}

TEST_F(Fatal, TransportTimersRetransmitNothing) {
  block[kA] = true; // a's WRITE is lost: a waits for its ACK
  post_write(8, 2048);
  pair.pump();
  ASSERT_GT(sent[kA], 0u);
  make_fatal(pair.a);
  const uint64_t a_sent = sent[kA];
  for (int i = 0; i < 50; ++i)
    pair.advance(100'000'000); // far beyond timeout 14 x retry_cnt 7
  EXPECT_EQ(sent[kA], a_sent) << "retransmitted after FATAL";
  EXPECT_FALSE(pair.a.poll().has_value()) << "a CQE written after FATAL";
}

TEST_F(Fatal, TransmitsScheduledBeforeFatalDoNotGoOut) {
  post_write(9, 8192); // the doorbell schedules the requester for the next turn
  make_fatal(pair.a);
  pair.pump();
  EXPECT_EQ(sent[kA], 0u);
}

TEST_F(Fatal, DoorbellsAfterFatalAreIgnored) {
  make_fatal(pair.a);
  post_write(10, 1024);
  pair.pump();
  EXPECT_EQ(sent[kA], 0u);
}

TEST_F(Fatal, ReadResponsesStillWaitingAreNotSent) {
  // A READ of 256 packets: b answers over several turns; FATAL comes in the middle.
  std::tie(qa, qb) = std::pair{pair.create_qp(pair.a), pair.create_qp(pair.b)};
  pair.connect(qa, qb, ORNIC_MTU_256);
  pair.connect(qb, qa, ORNIC_MTU_256);
  auto w = send_wqe(ORNIC_WQE_OP_RDMA_READ, 11);
  w.rdma.remote_addr = to_le(pair.b.buffer);
  w.rdma.rkey = to_le(pair.b.key);
  block[kB] = true; // responses counted, not delivered
  qa.post_send(w, {sge(pair.a.buffer, 256 * 256, pair.a.key)});
  pair.a.h.loop.run_once(std::chrono::milliseconds(0)); // a sends the request
  pair.wire.deliver();                                  // b takes it
  pair.b.h.loop.run_once(std::chrono::milliseconds(0)); // b answers a first part
  const uint64_t answered = sent[kB];
  EXPECT_LT(answered, 256u);
  make_fatal(pair.b);
  pair.pump();
  EXPECT_EQ(sent[kB], answered) << "responses read from guest memory after FATAL";
}

TEST_F(Fatal, EthernetTransmitScheduledBeforeFatalDoesNotGoOut) {
  uint64_t ring = 0;
  const uint32_t tx = eth_ring(pair.b, ORNIC_ADMIN_ETH_CREATE_TX_RING, ring);
  const uint64_t buffer = pair.b.h.alloc(128, 64);
  ornic_eth_tx_desc desc{};
  desc.addr = to_le(buffer);
  desc.length = to_le<uint16_t>(60);
  pair.b.h.write(ring, desc);
  pair.b.h.doorbell(0, ORNIC_DB_ETH_TX, ORNIC_DB_VALUE(tx, 0, 1));
  make_fatal(pair.b);
  pair.pump();
  EXPECT_EQ(sent[kB], 0u);
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_ETH_TX_FRAMES), 0u);
}

} // namespace
} // namespace ornic::test
