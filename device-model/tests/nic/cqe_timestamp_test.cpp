// Timestamped CQs and the device clock (cqe.rst "Timestamped CQs", doorbells.rst "Device
// clock"): the CLOCK register of the doorbell pages, CREATE_CQ's TIMESTAMP flag and the
// 64-byte entries it makes the device write.
#include <gtest/gtest.h>

#include "core/device_limits.hpp"
#include "driver_harness.hpp"

namespace ornic::test {
namespace {

// The device clock's source: time moves only when the test sets it.
class SetClock final : public TransportTimer {
public:
  int64_t now_ns() override { return now; }
  void arm(int64_t, std::function<void()>) override {}
  void disarm() override {}
  int64_t now = 1'000'000'000;
};

class NicCqeTimestamp : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_TRUE(h.bring_up(32));
    eqn = h.create_eq(6, 3);
  }

  uint64_t clock_read(uint32_t page, uint32_t offset, unsigned size) {
    return h.device.bar_read(ORNIC_BAR_DOORBELL, uint64_t{page} * ORNIC_DB_PAGE_SIZE + offset,
                             size);
  }

  ornic_admin_create_cq cq_command(unsigned log_depth, uint8_t flags, size_t ring_bytes) {
    ornic_admin_create_cq c{};
    c.hdr.opcode = ORNIC_ADMIN_CREATE_CQ;
    c.mem = h.contiguous_ring(ring_bytes);
    c.log_depth = static_cast<uint8_t>(log_depth);
    c.eqn = to_le(eqn);
    c.flags = flags;
    return c;
  }

  // A timestamped CQ of 2^log_depth entries; its ring address in `ring`.
  uint32_t create_ts_cq(unsigned log_depth, uint64_t& ring) {
    const auto c =
        cq_command(log_depth, ORNIC_CQ_FLAG_TIMESTAMP, size_t{ORNIC_CQE_TS_SIZE} << log_depth);
    ring = le(c.mem.addr);
    const auto done = h.execute(DriverHarness::as_sqe(c));
    EXPECT_EQ(done.status, ORNIC_ADMIN_STATUS_SUCCESS);
    return le(done.result0);
  }

  // `count` one-block receive WQEs with wr_id 100 + index, at RQ indices first...
  void post_receives(uint64_t rq, uint32_t first, uint32_t count) {
    for (uint32_t i = first; i < first + count; ++i) {
      ornic_recv_wqe wqe{};
      wqe.wr_id = to_le<uint64_t>(100 + i);
      wqe.num_blocks = 1;
      h.write(rq + uint64_t{i % 64} * ORNIC_WQE_BLOCK_SIZE, wqe);
    }
  }

  SetClock clock;
  DriverHarness h{nullptr, &clock};
  uint32_t eqn = 0;
};

TEST_F(NicCqeTimestamp, CapabilityIsReported) {
  const uint64_t caps = uint64_t{h.reg(ORNIC_REG_CAPS_LO)} | uint64_t{h.reg(ORNIC_REG_CAPS_HI)}
                                                                 << 32;
  EXPECT_TRUE(caps & ORNIC_CAP_CQE_TIMESTAMP);
  EXPECT_EQ(ORNIC_CAP_CQE_TIMESTAMP, uint64_t{1} << 20);
}

TEST_F(NicCqeTimestamp, ClockRegisterReadsTheClockInEveryPage) {
  clock.now = 0x0123'4567'89ab'cdefLL;
  // The kernel's page, an allocated page and one nobody allocated all read the same clock.
  const auto page = h.execute(DriverHarness::simple(ORNIC_ADMIN_ALLOC_DB_PAGE));
  ASSERT_EQ(page.status, ORNIC_ADMIN_STATUS_SUCCESS);
  for (uint32_t p : {0u, le(page.result0), ORNIC_DB_PAGES - 1}) {
    EXPECT_EQ(clock_read(p, ORNIC_DB_CLOCK, 8), 0x0123'4567'89ab'cdefULL) << "page " << p;
    EXPECT_EQ(clock_read(p, ORNIC_DB_CLOCK_LO, 4), 0x89ab'cdefULL);
    EXPECT_EQ(clock_read(p, ORNIC_DB_CLOCK_HI, 4), 0x0123'4567ULL);
  }
  clock.now += 5;
  EXPECT_EQ(clock_read(3, ORNIC_DB_CLOCK, 8), 0x0123'4567'89ab'cdf4ULL);
  // Everything else in a page reads 0: the doorbells, a 2-byte clock read, the clock's
  // high half read as 8 bytes, the byte after it.
  EXPECT_EQ(clock_read(0, ORNIC_DB_CQ, 8), 0u);
  EXPECT_EQ(clock_read(0, ORNIC_DB_CLOCK, 2), 0u);
  EXPECT_EQ(clock_read(0, ORNIC_DB_CLOCK_HI, 8), 0u);
  EXPECT_EQ(clock_read(0, ORNIC_DB_CLOCK + 8, 8), 0u);
  // Nor is the clock on BAR0.
  EXPECT_EQ(h.device.bar_read(ORNIC_BAR_REGS, ORNIC_DB_CLOCK, 4), 0u);
}

TEST_F(NicCqeTimestamp, ClockIgnoresWritesAndSurvivesReset) {
  clock.now = 77'000;
  const uint64_t bad_before = h.counter(ORNIC_CNT_DB_BAD_OFFSET);
  h.doorbell(0, ORNIC_DB_CLOCK, 5);
  EXPECT_EQ(h.counter(ORNIC_CNT_DB_BAD_OFFSET), bad_before + 1);
  EXPECT_EQ(clock_read(0, ORNIC_DB_CLOCK, 8), 77'000u);
  h.write_reg(ORNIC_REG_DEV_CTRL, ORNIC_DEV_CTRL_RESET);
  clock.now += 1;
  EXPECT_EQ(clock_read(0, ORNIC_DB_CLOCK, 8), 77'001u); // never reset, never backwards
}

TEST_F(NicCqeTimestamp, CreateCqChecksFlagsAndTheLargerRing) {
  // Unknown flag bits.
  auto c = cq_command(6, ORNIC_CQ_FLAG_TIMESTAMP | 0x80, size_t{ORNIC_CQE_TS_SIZE} << 6);
  EXPECT_EQ(h.execute(DriverHarness::as_sqe(c)).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  c = cq_command(6, 0x04, size_t{ORNIC_CQE_TS_SIZE} << 6);
  EXPECT_EQ(h.execute(DriverHarness::as_sqe(c)).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  // A ring sized for 32-byte CQEs is too small for timestamped ones (2 pages, needs 4).
  c = cq_command(8, ORNIC_CQ_FLAG_TIMESTAMP, size_t{ORNIC_CQE_SIZE} << 8);
  EXPECT_EQ(h.execute(DriverHarness::as_sqe(c)).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  // CONTIG rings start on an entry boundary: 32 bytes is enough only for 32-byte CQEs.
  c = cq_command(6, ORNIC_CQ_FLAG_TIMESTAMP, (size_t{ORNIC_CQE_TS_SIZE} << 6) + 4096);
  c.mem.addr = to_le(le(c.mem.addr) + 32);
  EXPECT_EQ(h.execute(DriverHarness::as_sqe(c)).status, ORNIC_ADMIN_STATUS_BAD_ALIGNMENT);
  c.flags = 0;
  EXPECT_EQ(h.execute(DriverHarness::as_sqe(c)).status, ORNIC_ADMIN_STATUS_SUCCESS);
  // The failures left nothing behind; the right ring works.
  c = cq_command(8, ORNIC_CQ_FLAG_TIMESTAMP, size_t{ORNIC_CQE_TS_SIZE} << 8);
  EXPECT_EQ(h.execute(DriverHarness::as_sqe(c)).status, ORNIC_ADMIN_STATUS_SUCCESS);
}

TEST_F(NicCqeTimestamp, EntriesAre64BytesWithTheClockAndTheOwnerLast) {
  uint64_t ring = 0, rq = 0;
  const uint32_t cqn = create_ts_cq(2, ring); // 4 entries
  const uint32_t qpn = h.create_qp(h.alloc_pd(), cqn, ORNIC_QPT_RC, 0, nullptr, &rq);
  post_receives(rq, 0, 3);
  h.doorbell(0, ORNIC_DB_RQ, ORNIC_DB_VALUE(qpn, 0, 3));
  clock.now = 5'000'000'123;
  ornic_qp_attr attr{};
  attr.state = ORNIC_QPS_ERR;
  ASSERT_EQ(h.modify_qp(qpn, attr, ORNIC_QP_ATTR_STATE).status, ORNIC_ADMIN_STATUS_SUCCESS);

  // Three flush CQEs, 64 bytes apart, first pass: phase 1 in byte 63.
  for (uint32_t i = 0; i < 3; ++i) {
    const auto e = h.read<ornic_cqe_ts>(ring + uint64_t{i} * ORNIC_CQE_TS_SIZE);
    EXPECT_EQ(le(e.timestamp), 5'000'000'123u);
    EXPECT_TRUE(field_is_zero(e.reserved));
    EXPECT_EQ(e.cqe.owner, ORNIC_CQE_OWNER_PHASE);
    EXPECT_EQ(*h.memory.at(ring + uint64_t{i} * 64 + 63), std::byte{ORNIC_CQE_OWNER_PHASE});
    EXPECT_EQ(e.cqe.status, ORNIC_CQE_WR_FLUSH_ERR);
    EXPECT_EQ(e.cqe.opcode, ORNIC_CQE_OP_RECV);
    EXPECT_EQ(le(e.cqe.wr_id), 100u + i);
    EXPECT_EQ(le(e.cqe.qpn), qpn);
  }
  EXPECT_EQ(h.read<ornic_cqe_ts>(ring + 3 * ORNIC_CQE_TS_SIZE).cqe.owner, 0);

  // Consume them, let time pass, flush three more: the ring wraps (slots 3, 0, 1), the
  // second pass has phase 0, the new CQEs carry the new time.
  h.doorbell(0, ORNIC_DB_CQ, ORNIC_DB_VALUE(cqn, 0, 3));
  clock.now += 250'000;
  post_receives(rq, 3, 3);
  h.doorbell(0, ORNIC_DB_RQ, ORNIC_DB_VALUE(qpn, 0, 6));
  const uint32_t slots[] = {3, 0, 1};
  const uint8_t phases[] = {ORNIC_CQE_OWNER_PHASE, 0, 0};
  for (uint32_t i = 0; i < 3; ++i) {
    const auto e = h.read<ornic_cqe_ts>(ring + uint64_t{slots[i]} * ORNIC_CQE_TS_SIZE);
    EXPECT_EQ(le(e.timestamp), 5'000'250'123u);
    EXPECT_EQ(e.cqe.owner, phases[i]);
    EXPECT_EQ(le(e.cqe.wr_id), 103u + i);
  }
  // Slot 2 still holds the first pass's CQE.
  EXPECT_EQ(le(h.read<ornic_cqe_ts>(ring + 2 * ORNIC_CQE_TS_SIZE).timestamp), 5'000'000'123u);
  EXPECT_EQ(h.counter(ORNIC_CNT_CQ_OVERFLOW), 0u);
}

TEST_F(NicCqeTimestamp, PlainCqNextToItKeeps32ByteEntries) {
  uint64_t ts_ring = 0, plain_ring = 0, rq = 0;
  create_ts_cq(3, ts_ring);
  const uint32_t plain = h.create_cq(eqn, 3, 0, &plain_ring);
  const uint32_t qpn = h.create_qp(h.alloc_pd(), plain, ORNIC_QPT_RC, 0, nullptr, &rq);
  post_receives(rq, 0, 2);
  h.doorbell(0, ORNIC_DB_RQ, ORNIC_DB_VALUE(qpn, 0, 2));
  ornic_qp_attr attr{};
  attr.state = ORNIC_QPS_ERR;
  ASSERT_EQ(h.modify_qp(qpn, attr, ORNIC_QP_ATTR_STATE).status, ORNIC_ADMIN_STATUS_SUCCESS);
  for (uint32_t i = 0; i < 2; ++i) {
    const auto e = h.read<ornic_cqe>(plain_ring + uint64_t{i} * ORNIC_CQE_SIZE);
    EXPECT_EQ(e.owner, ORNIC_CQE_OWNER_PHASE);
    EXPECT_EQ(le(e.wr_id), 100u + i);
  }
  EXPECT_EQ(h.read<ornic_cqe_ts>(ts_ring).cqe.owner, 0); // nothing went to the other CQ
}

TEST_F(NicCqeTimestamp, TimestampedCqOverflowsLikeAnyOther) {
  uint64_t ring = 0, rq = 0;
  const uint32_t cqn = create_ts_cq(1, ring); // 2 entries
  const uint32_t qpn = h.create_qp(h.alloc_pd(), cqn, ORNIC_QPT_RC, 0, nullptr, &rq);
  post_receives(rq, 0, 3);
  h.doorbell(0, ORNIC_DB_RQ, ORNIC_DB_VALUE(qpn, 0, 3));
  ornic_qp_attr attr{};
  attr.state = ORNIC_QPS_ERR;
  ASSERT_EQ(h.modify_qp(qpn, attr, ORNIC_QP_ATTR_STATE).status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(h.counter(ORNIC_CNT_CQ_OVERFLOW), 1u);
  // The two entries that fit are intact; nothing was written past the ring.
  EXPECT_EQ(le(h.read<ornic_cqe_ts>(ring + ORNIC_CQE_TS_SIZE).cqe.wr_id), 101u);
  EXPECT_TRUE(all_zero(std::span<const std::byte>(h.memory.at(ring + 2 * ORNIC_CQE_TS_SIZE), 64)));
  const auto event = h.poll_async_event();
  ASSERT_TRUE(event);
  EXPECT_EQ(event->type, ORNIC_EQE_CQ_ERROR);
  EXPECT_EQ(le(event->object), cqn);
}

} // namespace
} // namespace ornic::test
