// Event queue corner cases (events.rst, registers.rst AEQ_DB): overflow, the async EQ's
// 16-bit consumer index, interrupts only when armed.
#include <gtest/gtest.h>

#include "driver_harness.hpp"

namespace ornic::test {
namespace {

TEST(NicEvents, AsyncEqInterruptsOnlyWhenArmed) {
  DriverHarness h;
  ASSERT_TRUE(h.bring_up(8, 4)); // bring_up arms the async EQ once
  h.irqs.clear();
  h.port.set_link(false); // event 0: interrupt, disarms
  h.port.set_link(true);  // event 1: no interrupt
  EXPECT_EQ(h.irqs.count(ORNIC_MSIX_VECTOR_ADMIN), 1u);
  ASSERT_TRUE(h.poll_async_event());
  ASSERT_TRUE(h.poll_async_event());
  // Re-arm with one event still unread: the device interrupts at once.
  h.write_reg(ORNIC_REG_AEQ_DB, 1 | ORNIC_AEQ_DB_ARM);
  EXPECT_EQ(h.irqs.count(ORNIC_MSIX_VECTOR_ADMIN), 2u);
  h.write_reg(ORNIC_REG_AEQ_DB, 2 | ORNIC_AEQ_DB_ARM);
  EXPECT_EQ(h.irqs.count(ORNIC_MSIX_VECTOR_ADMIN), 2u);
  // An index past what the device produced is refused.
  h.write_reg(ORNIC_REG_AEQ_DB, 5);
  EXPECT_EQ(h.counter(ORNIC_CNT_DB_BAD_INDEX), 1u);
}

TEST(NicEvents, FullEqDropsAndCounts) {
  DriverHarness h;
  ASSERT_TRUE(h.bring_up(8, 2));
  for (int i = 0; i < 3; ++i)
    h.port.set_link(i % 2 == 1);
  EXPECT_EQ(h.counter(ORNIC_CNT_EQES), 2u);
  EXPECT_EQ(h.counter(ORNIC_CNT_EQ_OVERFLOW), 1u);
  // Consuming makes room again, and the 16-bit index wraps correctly past 2^16.
  h.write_reg(ORNIC_REG_AEQ_DB, 2);
  for (uint32_t i = 0; i < 70000; ++i) {
    h.port.set_link(i % 2 == 0);
    h.write_reg(ORNIC_REG_AEQ_DB, (3 + i) & ORNIC_AEQ_DB_INDEX_MASK);
  }
  EXPECT_EQ(h.counter(ORNIC_CNT_EQ_OVERFLOW), 1u);
  EXPECT_EQ(h.counter(ORNIC_CNT_DB_BAD_INDEX), 0u);
}

TEST(NicEvents, RxDmaFailureCompletesDescriptorInError) {
  DriverHarness h;
  ASSERT_TRUE(h.bring_up(16));
  uint64_t cq_ring = 0, rx_ring = 0;
  const uint32_t cqn = h.create_cq(h.create_eq(), 4, 0, &cq_ring);
  ornic_admin_create_eth_ring c{};
  c.hdr.opcode = ORNIC_ADMIN_ETH_CREATE_RX_RING;
  c.mem = h.contiguous_ring(4096);
  rx_ring = le(c.mem.addr);
  c.log_depth = 4;
  c.cqn = to_le(cqn);
  const uint32_t rx = le(h.execute(DriverHarness::as_sqe(c)).result0);
  ornic_eth_rx_desc desc{};
  desc.addr = to_le<uint64_t>(0x1000); // outside guest memory
  desc.length = to_le<uint16_t>(2048);
  h.write(rx_ring, desc);
  h.doorbell(0, ORNIC_DB_ETH_RX, ORNIC_DB_VALUE(rx, 0, 1));
  std::vector<std::byte> frame(64, std::byte{0xff});
  h.port.deliver(frame);
  const auto cqe = h.read<ornic_cqe>(cq_ring);
  EXPECT_EQ(cqe.owner & ORNIC_CQE_OWNER_PHASE, 1);
  EXPECT_EQ(cqe.status, ORNIC_CQE_GENERAL_ERR);
  EXPECT_EQ(cqe.vendor_err, ORNIC_VERR_DMA);
  EXPECT_EQ(h.counter(ORNIC_CNT_ETH_RX_ERRORS), 1u);
  EXPECT_EQ(h.counter(ORNIC_CNT_DMA_ERRORS), 1u);
}

} // namespace
} // namespace ornic::test
