// Doorbell decoding and ownership (doorbells.rst), CQ arming -> EQE -> MSI-X
// (events.rst), QP flush in ERR (qp.rst).
#include <gtest/gtest.h>

#include "driver_harness.hpp"

namespace ornic::test {
namespace {

class NicDoorbells : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_TRUE(h.bring_up(32));
    eqn = h.create_eq(6, 3, &eq_ring);
    h.doorbell(0, ORNIC_DB_EQ, ORNIC_DB_VALUE(eqn, ORNIC_DB_FLAG_ARM_NEXT, 0));
  }

  uint32_t alloc_db_page() {
    const auto cqe = h.execute(DriverHarness::simple(ORNIC_ADMIN_ALLOC_DB_PAGE));
    EXPECT_EQ(cqe.status, ORNIC_ADMIN_STATUS_SUCCESS);
    return le(cqe.result0);
  }

  std::optional<ornic_eqe> poll_eq() {
    const auto eqe = h.read<ornic_eqe>(eq_ring + uint64_t{eq_head % 64} * ORNIC_EQE_SIZE);
    if ((eqe.owner & ORNIC_EQE_OWNER_PHASE) != expected_phase(eq_head, 64))
      return std::nullopt;
    ++eq_head;
    return eqe;
  }

  // Puts `count` one-block receive WQEs with wr_id 100.. into the RQ ring.
  void post_receives(uint64_t rq, uint32_t first, uint32_t count) {
    for (uint32_t i = first; i < first + count; ++i) {
      ornic_recv_wqe wqe{};
      wqe.wr_id = to_le<uint64_t>(100 + i);
      wqe.num_blocks = 1;
      h.write(rq + uint64_t{i % 64} * ORNIC_WQE_BLOCK_SIZE, wqe);
    }
  }

  DriverHarness h;
  uint32_t eqn = 0;
  uint64_t eq_ring = 0;
  uint32_t eq_head = 0;
};

TEST_F(NicDoorbells, ForeignPageIsIgnoredAndCounted) {
  const uint32_t page_a = alloc_db_page();
  const uint32_t page_b = alloc_db_page();
  EXPECT_NE(page_a, page_b);
  uint64_t cq_ring = 0;
  const uint32_t cqn = h.create_cq(eqn, 6, page_a, &cq_ring);
  const uint32_t qpn = h.create_qp(h.alloc_pd(), cqn, ORNIC_QPT_RC, page_a);

  // Another process's page tries to ring A's QP and arm A's CQ.
  h.doorbell(page_b, ORNIC_DB_SQ, ORNIC_DB_VALUE(qpn, 0, 1));
  h.doorbell(page_b, ORNIC_DB_CQ, ORNIC_DB_VALUE(cqn, ORNIC_DB_FLAG_ARM_NEXT, 0));
  h.doorbell(0, ORNIC_DB_CQ, ORNIC_DB_VALUE(cqn, ORNIC_DB_FLAG_ARM_NEXT, 0)); // kernel page too
  EXPECT_EQ(h.counter(ORNIC_CNT_DB_FOREIGN_PAGE), 3u);

  ornic_admin_query_counters query{};
  const uint64_t out = h.alloc(sizeof(ornic_qp_counters));
  query.hdr.opcode = ORNIC_ADMIN_QUERY_COUNTERS;
  query.resp_addr = to_le(out);
  query.resp_len = to_le<uint32_t>(sizeof(ornic_qp_counters));
  query.scope = ORNIC_COUNTER_SCOPE_QP;
  query.handle = to_le(qpn);
  ASSERT_EQ(h.execute(DriverHarness::as_sqe(query)).status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(le(h.read<ornic_qp_counters>(out).db_foreign_page), 1u);

  // The owner's page works; a freed page is refused outright.
  h.doorbell(page_a, ORNIC_DB_SQ, ORNIC_DB_VALUE(qpn, 0, 1));
  EXPECT_EQ(h.counter(ORNIC_CNT_DB_FOREIGN_PAGE), 3u);
  EXPECT_EQ(h.execute(DriverHarness::simple(ORNIC_ADMIN_FREE_DB_PAGE, page_a)).status,
            ORNIC_ADMIN_STATUS_BUSY);
  EXPECT_EQ(h.execute(DriverHarness::simple(ORNIC_ADMIN_FREE_DB_PAGE, page_b)).status,
            ORNIC_ADMIN_STATUS_SUCCESS);
  h.doorbell(page_b, ORNIC_DB_SQ, ORNIC_DB_VALUE(qpn, 0, 2));
  EXPECT_EQ(h.counter(ORNIC_CNT_DB_UNALLOCATED_PAGE), 1u);
}

TEST_F(NicDoorbells, MalformedDoorbellsAreCounted) {
  const uint32_t cqn = h.create_cq(eqn);
  h.doorbell(0, 0x38, 0);                                        // no such register
  h.device.bar_write(ORNIC_BAR_DOORBELL, ORNIC_DB_CQ + 2, 2, 0); // wrong size
  h.device.bar_write(ORNIC_BAR_DOORBELL, ORNIC_DB_CQ + 4, 4, 0); // high half alone
  h.doorbell(0, ORNIC_DB_CQ, ORNIC_DB_VALUE(cqn, 1u << 28, 0));  // reserved flag
  EXPECT_EQ(h.counter(ORNIC_CNT_DB_BAD_OFFSET), 4u);
  h.doorbell(0, ORNIC_DB_CQ, ORNIC_DB_VALUE(999, 0, 0));
  EXPECT_EQ(h.counter(ORNIC_CNT_DB_BAD_QUEUE), 1u);
  h.doorbell(0, ORNIC_DB_CQ, ORNIC_DB_VALUE(cqn, 0, 5)); // consumer ahead of producer
  EXPECT_EQ(h.counter(ORNIC_CNT_DB_BAD_INDEX), 1u);
  h.doorbell(7, ORNIC_DB_CQ, ORNIC_DB_VALUE(cqn, 0, 0));
  EXPECT_EQ(h.counter(ORNIC_CNT_DB_UNALLOCATED_PAGE), 1u);
}

TEST_F(NicDoorbells, FlushInErrorArmsCqRaisesEqVector) {
  uint64_t cq_ring = 0, rq = 0;
  const uint32_t cqn = h.create_cq(eqn, 6, 0, &cq_ring);
  const uint32_t qpn = h.create_qp(h.alloc_pd(), cqn, ORNIC_QPT_RC, 0, nullptr, &rq);
  h.doorbell(0, ORNIC_DB_CQ, ORNIC_DB_VALUE(cqn, ORNIC_DB_FLAG_ARM_NEXT, 0));
  h.irqs.clear();

  post_receives(rq, 0, 2);
  // Posted as two 32-bit halves (ORNIC_CAP_DB_32BIT_PAIR).
  const uint64_t value = ORNIC_DB_VALUE(qpn, 0, 2);
  h.device.bar_write(ORNIC_BAR_DOORBELL, ORNIC_DB_RQ, 4, value & 0xffffffff);
  h.device.bar_write(ORNIC_BAR_DOORBELL, ORNIC_DB_RQ + 4, 4, value >> 32);

  ornic_qp_attr attr{};
  attr.state = ORNIC_QPS_ERR;
  ASSERT_EQ(h.modify_qp(qpn, attr, ORNIC_QP_ATTR_STATE).status, ORNIC_ADMIN_STATUS_SUCCESS);

  for (uint32_t i = 0; i < 2; ++i) {
    const auto cqe = h.read<ornic_cqe>(cq_ring + uint64_t{i} * ORNIC_CQE_SIZE);
    EXPECT_EQ(cqe.owner & ORNIC_CQE_OWNER_PHASE, 1);
    EXPECT_EQ(cqe.status, ORNIC_CQE_WR_FLUSH_ERR);
    EXPECT_EQ(cqe.opcode, ORNIC_CQE_OP_RECV);
    EXPECT_EQ(le(cqe.wr_id), 100u + i);
    EXPECT_EQ(le(cqe.qpn), qpn);
  }
  // One COMPLETION EQE (arming is one-shot) and one interrupt on the EQ's vector.
  const auto eqe = poll_eq();
  ASSERT_TRUE(eqe);
  EXPECT_EQ(eqe->type, ORNIC_EQE_COMPLETION);
  EXPECT_EQ(le(eqe->object), cqn);
  EXPECT_FALSE(poll_eq());
  EXPECT_EQ(h.irqs.count(3), 1u);

  // More receives posted in ERR are flushed at once; re-arming with CQEs pending notifies.
  post_receives(rq, 2, 1);
  h.doorbell(0, ORNIC_DB_RQ, ORNIC_DB_VALUE(qpn, 0, 3));
  EXPECT_EQ(h.read<ornic_cqe>(cq_ring + 2 * ORNIC_CQE_SIZE).status, ORNIC_CQE_WR_FLUSH_ERR);
  h.doorbell(0, ORNIC_DB_EQ, ORNIC_DB_VALUE(eqn, ORNIC_DB_FLAG_ARM_NEXT, eq_head));
  h.doorbell(0, ORNIC_DB_CQ, ORNIC_DB_VALUE(cqn, ORNIC_DB_FLAG_ARM_NEXT, 2));
  EXPECT_TRUE(poll_eq());
  EXPECT_EQ(h.irqs.count(3), 2u);
}

// The verbs pattern of an event-driven consumer: take the event, re-arm, then poll. The CQE
// that caused the event is still unpolled at the re-arm; it must not cause a second event,
// or the consumer wakes for a completion that is not there yet.
TEST_F(NicDoorbells, RearmBeforePollDoesNotNotifyTheSameCqeAgain) {
  uint64_t cq_ring = 0, rq = 0;
  const uint32_t cqn = h.create_cq(eqn, 6, 0, &cq_ring);
  const uint32_t qpn = h.create_qp(h.alloc_pd(), cqn, ORNIC_QPT_RC, 0, nullptr, &rq);
  ornic_qp_attr attr{};
  attr.state = ORNIC_QPS_ERR;
  ASSERT_EQ(h.modify_qp(qpn, attr, ORNIC_QP_ATTR_STATE).status, ORNIC_ADMIN_STATUS_SUCCESS);
  h.doorbell(0, ORNIC_DB_CQ, ORNIC_DB_VALUE(cqn, ORNIC_DB_FLAG_ARM_NEXT, 0));

  post_receives(rq, 0, 1); // flushed at once: CQE 0, an event
  h.doorbell(0, ORNIC_DB_RQ, ORNIC_DB_VALUE(qpn, 0, 1));
  ASSERT_TRUE(poll_eq());
  h.doorbell(0, ORNIC_DB_CQ, ORNIC_DB_VALUE(cqn, ORNIC_DB_FLAG_ARM_NEXT, 0)); // CQE 0 unpolled
  EXPECT_FALSE(poll_eq());

  post_receives(rq, 1, 1); // CQE 1: the armed CQ's next event
  h.doorbell(0, ORNIC_DB_RQ, ORNIC_DB_VALUE(qpn, 0, 2));
  EXPECT_TRUE(poll_eq());
  // A CQE written while the CQ was disarmed still notifies at once when it is armed.
  post_receives(rq, 2, 1);
  h.doorbell(0, ORNIC_DB_RQ, ORNIC_DB_VALUE(qpn, 0, 3));
  EXPECT_FALSE(poll_eq());
  h.doorbell(0, ORNIC_DB_CQ, ORNIC_DB_VALUE(cqn, ORNIC_DB_FLAG_ARM_NEXT, 1));
  EXPECT_TRUE(poll_eq());
  EXPECT_FALSE(poll_eq());
}

TEST_F(NicDoorbells, CqOverflowIsReportedAndErrorsItsQps) {
  uint64_t cq_ring = 0, rq = 0;
  const uint32_t cqn = h.create_cq(eqn, 1, 0, &cq_ring); // 2 entries
  const uint32_t qpn = h.create_qp(h.alloc_pd(), cqn, ORNIC_QPT_RC, 0, nullptr, &rq);
  post_receives(rq, 0, 3);
  h.doorbell(0, ORNIC_DB_RQ, ORNIC_DB_VALUE(qpn, 0, 3));
  ornic_qp_attr attr{};
  attr.state = ORNIC_QPS_ERR;
  ASSERT_EQ(h.modify_qp(qpn, attr, ORNIC_QP_ATTR_STATE).status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(h.counter(ORNIC_CNT_CQ_OVERFLOW), 1u);
  const auto event = h.poll_async_event();
  ASSERT_TRUE(event);
  EXPECT_EQ(event->type, ORNIC_EQE_CQ_ERROR);
  EXPECT_EQ(le(event->object), cqn);
  EXPECT_EQ(le(event->data), static_cast<uint32_t>(ORNIC_CQ_ERROR_OVERFLOW));
}

TEST_F(NicDoorbells, ResetQpForgetsPostedWork) {
  uint64_t cq_ring = 0, rq = 0;
  const uint32_t cqn = h.create_cq(eqn, 6, 0, &cq_ring);
  const uint32_t qpn = h.create_qp(h.alloc_pd(), cqn, ORNIC_QPT_RC, 0, nullptr, &rq);
  post_receives(rq, 0, 2);
  h.doorbell(0, ORNIC_DB_RQ, ORNIC_DB_VALUE(qpn, 0, 2));
  ornic_qp_attr attr{};
  attr.state = ORNIC_QPS_RESET;
  ASSERT_EQ(h.modify_qp(qpn, attr, ORNIC_QP_ATTR_STATE).status, ORNIC_ADMIN_STATUS_SUCCESS);
  attr.state = ORNIC_QPS_ERR;
  ASSERT_EQ(h.modify_qp(qpn, attr, ORNIC_QP_ATTR_STATE).status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(h.read<ornic_cqe>(cq_ring).owner, 0); // nothing flushed
}

// Doorbell records (doorbells.rst, "Doorbell records"): where they are, what CREATE and
// RESET write, and records that lie.
class NicDoorbellRecords : public NicDoorbells {
protected:
  static constexpr uint64_t kRecordOffset = uint64_t{ORNIC_WQE_BLOCK_SIZE} << 6;

  void SetUp() override {
    NicDoorbells::SetUp();
    h.qp_flags = ORNIC_QP_FLAG_DB_RECORD;
    cqn = h.create_cq(eqn, 6, 0, &cq_ring);
    qpn = h.create_qp(h.alloc_pd(), cqn, ORNIC_QPT_RC, 0, &sq, &rq);
  }

  ornic_db_record record(uint64_t ring) { return h.read<ornic_db_record>(ring + kRecordOffset); }
  void set_producer(uint64_t ring, uint32_t producer) {
    auto r = record(ring);
    r.producer = to_le(producer);
    h.write(ring + kRecordOffset, r);
  }
  void to_error() {
    ornic_qp_attr attr{};
    attr.state = ORNIC_QPS_ERR;
    ASSERT_EQ(h.modify_qp(qpn, attr, ORNIC_QP_ATTR_STATE).status, ORNIC_ADMIN_STATUS_SUCCESS);
  }
  uint32_t flushed() {
    uint32_t n = 0;
    while (n < 64 && (h.read<ornic_cqe>(cq_ring + uint64_t{n} * ORNIC_CQE_SIZE).owner &
                      ORNIC_CQE_OWNER_PHASE) != 0)
      ++n;
    return n;
  }

  uint32_t cqn = 0, qpn = 0;
  uint64_t cq_ring = 0, sq = 0, rq = 0;
};

TEST_F(NicDoorbellRecords, CreateWritesKickAndTheCapabilityIsReported) {
  EXPECT_TRUE((uint64_t{h.reg(ORNIC_REG_CAPS_HI)} << 32 | h.reg(ORNIC_REG_CAPS_LO)) &
              ORNIC_CAP_DB_RECORD);
  EXPECT_EQ(le(record(sq).kick), ORNIC_DB_RECORD_KICK); // an idle SQ wants a doorbell
  EXPECT_EQ(le(record(rq).kick), 0u);                   // an RQ never does outside ERR
  EXPECT_EQ(le(record(sq).producer), 0u);
}

TEST_F(NicDoorbellRecords, RingWithoutRoomForTheRecordIsRefused) {
  ornic_admin_create_qp c{};
  c.hdr.opcode = ORNIC_ADMIN_CREATE_QP;
  c.sq_mem = h.contiguous_ring(size_t{ORNIC_WQE_BLOCK_SIZE} << 6); // exactly the ring
  c.rq_mem = h.contiguous_ring(size_t{ORNIC_WQE_BLOCK_SIZE} << 6);
  c.pd = to_le(h.alloc_pd());
  c.send_cqn = c.recv_cqn = to_le(cqn);
  c.qp_type = ORNIC_QPT_RC;
  c.flags = ORNIC_QP_FLAG_DB_RECORD;
  c.sq_log_depth = c.rq_log_depth = 6;
  EXPECT_EQ(h.execute(DriverHarness::as_sqe(c)).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  c.flags = 1u << 7; // unknown flag
  EXPECT_EQ(h.execute(DriverHarness::as_sqe(c)).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
}

TEST_F(NicDoorbellRecords, ErrorFlushTakesTheRecordAndStaleDoorbellsAreHarmless) {
  post_receives(rq, 0, 3);
  set_producer(rq, 3); // posted without a doorbell: kick was 0
  to_error();
  EXPECT_EQ(flushed(), 3u);
  EXPECT_EQ(le(record(rq).kick), ORNIC_DB_RECORD_KICK);
  // A doorbell behind what the device took from the record only wakes the queue, however
  // far behind (software may have posted rings more while it was on its way).
  h.doorbell(0, ORNIC_DB_RQ, ORNIC_DB_VALUE(qpn, 0, 1));
  h.doorbell(0, ORNIC_DB_RQ, ORNIC_DB_VALUE(qpn, 0, 3u - 5 * 64));
  EXPECT_EQ(h.counter(ORNIC_CNT_DB_BAD_INDEX), 0u);
  post_receives(rq, 3, 1);
  set_producer(rq, 4);
  h.doorbell(0, ORNIC_DB_RQ, ORNIC_DB_VALUE(qpn, 0, 4));
  EXPECT_EQ(flushed(), 4u);
  EXPECT_EQ(h.counter(ORNIC_CNT_DB_WQ_WRITES), 3u);
  EXPECT_EQ(h.counter(ORNIC_CNT_DB_RECORD_ERRORS), 0u);
}

TEST_F(NicDoorbellRecords, LyingRecordsAreIgnoredAndCounted) {
  to_error();
  // Beyond the ring: never more than a ring ahead of the consumer.
  post_receives(rq, 0, 64);
  set_producer(rq, 65);
  h.doorbell(0, ORNIC_DB_RQ, ORNIC_DB_VALUE(qpn, 0, 0));
  EXPECT_EQ(flushed(), 0u);
  EXPECT_EQ(h.counter(ORNIC_CNT_DB_RECORD_ERRORS), 2u); // read at the doorbell's flush, twice
  set_producer(rq, 0xfffffff0u);                        // "behind" the consumer: as impossible
  h.doorbell(0, ORNIC_DB_RQ, ORNIC_DB_VALUE(qpn, 0, 0));
  EXPECT_EQ(flushed(), 0u);
  // A good record then works; going backwards after it is refused.
  set_producer(rq, 2);
  h.doorbell(0, ORNIC_DB_RQ, ORNIC_DB_VALUE(qpn, 0, 0));
  EXPECT_EQ(flushed(), 2u);
  const uint64_t errors = h.counter(ORNIC_CNT_DB_RECORD_ERRORS);
  set_producer(rq, 1);
  h.doorbell(0, ORNIC_DB_RQ, ORNIC_DB_VALUE(qpn, 0, 2));
  EXPECT_EQ(flushed(), 2u);
  EXPECT_GT(h.counter(ORNIC_CNT_DB_RECORD_ERRORS), errors);
  // An unreadable record (DMA failure) changes nothing; a doorbell's own index still works.
  h.memory.set_fail_reads(true);
  h.doorbell(0, ORNIC_DB_RQ, ORNIC_DB_VALUE(qpn, 0, 3));
  h.memory.set_fail_reads(false);
  EXPECT_GT(h.counter(ORNIC_CNT_DB_RECORD_ERRORS), errors + 1);
  EXPECT_EQ(h.read<ornic_cqe>(cq_ring + 2 * ORNIC_CQE_SIZE).status, ORNIC_CQE_WR_FLUSH_ERR);
}

TEST_F(NicDoorbellRecords, UnwritableRecordFailsCreate) {
  ornic_admin_create_qp c{};
  c.hdr.opcode = ORNIC_ADMIN_CREATE_QP;
  c.sq_mem = h.contiguous_ring((size_t{ORNIC_WQE_BLOCK_SIZE} << 6) + 64);
  c.rq_mem = h.contiguous_ring((size_t{ORNIC_WQE_BLOCK_SIZE} << 6) + 64);
  c.sq_mem.addr = to_le<uint64_t>(0x7000'0000'0000); // outside guest memory
  c.pd = to_le(h.alloc_pd());
  c.send_cqn = c.recv_cqn = to_le(cqn);
  c.qp_type = ORNIC_QPT_RC;
  c.flags = ORNIC_QP_FLAG_DB_RECORD;
  c.sq_log_depth = c.rq_log_depth = 6;
  EXPECT_EQ(h.execute(DriverHarness::as_sqe(c)).status, ORNIC_ADMIN_STATUS_BAD_DMA);
}

TEST_F(NicDoorbellRecords, ResetRewritesTheRecords) {
  post_receives(rq, 0, 2);
  set_producer(rq, 2);
  ornic_qp_attr attr{};
  attr.state = ORNIC_QPS_RESET;
  ASSERT_EQ(h.modify_qp(qpn, attr, ORNIC_QP_ATTR_STATE).status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(le(record(rq).producer), 0u);
  EXPECT_EQ(le(record(sq).kick), ORNIC_DB_RECORD_KICK);
  to_error();
  EXPECT_EQ(flushed(), 0u); // RESET forgot them, record included
}

} // namespace
} // namespace ornic::test
