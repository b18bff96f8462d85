// Two NICs on a real shm: link (two ShmPorts on one EventLoop, the EventLoop's real clock):
// the transport builds every frame in the peer's ring slot (reserve_tx/commit_tx) with the
// payload gathered straight from guest memory into it, and the receiver parses each frame
// where it lies in its slot. Data is checked byte for byte; a gather that fails part way
// through a message (its MR deregistered meanwhile) sends nothing more and fails the WQE.
#include <gtest/gtest.h>

#include "port/shm_port.hpp"
#include "port_test_support.hpp"
#include "rdma_pair.hpp"

namespace ornic::test {
namespace {

class ShmLink : public ::testing::Test {
protected:
  ShmLink()
      : port_a(std::make_unique<ShmPort>(port_loop, dir.file("a"), dir.file("b"))),
        port_b(std::make_unique<ShmPort>(port_loop, dir.file("b"), dir.file("a"))),
        pair(*port_a, *port_b,
             [this] { return port_loop.run_once(std::chrono::milliseconds(0)); }) {}

  void SetUp() override {
    ASSERT_TRUE(run_until(port_loop, [&] { return port_a->link_up() && port_b->link_up(); }));
  }

  void fill(Node& node, uint64_t offset, size_t length, uint8_t seed) {
    for (size_t i = 0; i < length; ++i)
      *node.at(offset + i) = std::byte{static_cast<uint8_t>(seed + i * 7 + i / 251)};
  }

  TempDir dir;
  EventLoop port_loop;
  std::unique_ptr<ShmPort> port_a, port_b;
  RdmaPair pair;
};

TEST_F(ShmLink, WriteReadAndSendAreBuiltInTheRingAndArriveIntact) {
  auto [qa, qb] = pair.rc_pair(ORNIC_MTU_1024);
  constexpr size_t kWrite = 64 * 1024 + 3; // 65 packets, the last with pad
  fill(pair.a, 0, kWrite, 1);
  auto write = send_wqe(ORNIC_WQE_OP_RDMA_WRITE, 1);
  write.rdma.remote_addr = to_le(pair.b.buffer + 128 * 1024);
  write.rdma.rkey = to_le(pair.b.key);
  qa.post_send(write, {sge(pair.a.buffer, kWrite, pair.a.key)});

  constexpr size_t kRead = 9000; // 9 response packets gathered by b's responder
  fill(pair.b, 256 * 1024, kRead, 2);
  auto read = send_wqe(ORNIC_WQE_OP_RDMA_READ, 2);
  read.rdma.remote_addr = to_le(pair.b.buffer + 256 * 1024);
  read.rdma.rkey = to_le(pair.b.key);
  qa.post_send(read, {sge(pair.a.buffer + 256 * 1024, kRead, pair.a.key)});

  constexpr size_t kSend = 3001; // two SGEs on each side
  fill(pair.a, 512 * 1024, kSend, 3);
  qb.post_recv(7, {sge(pair.b.buffer + 512 * 1024, 1000, pair.b.key),
                   sge(pair.b.buffer + 600 * 1024, 4000, pair.b.key)});
  qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, 3),
               {sge(pair.a.buffer + 512 * 1024, 2000, pair.a.key),
                sge(pair.a.buffer + 512 * 1024 + 2000, kSend - 2000, pair.a.key)});

  const auto done = pair.wait_cqes(pair.a, 3, 1'000'000, 5000);
  ASSERT_EQ(done.size(), 3u);
  for (const auto& cqe : done)
    EXPECT_EQ(cqe.status, ORNIC_CQE_SUCCESS) << le(cqe.wr_id);
  const auto received = pair.wait_cqes(pair.b, 1, 1'000'000, 5000);
  ASSERT_EQ(received.size(), 1u);
  EXPECT_EQ(received[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(le(received[0].byte_len), kSend);

  EXPECT_EQ(std::memcmp(pair.a.at(0), pair.b.at(128 * 1024), kWrite), 0);
  EXPECT_EQ(std::memcmp(pair.b.at(256 * 1024), pair.a.at(256 * 1024), kRead), 0);
  EXPECT_EQ(std::memcmp(pair.a.at(512 * 1024), pair.b.at(512 * 1024), 1000), 0);
  EXPECT_EQ(std::memcmp(pair.a.at(512 * 1024 + 1000), pair.b.at(600 * 1024), kSend - 1000), 0);

  // Every frame either side sent went out of the ring slot it was built in (or, had the
  // ring been full, through the port's queue); none was bad.
  for (const ShmPort* port : {port_a.get(), port_b.get()}) {
    EXPECT_GT(port->counters().tx_in_place, 0u);
    EXPECT_EQ(port->counters().tx_in_place + port->counters().tx_backpressured,
              port->counters().tx_frames);
  }
  EXPECT_GE(port_a->counters().tx_frames, 65u + 1u + 3u);
  EXPECT_GE(port_b->counters().tx_frames, 9u);
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_TX_RDMA_PACKETS), port_a->counters().tx_frames);
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_RDMA_PACKETS), port_b->counters().rx_frames);
  for (Node* node : {&pair.a, &pair.b}) {
    EXPECT_EQ(node->counter(ORNIC_CNT_RX_BAD_ICRC), 0u);
    EXPECT_EQ(node->counter(ORNIC_CNT_RX_BAD_HEADER), 0u);
    EXPECT_EQ(node->counter(ORNIC_CNT_RETRANSMITS), 0u);
  }
}

// The peer does not consume while the sender runs turn after turn: once the ring is full
// the frames are built in the port's scratch buffer and wait in its queue (the fallback
// every port without in-place TX takes), in order, and nothing is lost.
TEST_F(ShmLink, AFullRingFallsBackToThePortsQueueInOrder) {
  Qp qa = pair.create_qp(pair.a), qb = pair.create_qp(pair.b);
  // Timeout 20 (4 s): a loaded host must not make this a test of retransmission.
  pair.connect(qa, qb, ORNIC_MTU_1024, 0, 7, 7, /*timeout=*/20);
  pair.connect(qb, qa, ORNIC_MTU_1024);
  constexpr size_t kLength = 640 * 1024; // 640 packets, more than the ring's 512 slots
  fill(pair.a, 0, kLength, 5);
  auto write = send_wqe(ORNIC_WQE_OP_RDMA_WRITE, 1);
  write.rdma.remote_addr = to_le(pair.b.buffer + 256 * 1024);
  write.rdma.rkey = to_le(pair.b.key);
  qa.post_send(write, {sge(pair.a.buffer, kLength, pair.a.key)});
  for (int turn = 0; turn < 40 && pair.a.counter(ORNIC_CNT_TX_RDMA_PACKETS) < 640; ++turn)
    pair.a.h.loop.run_once(std::chrono::milliseconds(0)); // b's port never runs meanwhile
  ASSERT_EQ(pair.a.counter(ORNIC_CNT_TX_RDMA_PACKETS), 640u);
  EXPECT_EQ(port_a->counters().tx_in_place, shm::kSlotCount);
  EXPECT_EQ(port_a->tx_backlog(), 640u - shm::kSlotCount);
  const auto done = pair.wait_cqes(pair.a, 1, 1'000'000, 5000);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(std::memcmp(pair.a.at(0), pair.b.at(256 * 1024), kLength), 0);
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_RETRANSMITS), 0u)
      << "timeouts " << pair.a.counter(ORNIC_CNT_TIMEOUTS) << ", NAKs "
      << pair.a.counter(ORNIC_CNT_NAKS_RECEIVED) << ", b's PSN errors "
      << pair.b.counter(ORNIC_CNT_RX_BAD_HEADER);
  EXPECT_EQ(port_a->counters().tx_backpressured, 640u - shm::kSlotCount);
}

// The MR of a long WRITE goes away after its first turn of packets: the next gather into
// a reserved slot fails, that slot is never published, and the WQE completes in error.
TEST_F(ShmLink, AGatherThatFailsInTheSlotPublishesNothingAndFailsTheWqe) {
  auto [qa, qb] = pair.rc_pair(ORNIC_MTU_1024);
  const uint64_t source = pair.a.buffer + 512 * 1024;
  const uint32_t source_key = pair.a.reg_mr(source, 256 * 1024, ORNIC_ACCESS_LOCAL_WRITE);
  auto write = send_wqe(ORNIC_WQE_OP_RDMA_WRITE, 1);
  write.rdma.remote_addr = to_le(pair.b.buffer);
  write.rdma.rkey = to_le(pair.b.key);
  qa.post_send(write, {sge(source, 256 * 1024, source_key)});
  // One turn of a's loop: the doorbell, then at most kPacketsPerTurn packets.
  for (int i = 0; i < 3 && pair.a.counter(ORNIC_CNT_TX_RDMA_PACKETS) == 0; ++i)
    pair.a.h.loop.run_once(std::chrono::milliseconds(0));
  ASSERT_GT(pair.a.counter(ORNIC_CNT_TX_RDMA_PACKETS), 0u);
  // The admin command runs a's loop too: more turns may go out before it takes effect.
  ASSERT_EQ(pair.a.h.execute(DriverHarness::simple(ORNIC_ADMIN_DEREG_MR, source_key)).status,
            ORNIC_ADMIN_STATUS_SUCCESS);
  const uint64_t sent = pair.a.counter(ORNIC_CNT_TX_RDMA_PACKETS);
  ASSERT_LT(sent, 256u);
  const auto done = pair.wait_cqes(pair.a, 1, 1'000'000, 5000);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].status, ORNIC_CQE_LOC_PROT_ERR);
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_TX_RDMA_PACKETS), sent);
  EXPECT_EQ(port_a->counters().tx_frames, sent);
  EXPECT_EQ(port_a->counters().tx_in_place, sent);
  EXPECT_EQ(port_a->counters().tx_dropped_runt + port_a->counters().tx_dropped_error, 0u);
}

} // namespace
} // namespace ornic::test
