// memory.rst, "Keys": the device draws the variant byte of every new key at random, never
// the one the same index had last, whatever key_variant the driver sends (the driver used
// to send a global counter, so a peer that saw one key could predict the next ones).
#include <set>

#include <gtest/gtest.h>

#include "core/device_limits.hpp"
#include "driver_harness.hpp"

namespace ornic::test {
namespace {

class KeyVariants : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_TRUE(h.bring_up(32));
    h.device.set_object_limits({.mr = kMrs});
    pd = h.alloc_pd();
    page = h.alloc(4096);
  }

  // A one-page MR, with the variant a counting driver would send.
  uint32_t reg(uint8_t driver_variant) {
    ornic_admin_reg_mr c{};
    c.hdr.opcode = ORNIC_ADMIN_REG_MR;
    c.mem.addr = to_le(page);
    c.mem.num_pages = to_le(1u);
    c.mem.page_shift = 12;
    c.mem.mode = ORNIC_MEM_MODE_CONTIG;
    c.iova = to_le(uint64_t{0x10000});
    c.length = to_le(uint64_t{4096});
    c.pd = to_le(pd);
    c.access = to_le(ORNIC_ACCESS_LOCAL_WRITE | ORNIC_ACCESS_REMOTE_READ);
    c.key_variant = driver_variant;
    const auto cqe = h.execute(DriverHarness::as_sqe(c));
    EXPECT_EQ(cqe.status, ORNIC_ADMIN_STATUS_SUCCESS);
    return le(cqe.result0);
  }
  void dereg(uint32_t key) {
    EXPECT_EQ(h.execute(DriverHarness::simple(ORNIC_ADMIN_DEREG_MR, key)).status,
              ORNIC_ADMIN_STATUS_SUCCESS);
  }

  // Few MRs, so filling the table is quick.
  static constexpr uint32_t kMrs = 64;
  DriverHarness h;
  uint32_t pd = 0;
  uint64_t page = 0;
};

// The table is filled but for one index, so every new MR reuses that index: 256
// re-registrations of the same index. A random byte matches the driver's counter about
// once in 256 draws; 32 matches would take a chance far below 1e-30.
TEST_F(KeyVariants, ReRegistrationsOfOneIndexGetUnrelatedVariants) {
  std::vector<uint32_t> held;
  for (uint32_t i = 0; i + 1 < kMrs; ++i)
    held.push_back(reg(0));
  uint32_t key = reg(0);
  const uint32_t index = key >> ORNIC_MR_KEY_INDEX_SHIFT;
  int follows_counter = 0;
  std::set<uint8_t> seen;
  for (unsigned n = 1; n <= 256; ++n) {
    const uint8_t last = key & ORNIC_MR_KEY_VARIANT_MASK;
    dereg(key);
    key = reg(static_cast<uint8_t>(n));
    ASSERT_EQ(key >> ORNIC_MR_KEY_INDEX_SHIFT, index);
    const uint8_t variant = key & ORNIC_MR_KEY_VARIANT_MASK;
    EXPECT_NE(variant, last) << "a stale key of the index would match the new MR";
    follows_counter += variant == static_cast<uint8_t>(n);
    seen.insert(variant);
  }
  EXPECT_LT(follows_counter, 32) << "the variant is the driver's counter";
  EXPECT_GE(seen.size(), 64u);
}

// An old key of a re-registered index names nothing.
TEST_F(KeyVariants, StaleKeyOfAReusedIndexIsRefused) {
  std::vector<uint32_t> held;
  for (uint32_t i = 0; i + 1 < kMrs; ++i)
    held.push_back(reg(0));
  const uint32_t old_key = reg(7);
  dereg(old_key);
  const uint32_t new_key = reg(7);
  ASSERT_EQ(new_key >> ORNIC_MR_KEY_INDEX_SHIFT, old_key >> ORNIC_MR_KEY_INDEX_SHIFT);
  EXPECT_NE(new_key, old_key);
  EXPECT_EQ(h.execute(DriverHarness::simple(ORNIC_ADMIN_DEREG_MR, old_key)).status,
            ORNIC_ADMIN_STATUS_BAD_HANDLE);
}

} // namespace
} // namespace ornic::test
