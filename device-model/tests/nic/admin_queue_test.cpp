// The admin queue protocol end to end (admin.rst): phase bits across wraps, many
// commands in flight, bounded batches, vector 0, fatal driver errors.
#include <gtest/gtest.h>

#include "driver_harness.hpp"

namespace ornic::test {
namespace {

TEST(NicAdminQueue, QueryDeviceReportsTheLimits) {
  DriverHarness h;
  ASSERT_TRUE(h.bring_up());
  const uint64_t buffer = h.alloc(sizeof(ornic_device_attr));
  ornic_admin_query query{};
  query.hdr.opcode = ORNIC_ADMIN_QUERY_DEVICE;
  query.resp_addr = to_le(buffer);
  query.resp_len = to_le<uint32_t>(sizeof(ornic_device_attr));
  const auto cqe = h.execute(DriverHarness::as_sqe(query));
  ASSERT_EQ(cqe.status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(le(cqe.result0), sizeof(ornic_device_attr));
  EXPECT_EQ(cqe.flags & ORNIC_AQ_CQE_FLAG_PHASE, 1);
  EXPECT_EQ(le(cqe.sq_head), 1);
  const auto attr = h.read<ornic_device_attr>(buffer);
  EXPECT_EQ(le(attr.spec_version), 0x00010000u);
  EXPECT_EQ(le(attr.max_qp), 1u << 20); // at least rxe's (identity.rst, "Object limits")
  EXPECT_EQ(le(attr.max_mr), (1u << 19) - 1);
  EXPECT_EQ(le(attr.max_ah), 1u << 15);
  EXPECT_EQ(le(attr.max_cqe), 65536u);
  EXPECT_EQ(le(attr.max_eq), 32u);
  EXPECT_EQ(le(attr.num_comp_vectors), 31u);
  EXPECT_EQ(le(attr.max_inline_data), 256u);
  EXPECT_EQ(attr.num_ports, 1);
  EXPECT_EQ(le(attr.caps), 0xfffu | ORNIC_CAP_FLUSH | ORNIC_CAP_ATOMIC_WRITE | ORNIC_CAP_UC |
                               ORNIC_CAP_MW | ORNIC_CAP_RESIZE | ORNIC_CAP_MCAST | ORNIC_CAP_XRC |
                               ORNIC_CAP_ODP | ORNIC_CAP_CQE_TIMESTAMP | ORNIC_CAP_DB_RECORD |
                               ORNIC_CAP_CC | ORNIC_CAP_CQ_DB_RECORD | ORNIC_CAP_ROCE_V1 |
                               ORNIC_CAP_ROCE_VLAN | ORNIC_CAP_DCB);
  EXPECT_EQ(le(attr.max_fast_reg_pages), 512u);
  EXPECT_EQ(h.irqs.count(ORNIC_MSIX_VECTOR_ADMIN), 1u);
}

TEST(NicAdminQueue, QueryPortReportsLinkAndMac) {
  DriverHarness h;
  ASSERT_TRUE(h.bring_up());
  const uint64_t buffer = h.alloc(sizeof(ornic_port_attr));
  ornic_admin_query query{};
  query.hdr.opcode = ORNIC_ADMIN_QUERY_PORT;
  query.resp_addr = to_le(buffer);
  query.resp_len = to_le<uint32_t>(4096); // larger than needed is fine
  ASSERT_EQ(h.execute(DriverHarness::as_sqe(query)).status, ORNIC_ADMIN_STATUS_SUCCESS);
  const auto attr = h.read<ornic_port_attr>(buffer);
  EXPECT_EQ(attr.state, ORNIC_PORT_ACTIVE);
  EXPECT_EQ(attr.active_mtu, ORNIC_MTU_1024); // 1500-byte Ethernet MTU
  EXPECT_EQ(le(attr.eth_mtu), 1500u);
  EXPECT_EQ(attr.mac[5], 0x01);
}

TEST(NicAdminQueue, PhaseBitFlipsOnEveryWrap) {
  DriverHarness h;
  ASSERT_TRUE(h.bring_up(4));
  for (uint32_t i = 0; i < 21; ++i) {
    const uint16_t id = h.submit(DriverHarness::simple(ORNIC_ADMIN_ALLOC_PD));
    h.ring_admin();
    h.run_loop();
    const auto cqe = h.poll_admin();
    ASSERT_TRUE(cqe) << "command " << i;
    EXPECT_EQ(le(cqe->command_id), id);
    EXPECT_EQ(cqe->flags & ORNIC_AQ_CQE_FLAG_PHASE, expected_phase(i, 4));
    EXPECT_EQ(le(cqe->result0), i + 1); // PDN
    EXPECT_FALSE(h.poll_admin());
  }
}

TEST(NicAdminQueue, ManyCommandsInFlightCompleteInBoundedBatches) {
  DriverHarness h;
  ASSERT_TRUE(h.bring_up(64));
  std::vector<uint16_t> ids;
  for (int i = 0; i < 64; ++i)
    ids.push_back(h.submit(DriverHarness::simple(ORNIC_ADMIN_ALLOC_PD)));
  h.ring_admin();
  // One loop turn does one bounded batch, so the vfio-user socket is served in between.
  ASSERT_TRUE(h.loop.run_once(std::chrono::milliseconds(0)));
  EXPECT_EQ(h.reg(ORNIC_REG_AQ_SQ_HEAD), 16u);
  h.run_loop();
  EXPECT_EQ(h.reg(ORNIC_REG_AQ_SQ_HEAD), 64u);
  for (int i = 0; i < 64; ++i) {
    const auto cqe = h.poll_admin();
    ASSERT_TRUE(cqe);
    EXPECT_EQ(le(cqe->command_id), ids[i]);
    EXPECT_EQ(cqe->status, ORNIC_ADMIN_STATUS_SUCCESS);
  }
  EXPECT_EQ(h.irqs.count(ORNIC_MSIX_VECTOR_ADMIN), 4u); // one per batch
  EXPECT_EQ(h.counter(ORNIC_CNT_ADMIN_COMMANDS), 64u);
}

TEST(NicAdminQueue, TailBeyondDepthIsFatal) {
  DriverHarness h;
  ASSERT_TRUE(h.bring_up(8));
  h.write_reg(ORNIC_REG_AQ_SQ_TAIL, 9);
  EXPECT_EQ(h.reg(ORNIC_REG_DEV_STATUS) & ORNIC_DEV_STATUS_FATAL, ORNIC_DEV_STATUS_FATAL);
  EXPECT_EQ(h.reg(ORNIC_REG_DEV_STATUS) & ORNIC_DEV_STATUS_READY, 0u);
  EXPECT_EQ(h.reg(ORNIC_REG_FATAL_CODE), static_cast<uint32_t>(ORNIC_FATAL_AQ_BAD_TAIL));
  const auto event = h.poll_async_event();
  ASSERT_TRUE(event);
  EXPECT_EQ(event->type, ORNIC_EQE_DEVICE_FATAL);
  EXPECT_GE(h.irqs.count(ORNIC_MSIX_VECTOR_ADMIN), 1u);
  // Only a reset brings it back.
  h.write_reg(ORNIC_REG_DEV_CTRL, ORNIC_DEV_CTRL_RESET);
  EXPECT_TRUE(h.bring_up(8));
  EXPECT_EQ(h.alloc_pd(), 1u);
}

TEST(NicAdminQueue, UnreadableSubmissionRingIsFatal) {
  DriverHarness h;
  ASSERT_TRUE(h.bring_up(8));
  h.submit(DriverHarness::simple(ORNIC_ADMIN_ALLOC_PD));
  h.memory.set_fail_reads(true);
  h.ring_admin();
  h.run_loop();
  h.memory.set_fail_reads(false);
  EXPECT_EQ(h.reg(ORNIC_REG_FATAL_CODE), static_cast<uint32_t>(ORNIC_FATAL_AQ_DMA));
  EXPECT_EQ(h.reg(ORNIC_REG_DEV_STATUS) & ORNIC_DEV_STATUS_FATAL, ORNIC_DEV_STATUS_FATAL);
}

} // namespace
} // namespace ornic::test
