// Object creation end to end: EQs, CQs, MRs with every page-list mode, QPs through the
// state machine, SRQs, AHs, GIDs (admin.rst, memory.rst, qp.rst).
#include <gtest/gtest.h>

#include "driver_harness.hpp"

namespace ornic::test {
namespace {

constexpr std::array<uint8_t, 16> kIpv4Gid = {0, 0, 0,    0,    0,  0, 0, 0,
                                              0, 0, 0xff, 0xff, 10, 0, 0, 1};

class NicObjects : public ::testing::Test {
protected:
  void SetUp() override { ASSERT_TRUE(h.bring_up(32)); }

  ornic_admin_cqe reg_mr(uint32_t pd, uint64_t iova, uint64_t length, ornic_mem_desc mem,
                         uint32_t access = ORNIC_ACCESS_LOCAL_WRITE, uint8_t variant = 0x5a,
                         uint32_t first_page_offset = 0, uint8_t flags = 0) {
    ornic_admin_reg_mr c{};
    c.hdr.opcode = ORNIC_ADMIN_REG_MR;
    c.mem = mem;
    c.iova = to_le(iova);
    c.length = to_le(length);
    c.pd = to_le(pd);
    c.access = to_le(access);
    c.key_variant = variant;
    c.flags = flags;
    c.first_page_offset = to_le(first_page_offset);
    return h.execute(DriverHarness::as_sqe(c));
  }

  DriverHarness h;
};

TEST_F(NicObjects, MemoryRegionDirectPageList) {
  const uint32_t pd = h.alloc_pd();
  const uint64_t list = h.alloc(4096);
  for (int i = 0; i < 3; ++i)
    h.write<uint64_t>(list + 8 * i, to_le(h.alloc(4096)));
  ornic_mem_desc mem{};
  mem.addr = to_le(list);
  mem.num_pages = to_le(3u);
  mem.page_shift = 12;
  mem.mode = ORNIC_MEM_MODE_DIRECT;
  const auto cqe = reg_mr(pd, 0x7f0000001100ull, 3 * 4096 - 0x100, mem,
                          ORNIC_ACCESS_LOCAL_WRITE | ORNIC_ACCESS_REMOTE_WRITE, 0x5a, 0x100);
  ASSERT_EQ(cqe.status, ORNIC_ADMIN_STATUS_SUCCESS);
  const uint32_t key = le(cqe.result0);
  EXPECT_EQ(key >> 8, 1u); // the variant is the device's own (KeyVariants.*)
  // Wrong variant: the stale-key protection.
  EXPECT_EQ(h.execute(DriverHarness::simple(ORNIC_ADMIN_DEREG_MR, key ^ 1)).status,
            ORNIC_ADMIN_STATUS_BAD_HANDLE);
  EXPECT_EQ(h.execute(DriverHarness::simple(ORNIC_ADMIN_DEREG_MR, key)).status,
            ORNIC_ADMIN_STATUS_SUCCESS);
}

TEST_F(NicObjects, MemoryRegionIndirectPageList) {
  const uint32_t pd = h.alloc_pd();
  const uint32_t pages = 600; // more than one pointer page
  const uint64_t data = h.alloc(size_t{pages} * 4096);
  const uint64_t pointers = h.alloc(4096);
  const uint64_t pointer_pages[2] = {h.alloc(4096), h.alloc(4096)};
  for (uint32_t i = 0; i < pages; ++i)
    h.write<uint64_t>(pointer_pages[i / 512] + 8 * (i % 512), to_le(data + uint64_t{i} * 4096));
  h.write<uint64_t>(pointers, to_le(pointer_pages[0]));
  h.write<uint64_t>(pointers + 8, to_le(pointer_pages[1]));
  ornic_mem_desc mem{};
  mem.addr = to_le(pointers);
  mem.num_pages = to_le(pages);
  mem.page_shift = 12;
  mem.mode = ORNIC_MEM_MODE_INDIRECT;
  EXPECT_EQ(reg_mr(pd, 0x10000, uint64_t{pages} * 4096, mem).status, ORNIC_ADMIN_STATUS_SUCCESS);
  // Page count that does not match the length.
  mem.num_pages = to_le(pages - 1);
  EXPECT_EQ(reg_mr(pd, 0x10000, uint64_t{pages} * 4096, mem).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
}

TEST_F(NicObjects, MemoryRegionAccessRules) {
  const uint32_t pd = h.alloc_pd();
  ornic_mem_desc mem{};
  mem.addr = to_le(h.alloc(4096));
  mem.num_pages = to_le(1u);
  mem.page_shift = 12;
  // Remote write without local write is refused (IB rule).
  EXPECT_EQ(reg_mr(pd, 0, 4096, mem, ORNIC_ACCESS_REMOTE_WRITE).status,
            ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_EQ(reg_mr(pd, 0, 4096, mem, 0x400).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  // FLUSH rights (bits 8, 9) need no other right.
  EXPECT_EQ(reg_mr(pd, 0, 4096, mem, ORNIC_ACCESS_FLUSH_GLOBAL).status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(reg_mr(pd, 0, 4096, mem, ORNIC_ACCESS_FLUSH).status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(reg_mr(pd, 0, 0, mem).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_EQ(reg_mr(pd, ~0ull - 10, 4096, mem).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_EQ(reg_mr(pd + 1, 0, 4096, mem).status, ORNIC_ADMIN_STATUS_BAD_HANDLE);
  // Physical MR: no page list, no remote access.
  EXPECT_EQ(
      reg_mr(pd, 0, ~0ull, ornic_mem_desc{}, ORNIC_ACCESS_LOCAL_WRITE, 0, 0, ORNIC_MR_FLAG_PHYSICAL)
          .status,
      ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(
      reg_mr(pd, 0, ~0ull, ornic_mem_desc{}, ORNIC_ACCESS_ALL, 0, 0, ORNIC_MR_FLAG_PHYSICAL).status,
      ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_EQ(reg_mr(pd, 0, ~0ull, ornic_mem_desc{}, ORNIC_ACCESS_FLUSH_GLOBAL, 0, 0,
                   ORNIC_MR_FLAG_PHYSICAL)
                .status,
            ORNIC_ADMIN_STATUS_BAD_FIELD);
}

TEST_F(NicObjects, RcQueuePairWalksTheStateMachine) {
  const uint32_t cqn = h.create_cq(h.create_eq());
  const uint32_t qpn = h.create_qp(h.alloc_pd(), cqn);
  EXPECT_GE(qpn, 2u);
  ASSERT_EQ(h.add_gid(0, kIpv4Gid).status, ORNIC_ADMIN_STATUS_SUCCESS);

  ornic_qp_attr attr{};
  attr.state = ORNIC_QPS_INIT;
  attr.access_flags = to_le(ORNIC_ACCESS_REMOTE_WRITE);
  // Missing the required PKEY_INDEX.
  EXPECT_EQ(h.modify_qp(qpn, attr, ORNIC_QP_ATTR_STATE | ORNIC_QP_ATTR_ACCESS_FLAGS).status,
            ORNIC_ADMIN_STATUS_BAD_FIELD);
  auto cqe = h.modify_qp(
      qpn, attr, ORNIC_QP_ATTR_STATE | ORNIC_QP_ATTR_ACCESS_FLAGS | ORNIC_QP_ATTR_PKEY_INDEX);
  ASSERT_EQ(cqe.status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(le(cqe.result0), static_cast<uint32_t>(ORNIC_QPS_INIT));

  attr.state = ORNIC_QPS_RTR;
  attr.path_mtu = ORNIC_MTU_1024;
  attr.dest_qpn = to_le(0x123u);
  attr.rq_psn = to_le(0x456u);
  attr.max_dest_rd_atomic = 4;
  attr.min_rnr_timer = 12;
  attr.sgid_index = 0;
  const uint32_t rtr_mask = ORNIC_QP_ATTR_STATE | ORNIC_QP_ATTR_AV | ORNIC_QP_ATTR_PATH_MTU |
                            ORNIC_QP_ATTR_DEST_QPN | ORNIC_QP_ATTR_RQ_PSN |
                            ORNIC_QP_ATTR_MAX_DEST_RD_ATOMIC | ORNIC_QP_ATTR_MIN_RNR_TIMER;
  // A path MTU above the port's active MTU (1024 at a 1500 Ethernet MTU).
  attr.path_mtu = ORNIC_MTU_4096;
  EXPECT_EQ(h.modify_qp(qpn, attr, rtr_mask).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  attr.path_mtu = ORNIC_MTU_1024;
  // An InfiniBand address on an Ethernet port (infiniband.rst, "Address vectors").
  attr.dlid = to_le<uint16_t>(5);
  EXPECT_EQ(h.modify_qp(qpn, attr, rtr_mask).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  attr.dlid = 0;
  ASSERT_EQ(h.modify_qp(qpn, attr, rtr_mask).status, ORNIC_ADMIN_STATUS_SUCCESS);

  attr.state = ORNIC_QPS_RTS;
  attr.sq_psn = to_le(0x789u);
  attr.timeout = 14;
  attr.retry_cnt = 7;
  attr.rnr_retry = 7;
  attr.max_rd_atomic = 4;
  ASSERT_EQ(h.modify_qp(qpn, attr,
                        ORNIC_QP_ATTR_STATE | ORNIC_QP_ATTR_SQ_PSN | ORNIC_QP_ATTR_TIMEOUT |
                            ORNIC_QP_ATTR_RETRY_CNT | ORNIC_QP_ATTR_RNR_RETRY |
                            ORNIC_QP_ATTR_MAX_QP_RD_ATOMIC)
                .status,
            ORNIC_ADMIN_STATUS_SUCCESS);

  const uint64_t out = h.alloc(sizeof(ornic_qp_attr));
  ornic_admin_modify_qp query{};
  query.hdr.opcode = ORNIC_ADMIN_QUERY_QP;
  query.attr_addr = to_le(out);
  query.attr_len = to_le<uint32_t>(sizeof(ornic_qp_attr));
  query.qpn = to_le(qpn);
  cqe = h.execute(DriverHarness::as_sqe(query));
  ASSERT_EQ(cqe.status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(le(cqe.result1), static_cast<uint32_t>(ORNIC_QPS_RTS));
  const auto got = h.read<ornic_qp_attr>(out);
  EXPECT_EQ(got.state, ORNIC_QPS_RTS);
  EXPECT_EQ(le(got.dest_qpn), 0x123u);
  EXPECT_EQ(le(got.sq_psn), 0x789u);
  EXPECT_EQ(got.path_mtu, ORNIC_MTU_1024);

  // RTS -> SQD with notification, then back.
  attr.state = ORNIC_QPS_SQD;
  attr.en_sqd_async_notify = 1;
  ASSERT_EQ(h.modify_qp(qpn, attr, ORNIC_QP_ATTR_STATE | ORNIC_QP_ATTR_EN_SQD_ASYNC_NOTIFY).status,
            ORNIC_ADMIN_STATUS_SUCCESS);
  const auto event = h.poll_async_event();
  ASSERT_TRUE(event);
  EXPECT_EQ(event->type, ORNIC_EQE_QP_SQ_DRAINED);
  EXPECT_EQ(le(event->object), qpn);
  attr.state = ORNIC_QPS_RTS;
  EXPECT_EQ(h.modify_qp(qpn, attr, ORNIC_QP_ATTR_STATE).status, ORNIC_ADMIN_STATUS_SUCCESS);
}

TEST_F(NicObjects, UdAndGsiQueuePairs) {
  const uint32_t cqn = h.create_cq(h.create_eq());
  const uint32_t pd = h.alloc_pd();
  EXPECT_EQ(h.create_qp(pd, cqn, ORNIC_QPT_GSI), uint32_t{ORNIC_QPN_GSI});
  const uint32_t ud = h.create_qp(pd, cqn, ORNIC_QPT_UD);
  ornic_qp_attr attr{};
  attr.state = ORNIC_QPS_INIT;
  attr.qkey = to_le(0x11111111u);
  EXPECT_EQ(
      h.modify_qp(ud, attr, ORNIC_QP_ATTR_STATE | ORNIC_QP_ATTR_PKEY_INDEX | ORNIC_QP_ATTR_QKEY)
          .status,
      ORNIC_ADMIN_STATUS_SUCCESS);
  // RC-only attributes are not allowed on UD.
  attr.state = ORNIC_QPS_RTR;
  EXPECT_EQ(h.modify_qp(ud, attr, ORNIC_QP_ATTR_STATE | ORNIC_QP_ATTR_DEST_QPN).status,
            ORNIC_ADMIN_STATUS_BAD_FIELD);
}

TEST_F(NicObjects, SrqAhAndGidTable) {
  const uint32_t pd = h.alloc_pd();
  ornic_admin_create_srq srq{};
  srq.hdr.opcode = ORNIC_ADMIN_CREATE_SRQ;
  srq.mem = h.contiguous_ring(64 * 64);
  srq.pd = to_le(pd);
  srq.log_depth = 6;
  srq.limit = to_le(8u);
  auto cqe = h.execute(DriverHarness::as_sqe(srq));
  ASSERT_EQ(cqe.status, ORNIC_ADMIN_STATUS_SUCCESS);
  const uint32_t srqn = le(cqe.result0);

  // A QP on the SRQ; the SRQ is then busy.
  const uint32_t cqn = h.create_cq(h.create_eq());
  ornic_admin_create_qp qp{};
  qp.hdr.opcode = ORNIC_ADMIN_CREATE_QP;
  qp.sq_mem = h.contiguous_ring(64 * 64);
  qp.pd = to_le(pd);
  qp.send_cqn = qp.recv_cqn = to_le(cqn);
  qp.srqn = to_le(srqn);
  qp.flags = ORNIC_QP_FLAG_USE_SRQ;
  qp.qp_type = ORNIC_QPT_RC;
  qp.sq_log_depth = 6;
  ASSERT_EQ(h.execute(DriverHarness::as_sqe(qp)).status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(h.execute(DriverHarness::simple(ORNIC_ADMIN_DESTROY_SRQ, srqn)).status,
            ORNIC_ADMIN_STATUS_BUSY);

  // GIDs: an IPv4 GID must be IPv4-mapped.
  EXPECT_EQ(h.add_gid(0, kIpv4Gid, ORNIC_GID_TYPE_ROCE_V2_IPV6).status,
            ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_EQ(h.add_gid(16, kIpv4Gid).status, ORNIC_ADMIN_STATUS_BAD_HANDLE);
  EXPECT_EQ(h.add_gid(2, kIpv4Gid, static_cast<ornic_gid_type>(4)).status,
            ORNIC_ADMIN_STATUS_BAD_FIELD);
  // A RoCE v1 entry takes a GID of either form (its GRH carries both).
  EXPECT_EQ(h.add_gid(2, kIpv4Gid, ORNIC_GID_TYPE_ROCE_V1).status, ORNIC_ADMIN_STATUS_SUCCESS);
  ASSERT_EQ(h.add_gid(1, kIpv4Gid).status, ORNIC_ADMIN_STATUS_SUCCESS);

  ornic_admin_create_ah ah{};
  ah.hdr.opcode = ORNIC_ADMIN_CREATE_AH;
  ah.pd = to_le(pd);
  ah.sgid_index = 0; // empty entry
  EXPECT_EQ(h.execute(DriverHarness::as_sqe(ah)).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  ah.sgid_index = 1;
  ah.sl = 8; // Ethernet: a priority, 0..7
  EXPECT_EQ(h.execute(DriverHarness::as_sqe(ah)).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  ah.sl = 0;
  ah.static_rate = 3; // InfiniBand only
  EXPECT_EQ(h.execute(DriverHarness::as_sqe(ah)).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  ah.static_rate = 0;
  ah.sl = 7;
  cqe = h.execute(DriverHarness::as_sqe(ah));
  ASSERT_EQ(cqe.status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(h.execute(DriverHarness::simple(ORNIC_ADMIN_DESTROY_AH, le(cqe.result0))).status,
            ORNIC_ADMIN_STATUS_SUCCESS);
  ah.sl = 0;
  cqe = h.execute(DriverHarness::as_sqe(ah));
  ASSERT_EQ(cqe.status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(h.execute(DriverHarness::simple(ORNIC_ADMIN_DESTROY_AH, le(cqe.result0))).status,
            ORNIC_ADMIN_STATUS_SUCCESS);

  ornic_admin_gid del{};
  del.hdr.opcode = ORNIC_ADMIN_DEL_GID;
  del.index = to_le(1u);
  EXPECT_EQ(h.execute(DriverHarness::as_sqe(del)).status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(h.execute(DriverHarness::as_sqe(del)).status, ORNIC_ADMIN_STATUS_BAD_HANDLE);
}

} // namespace
} // namespace ornic::test
