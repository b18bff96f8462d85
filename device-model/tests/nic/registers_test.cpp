// BAR0 identity, reset values, enable / reset semantics (registers.rst).
#include <string>

#include <gtest/gtest.h>

#include "common/release_version.hpp"
#include "driver_harness.hpp"

namespace ornic::test {
namespace {

TEST(NicRegisters, IdentityAndBars) {
  DriverHarness h;
  const PciIdentity id = h.device.identity();
  EXPECT_EQ(id.vendor_id, ORNIC_PCI_VENDOR_ID);
  EXPECT_EQ(id.device_id, ORNIC_PCI_DEVICE_ID);
  EXPECT_EQ(id.class_code, 0x020000u);
  const auto bars = h.device.bars();
  EXPECT_EQ(bars[0].size, ORNIC_BAR_REGS_SIZE);
  EXPECT_EQ(bars[2].size, ORNIC_BAR_DOORBELL_SIZE);
  EXPECT_EQ(bars[4].size, ORNIC_BAR_MSIX_SIZE);
  EXPECT_EQ(bars[1].size, 0u);
  const MsixLayout msix = h.device.msix();
  EXPECT_EQ(msix.vectors, ORNIC_MSIX_VECTORS);
  EXPECT_EQ(msix.bar, 4u);
  EXPECT_EQ(msix.pba_offset, ORNIC_MSIX_PBA_OFFSET);
}

TEST(NicRegisters, ResetValues) {
  DriverHarness h;
  EXPECT_EQ(h.reg(ORNIC_REG_MAGIC), ORNIC_MAGIC);
  EXPECT_EQ(h.reg(ORNIC_REG_VERSION), 0x00010000u);
  // FW_VERSION is the release the model was built from: MAJOR.MINOR.PATCH of debian/changelog.
  const uint32_t fw = h.reg(ORNIC_REG_FW_VERSION);
  const std::string version(release::kVersion);
  EXPECT_EQ(std::to_string(ORNIC_FW_VERSION_MAJOR(fw)) + "." +
                std::to_string(ORNIC_FW_VERSION_MINOR(fw)) + "." +
                std::to_string(ORNIC_FW_VERSION_PATCH(fw)),
            version.substr(0, version.find_first_not_of("0123456789.")));
  EXPECT_EQ(h.reg(ORNIC_REG_CAPS_LO),
            0xfffu | ORNIC_CAP_FLUSH | ORNIC_CAP_ATOMIC_WRITE | ORNIC_CAP_UC | ORNIC_CAP_MW |
                ORNIC_CAP_RESIZE | ORNIC_CAP_MCAST | ORNIC_CAP_XRC | ORNIC_CAP_ODP |
                ORNIC_CAP_CQE_TIMESTAMP | ORNIC_CAP_DB_RECORD | ORNIC_CAP_CC |
                ORNIC_CAP_CQ_DB_RECORD | ORNIC_CAP_ROCE_V1 | ORNIC_CAP_ROCE_VLAN | ORNIC_CAP_DCB);
  EXPECT_EQ(h.reg(ORNIC_REG_CAPS_HI), 0u);
  EXPECT_EQ(h.reg(ORNIC_REG_DEV_CTRL), 0u);
  EXPECT_EQ(h.reg(ORNIC_REG_DEV_STATUS), 0u);
  EXPECT_EQ(h.reg(ORNIC_REG_FATAL_CODE), 0u);
  EXPECT_EQ(h.reg(ORNIC_REG_DB_PAGES), ORNIC_DB_PAGES);
  EXPECT_EQ(h.reg(ORNIC_REG_MSIX_VECTORS), ORNIC_MSIX_VECTORS);
  EXPECT_EQ(h.reg(ORNIC_REG_LINK_STATUS) & ORNIC_LINK_STATUS_UP, ORNIC_LINK_STATUS_UP);
  EXPECT_EQ(h.reg(ORNIC_REG_MAC_LO), 0x00000002u);
  EXPECT_EQ(h.reg(ORNIC_REG_MAC_HI), 0x0100u);
}

TEST(NicRegisters, ScratchAndBadAccessesAreCounted) {
  DriverHarness h;
  h.write_reg(ORNIC_REG_SCRATCH, 0xdeadbeef);
  EXPECT_EQ(h.reg(ORNIC_REG_SCRATCH), 0xdeadbeefu);
  EXPECT_EQ(h.device.bar_read(0, ORNIC_REG_MAGIC, 8), 0u); // wrong size
  EXPECT_EQ(h.device.bar_read(0, 0x2, 4), 0u);             // unaligned
  EXPECT_EQ(h.device.bar_read(0, 0x3000, 4), 0u);          // no register
  h.write_reg(ORNIC_REG_MAGIC, 1);                         // read-only
  EXPECT_EQ(h.counter(ORNIC_CNT_REG_BAD_ACCESS), 4u);
  EXPECT_EQ(h.reg(ORNIC_REG_MAGIC), ORNIC_MAGIC);
}

// SCRATCH_WRITES and BAR2_WRITES count every write received, ignored ones too, so a
// driver can prove none went missing between it and the device.
TEST(NicRegisters, WritesToScratchAndBar2AreCounted) {
  DriverHarness h;
  EXPECT_EQ(h.reg(ORNIC_REG_SCRATCH_WRITES), 0u);
  EXPECT_EQ(h.reg(ORNIC_REG_BAR2_WRITES), 0u);
  for (uint32_t i = 1; i <= 1000; ++i)
    h.write_reg(ORNIC_REG_SCRATCH, i);
  h.write_reg(ORNIC_REG_SCRATCH_WRITES, 7); // read-only: not counted, not taken
  EXPECT_EQ(h.reg(ORNIC_REG_SCRATCH_WRITES), 1000u);
  EXPECT_EQ(h.reg(ORNIC_REG_SCRATCH), 1000u);
  // Disabled device, unallocated page, 64-bit and 32-bit halves, out of range.
  h.device.bar_write(ORNIC_BAR_DOORBELL, 5 * ORNIC_DB_PAGE_SIZE + ORNIC_DB_CQ, 8, 1);
  h.device.bar_write(ORNIC_BAR_DOORBELL, ORNIC_DB_SQ, 4, 2);
  h.device.bar_write(ORNIC_BAR_DOORBELL, ORNIC_DB_SQ + 4, 4, 0);
  h.device.bar_write(ORNIC_BAR_DOORBELL, ORNIC_BAR_DOORBELL_SIZE + 8, 8, 3);
  EXPECT_EQ(h.reg(ORNIC_REG_BAR2_WRITES), 4u);
  EXPECT_EQ(h.reg(ORNIC_REG_SCRATCH_WRITES), 1000u); // doorbells are not registers
  h.write_reg(ORNIC_REG_DEV_CTRL, ORNIC_DEV_CTRL_RESET);
  EXPECT_EQ(h.reg(ORNIC_REG_SCRATCH_WRITES), 0u);
  EXPECT_EQ(h.reg(ORNIC_REG_BAR2_WRITES), 0u);
}

TEST(NicRegisters, EnableWithBadConfigFailsWithoutGoingFatal) {
  DriverHarness h;
  h.write_reg(ORNIC_REG_AQ_DEPTH, 3); // not a power of two, no bases
  h.write_reg(ORNIC_REG_DEV_CTRL, ORNIC_DEV_CTRL_ENABLE);
  EXPECT_EQ(h.reg(ORNIC_REG_DEV_STATUS), ORNIC_DEV_STATUS_ENABLE_FAILED);
  EXPECT_EQ(h.reg(ORNIC_REG_FATAL_CODE), static_cast<uint32_t>(ORNIC_FATAL_BAD_CONFIG));
  EXPECT_TRUE(h.bring_up()); // fixing the registers and enabling again works
  EXPECT_EQ(h.reg(ORNIC_REG_DEV_STATUS), ORNIC_DEV_STATUS_READY);
  EXPECT_EQ(h.reg(ORNIC_REG_FATAL_CODE), 0u);
}

TEST(NicRegisters, ConfigRegistersAreFrozenWhileEnabled) {
  DriverHarness h;
  ASSERT_TRUE(h.bring_up());
  const uint32_t before = h.reg(ORNIC_REG_AQ_SQ_BASE_LO);
  h.write_reg(ORNIC_REG_AQ_SQ_BASE_LO, 0x1000);
  EXPECT_EQ(h.reg(ORNIC_REG_AQ_SQ_BASE_LO), before);
  EXPECT_EQ(h.counter(ORNIC_CNT_REG_BAD_ACCESS), 1u);
}

TEST(NicRegisters, ResetForgetsEverything) {
  DriverHarness h;
  ASSERT_TRUE(h.bring_up());
  const uint32_t pd = h.alloc_pd();
  EXPECT_EQ(pd, 1u);
  h.write_reg(ORNIC_REG_SCRATCH, 5);
  h.write_reg(ORNIC_REG_DEV_CTRL, ORNIC_DEV_CTRL_RESET);
  EXPECT_EQ(h.reg(ORNIC_REG_DEV_STATUS), 0u);
  EXPECT_EQ(h.reg(ORNIC_REG_DEV_CTRL), 0u);
  EXPECT_EQ(h.reg(ORNIC_REG_AQ_DEPTH), 0u);
  EXPECT_EQ(h.reg(ORNIC_REG_SCRATCH), 0u);
  EXPECT_EQ(h.counter(ORNIC_CNT_ADMIN_COMMANDS), 0u);
  // A doorbell while disabled does nothing.
  h.write_reg(ORNIC_REG_AQ_SQ_TAIL, 1);
  h.run_loop();
  ASSERT_TRUE(h.bring_up());
  // Handles start over: the PD table is empty again.
  EXPECT_EQ(h.alloc_pd(), 1u);
  const auto cqe = h.execute(DriverHarness::simple(ORNIC_ADMIN_DEALLOC_PD, 2));
  EXPECT_EQ(cqe.status, ORNIC_ADMIN_STATUS_BAD_HANDLE);
}

TEST(NicRegisters, PciResetAndDisableActLikeDeviceReset) {
  DriverHarness h;
  ASSERT_TRUE(h.bring_up());
  h.device.reset();
  EXPECT_EQ(h.reg(ORNIC_REG_DEV_STATUS), 0u);
  ASSERT_TRUE(h.bring_up());
  h.write_reg(ORNIC_REG_DEV_CTRL, 0);
  EXPECT_EQ(h.reg(ORNIC_REG_DEV_STATUS), 0u);
  EXPECT_EQ(h.reg(ORNIC_REG_AQ_DEPTH), 0u);
}

TEST(NicRegisters, CommandsPostedBeforeResetNeverComplete) {
  DriverHarness h;
  ASSERT_TRUE(h.bring_up());
  h.submit(DriverHarness::simple(ORNIC_ADMIN_ALLOC_PD));
  h.ring_admin(); // work is posted to the loop, not yet run
  const auto cq = h.aq_cq;
  h.write_reg(ORNIC_REG_DEV_CTRL, ORNIC_DEV_CTRL_RESET);
  h.run_loop();
  EXPECT_EQ(h.read<ornic_admin_cqe>(cq).flags, 0);
  EXPECT_TRUE(h.irqs.raised().empty());
}

} // namespace
} // namespace ornic::test
