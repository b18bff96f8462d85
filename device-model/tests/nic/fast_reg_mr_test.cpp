// Fast-reg MRs on the admin queue (memory.rst, "Fast registration"): REG_MR with
// ORNIC_MR_FLAG_FAST_REG creates a FREE MR of a given capacity; DEREG_MR frees it.
#include <gtest/gtest.h>

#include "driver_harness.hpp"

namespace ornic::test {
namespace {

class FastRegMr : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_TRUE(h.bring_up(32));
    pd = h.alloc_pd();
  }

  static ornic_admin_reg_mr command(uint32_t pd, uint32_t capacity, uint8_t variant = 0x11) {
    ornic_admin_reg_mr c{};
    c.hdr.opcode = ORNIC_ADMIN_REG_MR;
    c.mem.num_pages = to_le(capacity);
    c.pd = to_le(pd);
    c.key_variant = variant;
    c.flags = ORNIC_MR_FLAG_FAST_REG;
    return c;
  }

  uint8_t status(const ornic_admin_reg_mr& c) { return h.execute(DriverHarness::as_sqe(c)).status; }

  DriverHarness h;
  uint32_t pd = 0;
};

TEST_F(FastRegMr, CreatedFreeAndDeregistered) {
  const auto cqe = h.execute(DriverHarness::as_sqe(command(pd, 256)));
  ASSERT_EQ(cqe.status, ORNIC_ADMIN_STATUS_SUCCESS);
  const uint32_t key = le(cqe.result0);
  EXPECT_GE(key >> ORNIC_MR_KEY_INDEX_SHIFT, 1u);
  // The PD is busy while the MR exists.
  EXPECT_EQ(h.execute(DriverHarness::simple(ORNIC_ADMIN_DEALLOC_PD, pd)).status,
            ORNIC_ADMIN_STATUS_BUSY);
  // The consumer changes the variant (ib_update_fast_reg_key); the index names the MR.
  EXPECT_EQ(h.execute(DriverHarness::simple(ORNIC_ADMIN_DEREG_MR, key ^ 0x7)).status,
            ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(h.execute(DriverHarness::simple(ORNIC_ADMIN_DEREG_MR, key)).status,
            ORNIC_ADMIN_STATUS_BAD_HANDLE);
  EXPECT_EQ(h.execute(DriverHarness::simple(ORNIC_ADMIN_DEALLOC_PD, pd)).status,
            ORNIC_ADMIN_STATUS_SUCCESS);
}

TEST_F(FastRegMr, CapacityLimits) {
  EXPECT_EQ(status(command(pd, 0)), ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_EQ(status(command(pd, 1)), ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(status(command(pd, 512)), ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(status(command(pd, 513)), ORNIC_ADMIN_STATUS_LIMIT_EXCEEDED);
  EXPECT_EQ(status(command(pd, 0xffffffffu)), ORNIC_ADMIN_STATUS_LIMIT_EXCEEDED);
}

TEST_F(FastRegMr, EveryOtherFieldMustBeZero) {
  EXPECT_EQ(status(command(pd + 1, 8)), ORNIC_ADMIN_STATUS_BAD_HANDLE);
  auto c = command(pd, 8);
  c.flags = ORNIC_MR_FLAG_FAST_REG | ORNIC_MR_FLAG_PHYSICAL;
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_BAD_FIELD);
  c = command(pd, 8);
  c.flags = ORNIC_MR_FLAG_FAST_REG | 0x80;
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_BAD_FIELD);
  c = command(pd, 8);
  c.mem.addr = to_le(h.alloc(4096));
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_BAD_FIELD);
  c = command(pd, 8);
  c.mem.page_shift = 12;
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_BAD_FIELD);
  c = command(pd, 8);
  c.mem.mode = ORNIC_MEM_MODE_DIRECT;
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_BAD_FIELD);
  c = command(pd, 8);
  c.iova = to_le(uint64_t{0x1000});
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_BAD_FIELD);
  c = command(pd, 8);
  c.length = to_le(uint64_t{4096});
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_BAD_FIELD);
  c = command(pd, 8);
  c.access = to_le<uint32_t>(ORNIC_ACCESS_LOCAL_WRITE);
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_BAD_FIELD);
  c = command(pd, 8);
  c.first_page_offset = to_le(16u);
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_BAD_FIELD);
  c = command(pd, 8);
  c.reserved0 = to_le<uint16_t>(1);
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_BAD_FIELD);
  // None of the refused commands left an MR behind.
  EXPECT_EQ(h.execute(DriverHarness::simple(ORNIC_ADMIN_DEALLOC_PD, pd)).status,
            ORNIC_ADMIN_STATUS_SUCCESS);
}

} // namespace
} // namespace ornic::test
