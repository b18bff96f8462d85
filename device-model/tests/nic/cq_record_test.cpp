// CQ consumer records (doorbells.rst, "CQ consumer records"): a CQ that looks full by the
// doorbells the device has seen takes software's consumer index from the record before it
// declares an overflow; a record that lies or cannot be read changes nothing but a counter.
#include <gtest/gtest.h>

#include "core/completion_queue.hpp"
#include "dma/fake_guest_memory.hpp"
#include "driver_harness.hpp"

namespace ornic::test {
namespace {

constexpr uint64_t kBase = 0x80000;
constexpr unsigned kLogDepth = 2; // 4 CQEs

class CqRecord : public ::testing::Test {
protected:
  CqRecord()
      : memory(kBase, 4096),
        cq(QueueMemory::contiguous(kBase, CompletionQueue::ring_bytes(false, kLogDepth, true)),
           kLogDepth, 1, 0, false, true) {}

  CompletionQueue::Outcome post(uint64_t wr_id) {
    ornic_cqe cqe{};
    cqe.wr_id = to_le(wr_id);
    return cq.post(memory, counters, cqe, false).outcome;
  }
  void set_record(uint32_t consumer) {
    ornic_cq_db_record record{};
    record.consumer = to_le(consumer);
    std::memcpy(memory.at(kBase + (uint64_t{ORNIC_CQE_SIZE} << kLogDepth)), &record,
                sizeof(record));
  }

  FakeGuestMemory memory;
  DeviceCounters counters;
  CompletionQueue cq;
};

TEST_F(CqRecord, AFullRingTakesTheConsumerIndexFromTheRecord) {
  for (uint64_t i = 0; i < 4; ++i)
    ASSERT_EQ(post(i), CompletionQueue::Outcome::kWritten);
  // Software polled three without a doorbell: the record says so.
  set_record(3);
  EXPECT_EQ(post(4), CompletionQueue::Outcome::kWritten);
  EXPECT_EQ(cq.ring().consumer, 3u);
  EXPECT_EQ(post(5), CompletionQueue::Outcome::kWritten);
  EXPECT_EQ(post(6), CompletionQueue::Outcome::kWritten);
  EXPECT_EQ(le(reinterpret_cast<const ornic_cqe*>(memory.at(kBase))->wr_id), 4u); // slot 0
  EXPECT_FALSE(cq.in_error());
  EXPECT_EQ(counters.get(ORNIC_CNT_CQ_OVERFLOW), 0u);
  EXPECT_EQ(counters.get(ORNIC_CNT_DB_RECORD_ERRORS), 0u);
  // Nothing polled since: a real overflow.
  EXPECT_EQ(post(7), CompletionQueue::Outcome::kOverflow);
  EXPECT_TRUE(cq.in_error());
  EXPECT_EQ(counters.get(ORNIC_CNT_CQ_OVERFLOW), 1u);
}

TEST_F(CqRecord, ARecordPastTheProducerIsIgnoredAndCounted) {
  for (uint64_t i = 0; i < 4; ++i)
    ASSERT_EQ(post(i), CompletionQueue::Outcome::kWritten);
  set_record(9); // more than the device produced
  EXPECT_EQ(post(4), CompletionQueue::Outcome::kOverflow);
  EXPECT_EQ(cq.ring().consumer, 0u);
  EXPECT_EQ(counters.get(ORNIC_CNT_DB_RECORD_ERRORS), 1u);
  EXPECT_EQ(counters.get(ORNIC_CNT_CQ_OVERFLOW), 1u);
}

TEST_F(CqRecord, AnUnreadableRecordIsCountedAndTheCqOverflows) {
  for (uint64_t i = 0; i < 4; ++i)
    ASSERT_EQ(post(i), CompletionQueue::Outcome::kWritten);
  set_record(2);
  memory.set_fail_reads(true);
  EXPECT_EQ(post(4), CompletionQueue::Outcome::kOverflow);
  EXPECT_EQ(counters.get(ORNIC_CNT_DB_RECORD_ERRORS), 1u);
}

TEST_F(CqRecord, DoorbellsStillMoveTheConsumerIndex) {
  for (uint64_t i = 0; i < 4; ++i)
    ASSERT_EQ(post(i), CompletionQueue::Outcome::kWritten);
  EXPECT_TRUE(cq.doorbell(2, 0).accepted);
  set_record(1); // behind the doorbell: not read while there is room, ignored when full
  EXPECT_EQ(post(4), CompletionQueue::Outcome::kWritten);
  EXPECT_EQ(post(5), CompletionQueue::Outcome::kWritten);
  EXPECT_EQ(post(6), CompletionQueue::Outcome::kOverflow);
  EXPECT_EQ(counters.get(ORNIC_CNT_DB_RECORD_ERRORS), 1u);
}

TEST(CqRecordAdmin, CreateCqNeedsRoomForTheRecord) {
  DriverHarness h;
  ASSERT_TRUE(h.bring_up(32));
  const uint32_t eqn = h.create_eq(6, 3);
  ornic_admin_create_cq c{};
  c.hdr.opcode = ORNIC_ADMIN_CREATE_CQ;
  c.log_depth = 7; // 128 CQEs of 32 bytes: exactly a page
  c.eqn = to_le(eqn);
  c.flags = ORNIC_CQ_FLAG_DB_RECORD;
  c.mem = h.contiguous_ring(size_t{ORNIC_CQE_SIZE} << 7);
  EXPECT_NE(h.execute(DriverHarness::as_sqe(c)).status, ORNIC_ADMIN_STATUS_SUCCESS);
  c.mem = h.contiguous_ring((size_t{ORNIC_CQE_SIZE} << 7) + sizeof(ornic_cq_db_record));
  EXPECT_EQ(h.execute(DriverHarness::as_sqe(c)).status, ORNIC_ADMIN_STATUS_SUCCESS);
  c.flags = 1u << 2; // unknown
  EXPECT_EQ(h.execute(DriverHarness::as_sqe(c)).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  // The largest CQ with a record: one page more than a DIRECT page list holds.
  c.flags = ORNIC_CQ_FLAG_DB_RECORD;
  c.log_depth = 16;
  c.mem = h.contiguous_ring((size_t{ORNIC_CQE_SIZE} << 16) + sizeof(ornic_cq_db_record));
  EXPECT_EQ(le(c.mem.num_pages), ORNIC_PBL_ENTRIES_PER_PAGE + 1);
  EXPECT_EQ(h.execute(DriverHarness::as_sqe(c)).status, ORNIC_ADMIN_STATUS_SUCCESS);
}

// An arming doorbell posted before software polled further reaches the device after it read
// the newer record: the arm must count (a lost arm leaves a sleeping consumer without its
// event), and the consumer index must not go back.
TEST_F(CqRecord, AStaleArmingDoorbellStillArms) {
  for (uint64_t i = 0; i < 4; ++i)
    ASSERT_EQ(post(i), CompletionQueue::Outcome::kWritten);
  set_record(3);
  ASSERT_EQ(post(4), CompletionQueue::Outcome::kWritten); // took 3 from the record
  ASSERT_EQ(cq.ring().consumer, 3u);
  set_record(5);
  // Software armed at consumer 2, then polled to 5.
  const auto armed = cq.doorbell(2, ORNIC_DB_FLAG_ARM_NEXT);
  EXPECT_TRUE(armed.accepted);
  EXPECT_EQ(cq.ring().consumer, 3u);
  EXPECT_EQ(counters.get(ORNIC_CNT_DB_RECORD_ERRORS), 0u);
  // CQEs 3 and 4 were written before the arm and not notified: an event now, as for any
  // arm with unconsumed CQEs; the next arm waits for a new CQE.
  EXPECT_TRUE(armed.notify);
  const auto again = cq.doorbell(5, ORNIC_DB_FLAG_ARM_NEXT);
  EXPECT_TRUE(again.accepted);
  EXPECT_FALSE(again.notify);
  ornic_cqe cqe{};
  EXPECT_TRUE(cq.post(memory, counters, cqe, false).notify);
}

TEST_F(CqRecord, WithoutARecordABackwardDoorbellIsRefused) {
  CompletionQueue plain(
      QueueMemory::contiguous(kBase, CompletionQueue::ring_bytes(false, 2, false)), 2, 1, 0, false,
      false);
  ornic_cqe cqe{};
  for (int i = 0; i < 3; ++i)
    ASSERT_EQ(plain.post(memory, counters, cqe, false).outcome, CompletionQueue::Outcome::kWritten);
  ASSERT_TRUE(plain.doorbell(2, 0).accepted);
  EXPECT_FALSE(plain.doorbell(1, ORNIC_DB_FLAG_ARM_NEXT).accepted);
  EXPECT_EQ(plain.ring().consumer, 2u);
}

} // namespace
} // namespace ornic::test
