// XRC objects through the admin queue (admin.rst, xrc.rst): domains, XRC SRQs and XRC QPs,
// every malformed field, and the order in which they may be destroyed.
#include <gtest/gtest.h>

#include "driver_harness.hpp"

namespace ornic::test {
namespace {

class XrcObjects : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_TRUE(h.bring_up(32));
    eqn = h.create_eq(6, 1);
    cqn = h.create_cq(eqn);
    pd = h.alloc_pd();
    const auto cqe = h.execute(DriverHarness::simple(ORNIC_ADMIN_ALLOC_XRCD));
    ASSERT_EQ(cqe.status, ORNIC_ADMIN_STATUS_SUCCESS);
    xrcd = le(cqe.result0);
    EXPECT_GE(xrcd, 1u);
  }

  ornic_admin_create_srq xrc_srq_command() {
    ornic_admin_create_srq c{};
    c.hdr.opcode = ORNIC_ADMIN_CREATE_SRQ;
    c.mem = h.contiguous_ring(64 * 64);
    c.pd = to_le(pd);
    c.log_depth = 6;
    c.srq_type = ORNIC_SRQT_XRC;
    c.xrcd = to_le(xrcd);
    c.cqn = to_le(cqn);
    return c;
  }

  ornic_admin_create_qp target_command() {
    ornic_admin_create_qp c{};
    c.hdr.opcode = ORNIC_ADMIN_CREATE_QP;
    c.qp_type = ORNIC_QPT_XRC_TGT;
    c.xrcd = to_le(xrcd);
    return c;
  }

  ornic_admin_create_qp initiator_command() {
    ornic_admin_create_qp c{};
    c.hdr.opcode = ORNIC_ADMIN_CREATE_QP;
    c.qp_type = ORNIC_QPT_XRC_INI;
    c.sq_mem = h.contiguous_ring(64 * 64);
    c.sq_log_depth = 6;
    c.pd = to_le(pd);
    c.send_cqn = to_le(cqn);
    return c;
  }

  template <typename T>
  uint8_t status(const T& command) {
    return h.execute(DriverHarness::as_sqe(command)).status;
  }
  uint32_t create(const ornic_admin_create_srq& c) {
    const auto cqe = h.execute(DriverHarness::as_sqe(c));
    EXPECT_EQ(cqe.status, ORNIC_ADMIN_STATUS_SUCCESS);
    return le(cqe.result0);
  }
  uint32_t create(const ornic_admin_create_qp& c) {
    const auto cqe = h.execute(DriverHarness::as_sqe(c));
    EXPECT_EQ(cqe.status, ORNIC_ADMIN_STATUS_SUCCESS);
    return le(cqe.result0);
  }
  uint8_t destroy(uint8_t opcode, uint32_t handle) {
    return h.execute(DriverHarness::simple(opcode, handle)).status;
  }

  DriverHarness h;
  uint32_t eqn = 0, cqn = 0, pd = 0, xrcd = 0;
};

TEST_F(XrcObjects, TheDeviceAdvertisesXrc) {
  const uint64_t caps = h.reg(ORNIC_REG_CAPS_LO) | uint64_t{h.reg(ORNIC_REG_CAPS_HI)} << 32;
  EXPECT_TRUE(caps & ORNIC_CAP_XRC);
}

TEST_F(XrcObjects, DomainsAreDistinctAndDeallocateOnce) {
  const auto second = h.execute(DriverHarness::simple(ORNIC_ADMIN_ALLOC_XRCD));
  ASSERT_EQ(second.status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_NE(le(second.result0), xrcd);
  EXPECT_EQ(destroy(ORNIC_ADMIN_DEALLOC_XRCD, le(second.result0)), ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(destroy(ORNIC_ADMIN_DEALLOC_XRCD, le(second.result0)), ORNIC_ADMIN_STATUS_BAD_HANDLE);
  EXPECT_EQ(destroy(ORNIC_ADMIN_DEALLOC_XRCD, 0), ORNIC_ADMIN_STATUS_BAD_HANDLE);
  EXPECT_EQ(destroy(ORNIC_ADMIN_DEALLOC_XRCD, 0xffffff), ORNIC_ADMIN_STATUS_BAD_HANDLE);
}

TEST_F(XrcObjects, MalformedDomainCommands) {
  auto alloc = DriverHarness::simple(ORNIC_ADMIN_ALLOC_XRCD);
  alloc.body[9] = 1;
  EXPECT_EQ(h.execute(alloc).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  ornic_admin_destroy dealloc{};
  dealloc.hdr.opcode = ORNIC_ADMIN_DEALLOC_XRCD;
  dealloc.handle = to_le(xrcd);
  dealloc.reserved[3] = 1;
  EXPECT_EQ(status(dealloc), ORNIC_ADMIN_STATUS_BAD_FIELD);
  // Nothing happened: the domain is still there.
  EXPECT_EQ(destroy(ORNIC_ADMIN_DEALLOC_XRCD, xrcd), ORNIC_ADMIN_STATUS_SUCCESS);
}

TEST_F(XrcObjects, TheDomainTableIsBounded) {
  std::vector<uint32_t> made;
  for (;;) {
    const auto cqe = h.execute(DriverHarness::simple(ORNIC_ADMIN_ALLOC_XRCD));
    if (cqe.status != ORNIC_ADMIN_STATUS_SUCCESS) {
      EXPECT_EQ(cqe.status, ORNIC_ADMIN_STATUS_NO_RESOURCES);
      break;
    }
    made.push_back(le(cqe.result0));
    ASSERT_LT(made.size(), 5000u);
  }
  EXPECT_EQ(made.size() + 1, 1024u); // the fixture holds one
}

TEST_F(XrcObjects, XrcSrqFieldsAreChecked) {
  auto c = xrc_srq_command();
  c.srq_type = 2;
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_BAD_FIELD);
  c = xrc_srq_command();
  c.xrcd = to_le(xrcd + 100);
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_BAD_HANDLE);
  c.xrcd = 0;
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_BAD_HANDLE);
  c = xrc_srq_command();
  c.cqn = to_le(cqn + 100);
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_BAD_HANDLE);
  c.cqn = 0;
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_BAD_HANDLE);
  c = xrc_srq_command();
  c.reserved1[3] = 1;
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_BAD_FIELD);
  // A basic SRQ names neither a domain nor a CQ.
  c = xrc_srq_command();
  c.srq_type = ORNIC_SRQT_BASIC;
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_BAD_FIELD);
  c.xrcd = 0;
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_BAD_FIELD);
  c.cqn = 0;
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_GE(create(xrc_srq_command()), 1u);
}

TEST_F(XrcObjects, TargetQpFieldsAreChecked) {
  auto c = target_command();
  c.xrcd = to_le(xrcd + 1);
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_BAD_HANDLE);
  // A target has no queues, PD, CQs or flags.
  c = target_command();
  c.sq_mem = h.contiguous_ring(4096);
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_BAD_FIELD);
  c = target_command();
  c.sq_log_depth = 6;
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_BAD_FIELD);
  c = target_command();
  c.rq_log_depth = 6;
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_BAD_FIELD);
  c = target_command();
  c.pd = to_le(pd);
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_BAD_FIELD);
  c = target_command();
  c.send_cqn = to_le(cqn);
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_BAD_FIELD);
  c = target_command();
  c.recv_cqn = to_le(cqn);
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_BAD_FIELD);
  c = target_command();
  c.flags = ORNIC_QP_FLAG_USE_SRQ;
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_BAD_FIELD);
  c = target_command();
  c.db_page = to_le(uint16_t{7}); // not allocated
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_PERMISSION);
  const uint32_t qpn = create(target_command());
  EXPECT_GE(qpn, 2u);
  EXPECT_EQ(destroy(ORNIC_ADMIN_DESTROY_QP, qpn), ORNIC_ADMIN_STATUS_SUCCESS);
}

TEST_F(XrcObjects, InitiatorQpFieldsAreChecked) {
  auto c = initiator_command();
  c.recv_cqn = to_le(cqn); // an initiator has no receive side
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_BAD_FIELD);
  c = initiator_command();
  c.rq_log_depth = 6;
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_BAD_FIELD);
  c = initiator_command();
  c.rq_mem = h.contiguous_ring(4096);
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_BAD_FIELD);
  c = initiator_command();
  c.flags = ORNIC_QP_FLAG_USE_SRQ;
  c.srqn = to_le(create(xrc_srq_command()));
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_BAD_FIELD);
  c = initiator_command();
  c.send_cqn = to_le(cqn + 9);
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_BAD_HANDLE);
  c = initiator_command();
  c.sq_log_depth = 0;
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_GE(create(initiator_command()), 2u);
}

TEST_F(XrcObjects, UnknownQpTypesAreRefused) {
  for (const uint8_t type : {0, 7, 8, 0xff}) {
    auto c = initiator_command();
    c.qp_type = type;
    EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_BAD_FIELD) << int(type);
  }
}

TEST_F(XrcObjects, AQpCannotUseAnXrcSrq) {
  const uint32_t srqn = create(xrc_srq_command());
  ornic_admin_create_qp c{};
  c.hdr.opcode = ORNIC_ADMIN_CREATE_QP;
  c.sq_mem = h.contiguous_ring(64 * 64);
  c.pd = to_le(pd);
  c.send_cqn = c.recv_cqn = to_le(cqn);
  c.srqn = to_le(srqn);
  c.qp_type = ORNIC_QPT_RC;
  c.flags = ORNIC_QP_FLAG_USE_SRQ;
  c.sq_log_depth = 6;
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_BAD_FIELD);
}

// Wrong-order teardown is refused with BUSY and changes nothing (xrc.rst, "Objects").
TEST_F(XrcObjects, ADomainIsBusyWhileItsSrqsAndTargetsExist) {
  const uint32_t srqn = create(xrc_srq_command());
  const uint32_t qpn = create(target_command());
  EXPECT_EQ(destroy(ORNIC_ADMIN_DEALLOC_XRCD, xrcd), ORNIC_ADMIN_STATUS_BUSY);
  EXPECT_EQ(destroy(ORNIC_ADMIN_DESTROY_CQ, cqn), ORNIC_ADMIN_STATUS_BUSY);
  EXPECT_EQ(destroy(ORNIC_ADMIN_DEALLOC_PD, pd), ORNIC_ADMIN_STATUS_BUSY);
  EXPECT_EQ(destroy(ORNIC_ADMIN_DESTROY_SRQ, srqn), ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(destroy(ORNIC_ADMIN_DEALLOC_XRCD, xrcd), ORNIC_ADMIN_STATUS_BUSY);
  EXPECT_EQ(destroy(ORNIC_ADMIN_DESTROY_QP, qpn), ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(destroy(ORNIC_ADMIN_DEALLOC_XRCD, xrcd), ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(destroy(ORNIC_ADMIN_DESTROY_CQ, cqn), ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(destroy(ORNIC_ADMIN_DEALLOC_PD, pd), ORNIC_ADMIN_STATUS_SUCCESS);
}

// A target has no rings and an initiator no RQ: creating and destroying them gives back exactly
// the page-list entries taken, so later objects still find the budget (a target that gave back
// pages it never took once wrapped the count and refused every later create).
TEST_F(XrcObjects, XrcQpsReturnExactlyThePageListEntriesTheyTook) {
  for (int i = 0; i < 4; ++i) {
    const uint32_t tgt = create(target_command());
    const uint32_t ini = create(initiator_command());
    EXPECT_EQ(destroy(ORNIC_ADMIN_DESTROY_QP, tgt), ORNIC_ADMIN_STATUS_SUCCESS);
    EXPECT_EQ(destroy(ORNIC_ADMIN_DESTROY_QP, ini), ORNIC_ADMIN_STATUS_SUCCESS);
  }
  const uint32_t cq = h.create_cq(eqn);
  EXPECT_GE(cq, 1u);
  EXPECT_EQ(h.counter(ORNIC_CNT_ADMIN_NO_RESOURCES), 0u);
}

// The IB transition rules of XRC QPs (qp.rst): an initiator reaches RTR without responder
// attributes, a target reaches RTS without requester attributes; RC still needs both.
TEST_F(XrcObjects, XrcQpsTakeTheirOwnRequiredAttributes) {
  const uint32_t gid_ok =
      h.add_gid(0, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 1}).status;
  ASSERT_EQ(gid_ok, ORNIC_ADMIN_STATUS_SUCCESS);
  const uint32_t ini = create(initiator_command());
  const uint32_t tgt = create(target_command());
  const uint32_t rc = h.create_qp(pd, cqn);
  ornic_qp_attr attr{};
  attr.state = ORNIC_QPS_INIT;
  const uint32_t to_init =
      ORNIC_QP_ATTR_STATE | ORNIC_QP_ATTR_PKEY_INDEX | ORNIC_QP_ATTR_ACCESS_FLAGS;
  for (uint32_t qpn : {ini, tgt, rc})
    ASSERT_EQ(h.modify_qp(qpn, attr, to_init).status, ORNIC_ADMIN_STATUS_SUCCESS);
  attr.state = ORNIC_QPS_RTR;
  attr.path_mtu = ORNIC_MTU_1024;
  attr.dgid[10] = attr.dgid[11] = 0xff;
  attr.dgid[12] = 10;
  attr.dgid[15] = 2;
  const uint32_t av = ORNIC_QP_ATTR_STATE | ORNIC_QP_ATTR_AV | ORNIC_QP_ATTR_PATH_MTU |
                      ORNIC_QP_ATTR_DEST_QPN | ORNIC_QP_ATTR_RQ_PSN;
  const uint32_t responder = ORNIC_QP_ATTR_MAX_DEST_RD_ATOMIC | ORNIC_QP_ATTR_MIN_RNR_TIMER;
  EXPECT_EQ(h.modify_qp(rc, attr, av).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_EQ(h.modify_qp(tgt, attr, av).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_EQ(h.modify_qp(ini, attr, av).status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(h.modify_qp(tgt, attr, av | responder).status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(h.modify_qp(rc, attr, av | responder).status, ORNIC_ADMIN_STATUS_SUCCESS);
  attr.state = ORNIC_QPS_RTS;
  attr.timeout = 14;
  const uint32_t rts = ORNIC_QP_ATTR_STATE | ORNIC_QP_ATTR_SQ_PSN | ORNIC_QP_ATTR_TIMEOUT;
  const uint32_t requester =
      ORNIC_QP_ATTR_RETRY_CNT | ORNIC_QP_ATTR_RNR_RETRY | ORNIC_QP_ATTR_MAX_QP_RD_ATOMIC;
  EXPECT_EQ(h.modify_qp(rc, attr, rts).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_EQ(h.modify_qp(ini, attr, rts).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_EQ(h.modify_qp(tgt, attr, rts).status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(h.modify_qp(ini, attr, rts | requester).status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(h.modify_qp(rc, attr, rts | requester).status, ORNIC_ADMIN_STATUS_SUCCESS);
}

} // namespace
} // namespace ornic::test
