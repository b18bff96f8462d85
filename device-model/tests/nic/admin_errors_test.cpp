// Every class of bad admin command is answered with the spec's status code, changes
// nothing, is counted, and the next command still works (admin.rst, errors.rst).
#include <gtest/gtest.h>

#include "driver_harness.hpp"

namespace ornic::test {
namespace {

class NicAdminErrors : public ::testing::Test {
protected:
  void SetUp() override { ASSERT_TRUE(h.bring_up(32)); }

  // The command fails with `status` and an ALLOC_PD right after it succeeds.
  void expect_status(const ornic_admin_sqe& command, ornic_admin_status status) {
    const auto cqe = h.execute(command);
    EXPECT_EQ(cqe.status, status);
    EXPECT_EQ(cqe.result0, 0u);
    const auto next = h.execute(DriverHarness::simple(ORNIC_ADMIN_ALLOC_PD));
    EXPECT_EQ(next.status, ORNIC_ADMIN_STATUS_SUCCESS);
  }

  ornic_admin_create_cq cq_command(uint32_t eqn) {
    ornic_admin_create_cq c{};
    c.hdr.opcode = ORNIC_ADMIN_CREATE_CQ;
    c.mem = h.contiguous_ring(4096);
    c.log_depth = 7;
    c.eqn = to_le(eqn);
    return c;
  }

  DriverHarness h;
};

TEST_F(NicAdminErrors, UnknownOpcode) {
  expect_status(DriverHarness::simple(0xee), ORNIC_ADMIN_STATUS_BAD_OPCODE);
  EXPECT_EQ(h.counter(ORNIC_CNT_ADMIN_BAD_OPCODE), 1u);
  EXPECT_EQ(h.counter(ORNIC_CNT_ADMIN_ERRORS), 1u);
}

TEST_F(NicAdminErrors, ReservedBitsInHeaderAndBody) {
  auto command = DriverHarness::simple(ORNIC_ADMIN_ALLOC_PD);
  command.hdr.flags = 1;
  expect_status(command, ORNIC_ADMIN_STATUS_BAD_FIELD);
  command = DriverHarness::simple(ORNIC_ADMIN_ALLOC_PD);
  command.body[55] = 1;
  expect_status(command, ORNIC_ADMIN_STATUS_BAD_FIELD);
  const uint32_t eqn = h.create_eq();
  auto cq = cq_command(eqn);
  cq.reserved1[3] = 1;
  expect_status(DriverHarness::as_sqe(cq), ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_EQ(h.counter(ORNIC_CNT_ADMIN_BAD_FIELD), 3u);
}

TEST_F(NicAdminErrors, HandlesThatNameNothing) {
  expect_status(DriverHarness::simple(ORNIC_ADMIN_DEALLOC_PD, 77), ORNIC_ADMIN_STATUS_BAD_HANDLE);
  expect_status(DriverHarness::simple(ORNIC_ADMIN_DESTROY_CQ, 0), ORNIC_ADMIN_STATUS_BAD_HANDLE);
  expect_status(DriverHarness::simple(ORNIC_ADMIN_DESTROY_EQ, 0), ORNIC_ADMIN_STATUS_BAD_HANDLE);
  expect_status(DriverHarness::simple(ORNIC_ADMIN_DEREG_MR, 0x1ff), ORNIC_ADMIN_STATUS_BAD_HANDLE);
  expect_status(DriverHarness::simple(ORNIC_ADMIN_FREE_DB_PAGE, 0), ORNIC_ADMIN_STATUS_BAD_HANDLE);
  expect_status(DriverHarness::as_sqe(cq_command(9)), ORNIC_ADMIN_STATUS_BAD_HANDLE);
  EXPECT_EQ(h.counter(ORNIC_CNT_ADMIN_BAD_HANDLE), 6u);
}

TEST_F(NicAdminErrors, SizesAboveDeviceLimits) {
  const uint32_t eqn = h.create_eq();
  auto cq = cq_command(eqn);
  cq.log_depth = 17;
  expect_status(DriverHarness::as_sqe(cq), ORNIC_ADMIN_STATUS_LIMIT_EXCEEDED);
  EXPECT_EQ(h.counter(ORNIC_CNT_ADMIN_NO_RESOURCES), 1u);
}

TEST_F(NicAdminErrors, RingTooSmallForItsDepth) {
  const uint32_t eqn = h.create_eq();
  auto cq = cq_command(eqn);
  cq.log_depth = 8; // 256 * 32 bytes = 8 KiB, but only one 4 KiB page
  expect_status(DriverHarness::as_sqe(cq), ORNIC_ADMIN_STATUS_BAD_FIELD);
}

TEST_F(NicAdminErrors, TablesRunFull) {
  constexpr uint32_t kPds = 64;
  h.device.set_object_limits({.pd = kPds});
  for (uint32_t i = 0; i < kPds; ++i)
    ASSERT_EQ(h.execute(DriverHarness::simple(ORNIC_ADMIN_ALLOC_PD)).status,
              ORNIC_ADMIN_STATUS_SUCCESS);
  const auto cqe = h.execute(DriverHarness::simple(ORNIC_ADMIN_ALLOC_PD));
  EXPECT_EQ(cqe.status, ORNIC_ADMIN_STATUS_NO_RESOURCES);
  EXPECT_EQ(h.execute(DriverHarness::simple(ORNIC_ADMIN_DEALLOC_PD, 5)).status,
            ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(h.execute(DriverHarness::simple(ORNIC_ADMIN_ALLOC_PD)).status,
            ORNIC_ADMIN_STATUS_SUCCESS);
}

TEST_F(NicAdminErrors, DestroyingObjectsStillInUse) {
  const uint32_t eqn = h.create_eq();
  const uint32_t cqn = h.create_cq(eqn);
  const uint32_t pd = h.alloc_pd();
  const uint32_t qpn = h.create_qp(pd, cqn);
  expect_status(DriverHarness::simple(ORNIC_ADMIN_DESTROY_EQ, eqn), ORNIC_ADMIN_STATUS_BUSY);
  expect_status(DriverHarness::simple(ORNIC_ADMIN_DESTROY_CQ, cqn), ORNIC_ADMIN_STATUS_BUSY);
  expect_status(DriverHarness::simple(ORNIC_ADMIN_DEALLOC_PD, pd), ORNIC_ADMIN_STATUS_BUSY);
  EXPECT_EQ(h.execute(DriverHarness::simple(ORNIC_ADMIN_DESTROY_QP, qpn)).status,
            ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(h.execute(DriverHarness::simple(ORNIC_ADMIN_DESTROY_CQ, cqn)).status,
            ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(h.execute(DriverHarness::simple(ORNIC_ADMIN_DESTROY_EQ, eqn)).status,
            ORNIC_ADMIN_STATUS_SUCCESS);
}

TEST_F(NicAdminErrors, UnreachableResponseBuffer) {
  ornic_admin_query query{};
  query.hdr.opcode = ORNIC_ADMIN_QUERY_DEVICE;
  query.resp_addr = to_le<uint64_t>(0x1000); // not guest memory
  query.resp_len = to_le<uint32_t>(sizeof(ornic_device_attr));
  expect_status(DriverHarness::as_sqe(query), ORNIC_ADMIN_STATUS_BAD_DMA);
  query.resp_addr = to_le(h.alloc(4096));
  query.resp_len = to_le<uint32_t>(16); // too short
  expect_status(DriverHarness::as_sqe(query), ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_EQ(h.counter(ORNIC_CNT_ADMIN_BAD_DMA), 1u);
}

TEST_F(NicAdminErrors, UnreadablePageList) {
  const uint32_t eqn = h.create_eq();
  auto cq = cq_command(eqn);
  cq.mem.mode = ORNIC_MEM_MODE_DIRECT;
  cq.mem.addr = to_le<uint64_t>(0xfffffffffffff000ull);
  expect_status(DriverHarness::as_sqe(cq), ORNIC_ADMIN_STATUS_BAD_DMA);
}

TEST_F(NicAdminErrors, MisalignedMemory) {
  const uint32_t eqn = h.create_eq();
  auto cq = cq_command(eqn);
  cq.mem.addr = to_le(le(cq.mem.addr) + 8);
  expect_status(DriverHarness::as_sqe(cq), ORNIC_ADMIN_STATUS_BAD_ALIGNMENT);
  // A DIRECT list entry that is not page aligned.
  const uint64_t list = h.alloc(4096);
  h.write<uint64_t>(list, to_le(h.alloc(8192) + 512));
  cq = cq_command(eqn);
  cq.mem.mode = ORNIC_MEM_MODE_DIRECT;
  cq.mem.addr = to_le(list);
  expect_status(DriverHarness::as_sqe(cq), ORNIC_ADMIN_STATUS_BAD_ALIGNMENT);
}

TEST_F(NicAdminErrors, DoorbellPageNotAllocated) {
  const uint32_t eqn = h.create_eq();
  auto cq = cq_command(eqn);
  cq.db_page = to_le<uint16_t>(3);
  expect_status(DriverHarness::as_sqe(cq), ORNIC_ADMIN_STATUS_PERMISSION);
}

TEST_F(NicAdminErrors, IllegalQpTransition) {
  const uint32_t eqn = h.create_eq();
  const uint32_t qpn = h.create_qp(h.alloc_pd(), h.create_cq(eqn));
  ornic_qp_attr attr{};
  attr.state = ORNIC_QPS_RTS;
  EXPECT_EQ(h.modify_qp(qpn, attr, ORNIC_QP_ATTR_STATE).status, ORNIC_ADMIN_STATUS_BAD_STATE);
  attr.state = 9;
  EXPECT_EQ(h.modify_qp(qpn, attr, ORNIC_QP_ATTR_STATE).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
}

TEST_F(NicAdminErrors, FailedCommandsChangeNothing) {
  // A CQ create that fails late (bad page list) must not consume a CQN.
  const uint32_t eqn = h.create_eq();
  auto bad = cq_command(eqn);
  bad.mem.mode = 7;
  expect_status(DriverHarness::as_sqe(bad), ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_EQ(h.create_cq(eqn), 1u);
}

TEST_F(NicAdminErrors, QpCommandFieldRules) {
  const uint32_t eqn = h.create_eq();
  const uint32_t cqn = h.create_cq(eqn);
  const uint32_t pd = h.alloc_pd();
  ornic_admin_create_qp qp{};
  qp.hdr.opcode = ORNIC_ADMIN_CREATE_QP;
  qp.sq_mem = h.contiguous_ring(4096);
  qp.rq_mem = h.contiguous_ring(4096);
  qp.pd = to_le(pd);
  qp.send_cqn = qp.recv_cqn = to_le(cqn);
  qp.qp_type = ORNIC_QPT_RC;
  qp.sq_log_depth = qp.rq_log_depth = 6;
  auto bad = qp;
  bad.qp_type = 0xfa;
  expect_status(DriverHarness::as_sqe(bad), ORNIC_ADMIN_STATUS_BAD_FIELD);
  bad = qp;
  bad.flags = ORNIC_QP_FLAG_USE_SRQ; // with an RQ described
  expect_status(DriverHarness::as_sqe(bad), ORNIC_ADMIN_STATUS_BAD_FIELD);
  bad = qp;
  bad.sq_log_depth = 15;
  expect_status(DriverHarness::as_sqe(bad), ORNIC_ADMIN_STATUS_LIMIT_EXCEEDED);
  bad = qp;
  bad.qp_type = ORNIC_QPT_GSI;
  bad.db_page = to_le<uint16_t>(1);
  expect_status(DriverHarness::as_sqe(bad), ORNIC_ADMIN_STATUS_PERMISSION);
  const auto created = h.execute(DriverHarness::as_sqe(qp));
  ASSERT_EQ(created.status, ORNIC_ADMIN_STATUS_SUCCESS);

  // MODIFY with a stale cur_state, QUERY with a mask, and an unreadable attribute buffer.
  const uint64_t buffer = h.alloc(sizeof(ornic_qp_attr));
  ornic_admin_modify_qp modify{};
  modify.hdr.opcode = ORNIC_ADMIN_MODIFY_QP;
  modify.attr_addr = to_le(buffer);
  modify.attr_len = to_le<uint32_t>(sizeof(ornic_qp_attr));
  modify.qpn = created.result0;
  modify.flags = ORNIC_MODIFY_QP_FLAG_CUR_STATE;
  modify.cur_state = ORNIC_QPS_RTS;
  expect_status(DriverHarness::as_sqe(modify), ORNIC_ADMIN_STATUS_BAD_STATE);
  modify.flags = 0;
  modify.cur_state = 0;
  modify.attr_len = to_le<uint32_t>(64);
  expect_status(DriverHarness::as_sqe(modify), ORNIC_ADMIN_STATUS_BAD_FIELD);
  modify.attr_len = to_le<uint32_t>(sizeof(ornic_qp_attr));
  modify.attr_addr = to_le<uint64_t>(0x10);
  expect_status(DriverHarness::as_sqe(modify), ORNIC_ADMIN_STATUS_BAD_DMA);
  auto query = modify;
  query.hdr.opcode = ORNIC_ADMIN_QUERY_QP;
  query.attr_addr = to_le(buffer);
  query.attr_mask = to_le(ORNIC_QP_ATTR_STATE);
  expect_status(DriverHarness::as_sqe(query), ORNIC_ADMIN_STATUS_BAD_FIELD);
}

} // namespace
} // namespace ornic::test
