// Doorbell records and suppression end to end (doorbells.rst, "Doorbell records"): a busy
// QP posts thousands of WQEs that all complete with their data, ringing the MMIO doorbell
// only while the device has set kick; receives never ring; ERR still flushes everything.
#include <gtest/gtest.h>

#include "rdma_pair.hpp"

namespace ornic::test {
namespace {

class DoorbellRecords : public ::testing::Test {
protected:
  DoorbellRecords() {
    pair.a.h.qp_flags = ORNIC_QP_FLAG_DB_RECORD;
    pair.b.h.qp_flags = ORNIC_QP_FLAG_DB_RECORD;
  }

  static void fill(Node& node, uint64_t offset, size_t length, uint32_t seed) {
    for (size_t i = 0; i < length; ++i)
      *node.at(offset + i) = std::byte{static_cast<uint8_t>(seed * 13 + i)};
  }

  RdmaPair pair;
};

TEST_F(DoorbellRecords, BusySqRingsFarFewerDoorbellsThanWqes) {
  auto [qa, qb] = pair.rc_pair(ORNIC_MTU_1024);
  constexpr uint32_t kWrites = 3000, kBytes = 96, kBatch = 8;
  const uint64_t db_before = pair.a.counter(ORNIC_CNT_DB_WQ_WRITES);
  uint32_t posted = 0, completed = 0;
  while (completed < kWrites) {
    // A batch while the device is busy (the first post's doorbell scheduled it but it has
    // not run yet): only the first post rings, the device finds the rest in the record.
    // (One event between posts would let it finish each WQE and go idle: every post
    // would ring, correctly.)
    for (uint32_t i = 0; i < kBatch && posted < kWrites && posted - completed < 28; ++i) {
      const uint64_t offset = uint64_t{posted % 4096} * kBytes;
      fill(pair.a, offset, kBytes, posted);
      auto w = send_wqe(ORNIC_WQE_OP_RDMA_WRITE, posted);
      w.rdma.remote_addr = to_le(pair.b.buffer + 512 * 1024 + offset);
      w.rdma.rkey = to_le(pair.b.key);
      qa.post_send(w, {sge(pair.a.buffer + offset, kBytes, pair.a.key)});
      ++posted;
    }
    pair.pump();
    while (const auto cqe = pair.a.poll()) {
      ASSERT_EQ(cqe->status, ORNIC_CQE_SUCCESS);
      ASSERT_EQ(le(cqe->wr_id), completed);
      const uint64_t offset = uint64_t{completed % 4096} * kBytes;
      ASSERT_EQ(std::memcmp(pair.a.at(offset), pair.b.at(512 * 1024 + offset), kBytes), 0);
      ++completed;
    }
    ASSERT_LE(completed, posted);
    if (posted == completed && posted < kWrites)
      continue;
    ASSERT_TRUE(posted != completed || posted == kWrites) << "stalled at " << completed;
  }
  const uint64_t mmio = pair.a.counter(ORNIC_CNT_DB_WQ_WRITES) - db_before;
  EXPECT_EQ(mmio, qa.doorbells_rung);
  EXPECT_EQ(qa.doorbells_rung + qa.doorbells_saved, kWrites);
  EXPECT_LT(mmio * 4, uint64_t{kWrites}) << mmio << " MMIO doorbells for " << kWrites << " WQEs";
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_DB_RECORD_ERRORS), 0u);
  RecordProperty("mmio_doorbells", static_cast<int>(mmio));
}

TEST_F(DoorbellRecords, WqesPostedWhileTheDeviceIsBusyAreNeverLeftBehind) {
  auto [qa, qb] = pair.rc_pair(ORNIC_MTU_1024);
  // One doorbell starts the SQ; everything posted until the device runs dry is found
  // through the record, then kick is set again and the next post rings.
  for (uint32_t i = 0; i < 20; ++i) {
    auto w = send_wqe(ORNIC_WQE_OP_RDMA_WRITE, i);
    w.rdma.remote_addr = to_le(pair.b.buffer + uint64_t{i} * 64);
    w.rdma.rkey = to_le(pair.b.key);
    qa.post_send(w, {sge(pair.a.buffer, 64, pair.a.key)});
  }
  EXPECT_EQ(qa.doorbells_rung, 1u);
  const auto done = pair.wait_cqes(pair.a, 20);
  ASSERT_EQ(done.size(), 20u);
  for (uint32_t i = 0; i < 20; ++i)
    EXPECT_EQ(le(done[i].wr_id), i);
  const auto record = pair.a.h.read<ornic_db_record>(qa.sq + Qp::kDepth * ORNIC_WQE_BLOCK_SIZE);
  EXPECT_EQ(le(record.kick), ORNIC_DB_RECORD_KICK); // idle again
  auto w = send_wqe(ORNIC_WQE_OP_RDMA_WRITE, 20);
  w.rdma.remote_addr = to_le(pair.b.buffer);
  w.rdma.rkey = to_le(pair.b.key);
  qa.post_send(w, {sge(pair.a.buffer, 64, pair.a.key)});
  EXPECT_EQ(qa.doorbells_rung, 2u);
  ASSERT_EQ(pair.wait_cqes(pair.a, 1).size(), 1u);
}

TEST_F(DoorbellRecords, ReceivesNeverRingAndSendsLand) {
  auto [qa, qb] = pair.rc_pair(ORNIC_MTU_1024);
  constexpr uint32_t kMessages = 500, kBytes = 300;
  uint32_t received = 0, sent = 0;
  for (uint32_t round = 0; round < kMessages / 10; ++round) {
    for (uint32_t i = 0; i < 10; ++i) {
      const uint32_t n = round * 10 + i;
      qb.post_recv(n, {sge(pair.b.buffer + uint64_t{n % 64} * 512, 512, pair.b.key)});
      fill(pair.a, uint64_t{n % 64} * 512, kBytes, n);
      qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, n),
                   {sge(pair.a.buffer + uint64_t{n % 64} * 512, kBytes, pair.a.key)});
    }
    const auto cqes_b = pair.wait_cqes(pair.b, 10);
    ASSERT_EQ(cqes_b.size(), 10u);
    for (const auto& cqe : cqes_b) {
      ASSERT_EQ(cqe.status, ORNIC_CQE_SUCCESS);
      ASSERT_EQ(le(cqe.wr_id), received);
      ASSERT_EQ(le(cqe.byte_len), kBytes);
      const uint64_t at = uint64_t{received % 64} * 512;
      ASSERT_EQ(std::memcmp(pair.a.at(at), pair.b.at(at), kBytes), 0);
      ++received;
    }
    sent += static_cast<uint32_t>(pair.wait_cqes(pair.a, 10).size());
  }
  EXPECT_EQ(sent, kMessages);
  EXPECT_EQ(qb.doorbells_rung, 0u); // the responder reads the RQ record itself
  EXPECT_EQ(qb.doorbells_saved, kMessages);
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RNR_NAKS), 0u);
  EXPECT_LT(qa.doorbells_rung, kMessages / 2);
}

TEST_F(DoorbellRecords, ErrorStateFlushesWqesPostedWithoutADoorbell) {
  auto [qa, qb] = pair.rc_pair(ORNIC_MTU_1024);
  qb.post_recv(1, {sge(pair.b.buffer, 64, pair.b.key)}); // no doorbell (RQ kick is 0)
  qb.post_recv(2, {sge(pair.b.buffer, 64, pair.b.key)});
  ASSERT_EQ(qb.doorbells_rung, 0u);
  ornic_qp_attr attr{};
  attr.state = ORNIC_QPS_ERR;
  ASSERT_EQ(pair.b.h.modify_qp(qb.qpn, attr, ORNIC_QP_ATTR_STATE).status,
            ORNIC_ADMIN_STATUS_SUCCESS);
  pair.pump();
  auto flushed = pair.wait_cqes(pair.b, 2);
  ASSERT_EQ(flushed.size(), 2u);
  EXPECT_EQ(flushed[0].status, ORNIC_CQE_WR_FLUSH_ERR);
  EXPECT_EQ(le(flushed[1].wr_id), 2u);
  // In ERR both queues ask for doorbells, and what is posted then is flushed too.
  const auto rq_record = pair.b.h.read<ornic_db_record>(qb.rq + Qp::kDepth * ORNIC_WQE_BLOCK_SIZE);
  EXPECT_EQ(le(rq_record.kick), ORNIC_DB_RECORD_KICK);
  qb.post_recv(3, {sge(pair.b.buffer, 64, pair.b.key)});
  qb.post_send(send_wqe(ORNIC_WQE_OP_SEND, 4), {sge(pair.b.buffer, 64, pair.b.key)});
  EXPECT_EQ(qb.doorbells_rung, 2u);
  flushed = pair.wait_cqes(pair.b, 2);
  ASSERT_EQ(flushed.size(), 2u);
  EXPECT_EQ(flushed[0].status, ORNIC_CQE_WR_FLUSH_ERR);
  EXPECT_EQ(flushed[1].status, ORNIC_CQE_WR_FLUSH_ERR);

  // RESET starts the records over: producer 0, the SQ asking for a doorbell.
  attr.state = ORNIC_QPS_RESET;
  ASSERT_EQ(pair.b.h.modify_qp(qb.qpn, attr, ORNIC_QP_ATTR_STATE).status,
            ORNIC_ADMIN_STATUS_SUCCESS);
  const auto sq_record = pair.b.h.read<ornic_db_record>(qb.sq + Qp::kDepth * ORNIC_WQE_BLOCK_SIZE);
  EXPECT_EQ(le(sq_record.producer), 0u);
  EXPECT_EQ(le(sq_record.kick), ORNIC_DB_RECORD_KICK);
}

} // namespace
} // namespace ornic::test
