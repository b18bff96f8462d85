// The test-only fault injection (registers.rst, "Fault injection"): each fault makes the
// device misbehave exactly as documented, and only while it is enabled.
#include <stdexcept>

#include <gtest/gtest.h>

#include "driver_harness.hpp"

namespace ornic::test {
namespace {

FaultInjection only(bool FaultInjection::* fault) {
  FaultInjection faults;
  faults.*fault = true;
  return faults;
}

TEST(NicFaults, ParsesTheList) {
  EXPECT_FALSE(parse_fault_list("none").any());
  EXPECT_FALSE(parse_fault_list("").any());
  const auto all = parse_fault_list("qp-state,cqe,eq-storm,admin-stall");
  EXPECT_TRUE(all.qp_state && all.cqe && all.eq_storm && all.admin_stall);
  EXPECT_EQ(fault_list_string(all), "qp-state,cqe,eq-storm,admin-stall");
  const auto one = parse_fault_list("eq-storm");
  EXPECT_TRUE(one.eq_storm);
  EXPECT_FALSE(one.qp_state || one.cqe || one.admin_stall);
  EXPECT_EQ(fault_list_string(FaultInjection{}), "none");
  EXPECT_THROW(parse_fault_list("qp-state,bogus"), std::invalid_argument);
  EXPECT_THROW(parse_fault_list("qp-state,"), std::invalid_argument);
  EXPECT_THROW(parse_fault_list("QP-STATE"), std::invalid_argument);
}

ornic_qp_attr init_attr() {
  ornic_qp_attr attr{};
  attr.state = ORNIC_QPS_INIT;
  return attr;
}
constexpr uint32_t kInitMask =
    ORNIC_QP_ATTR_STATE | ORNIC_QP_ATTR_ACCESS_FLAGS | ORNIC_QP_ATTR_PKEY_INDEX;

ornic_admin_cqe query_qp(DriverHarness& h, uint32_t qpn) {
  ornic_admin_modify_qp c{};
  c.hdr.opcode = ORNIC_ADMIN_QUERY_QP;
  c.attr_addr = to_le(h.alloc(sizeof(ornic_qp_attr)));
  c.attr_len = to_le<uint32_t>(sizeof(ornic_qp_attr));
  c.qpn = to_le(qpn);
  return h.execute(DriverHarness::as_sqe(c));
}

TEST(NicFaults, QpStateAnswersAStateOutOfRange) {
  DriverHarness h(nullptr, nullptr, kTestMac, only(&FaultInjection::qp_state));
  ASSERT_TRUE(h.bring_up(16));
  const uint32_t qpn = h.create_qp(h.alloc_pd(), h.create_cq(h.create_eq()));
  const auto modify = h.modify_qp(qpn, init_attr(), kInitMask);
  ASSERT_EQ(modify.status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(le(modify.result0), kFaultQpState);
  const auto query = query_qp(h, qpn);
  ASSERT_EQ(query.status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(le(query.result1), kFaultQpState);
}

TEST(NicFaults, QpStateIsRealWithoutTheFault) {
  DriverHarness h;
  ASSERT_TRUE(h.bring_up(16));
  const uint32_t qpn = h.create_qp(h.alloc_pd(), h.create_cq(h.create_eq()));
  EXPECT_EQ(le(h.modify_qp(qpn, init_attr(), kInitMask).result0),
            static_cast<uint32_t>(ORNIC_QPS_INIT));
  EXPECT_EQ(le(query_qp(h, qpn).result1), static_cast<uint32_t>(ORNIC_QPS_INIT));
}

TEST(NicFaults, AdminStallsAfterTheFirstQpUntilReset) {
  DriverHarness h(nullptr, nullptr, kTestMac, only(&FaultInjection::admin_stall));
  ASSERT_TRUE(h.bring_up(16));
  const uint32_t pd = h.alloc_pd();
  h.create_qp(pd, h.create_cq(h.create_eq())); // completes, then the queue stalls
  h.submit(DriverHarness::simple(ORNIC_ADMIN_ALLOC_PD));
  h.ring_admin();
  h.run_loop();
  EXPECT_FALSE(h.poll_admin().has_value());
  EXPECT_EQ(h.reg(ORNIC_REG_DEV_STATUS) & ORNIC_DEV_STATUS_FATAL, 0u);
  // A reset clears the stall; the device works again (and would stall again).
  h.write_reg(ORNIC_REG_DEV_CTRL, ORNIC_DEV_CTRL_RESET);
  EXPECT_EQ(h.reg(ORNIC_REG_DEV_STATUS), 0u);
  ASSERT_TRUE(h.bring_up(16));
  EXPECT_NE(h.alloc_pd(), 0u);
}

// One Ethernet RX completion on a CQ of a new EQ; returns the CQE.
struct RxRig {
  explicit RxRig(const FaultInjection& faults) : h(nullptr, nullptr, kTestMac, faults) {
    EXPECT_TRUE(h.bring_up(16));
    eqn = h.create_eq(kEqLog, 1, &eq_ring);
    cqn = h.create_cq(eqn, 4, 0, &cq_ring);
    ornic_admin_create_eth_ring c{};
    c.hdr.opcode = ORNIC_ADMIN_ETH_CREATE_RX_RING;
    c.mem = h.contiguous_ring(4096);
    rx_ring = le(c.mem.addr);
    c.log_depth = 4;
    c.cqn = to_le(cqn);
    rx = le(h.execute(DriverHarness::as_sqe(c)).result0);
  }

  ornic_cqe receive() {
    ornic_eth_rx_desc desc{};
    desc.addr = to_le(h.alloc(2048, 64));
    desc.length = to_le<uint16_t>(2048);
    h.write(rx_ring, desc);
    h.doorbell(0, ORNIC_DB_ETH_RX, ORNIC_DB_VALUE(rx, 0, 1));
    std::vector<std::byte> frame(64, std::byte{0xff}); // broadcast
    h.port.deliver(frame);
    return h.read<ornic_cqe>(cq_ring);
  }

  ornic_eqe eqe(uint32_t index) {
    return h.read<ornic_eqe>(eq_ring + uint64_t{index % kEqDepth} * ORNIC_EQE_SIZE);
  }

  static constexpr unsigned kEqLog = 3;
  static constexpr uint32_t kEqDepth = 1u << kEqLog;
  DriverHarness h;
  uint32_t eqn = 0, cqn = 0, rx = 0;
  uint64_t eq_ring = 0, cq_ring = 0, rx_ring = 0;
};

TEST(NicFaults, CqeCarriesAnIndexNobodyPosted) {
  RxRig good{FaultInjection{}};
  const auto real = good.receive();
  ASSERT_EQ(real.status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(le(real.wr_id), 0u);

  RxRig bad{only(&FaultInjection::cqe)};
  const auto cqe = bad.receive();
  EXPECT_EQ(cqe.opcode, ORNIC_CQE_OP_ETH_RX);
  EXPECT_EQ(le(cqe.wr_id), kFaultEthIndexOffset);
}

TEST(NicFaults, CorruptCqeBreaksQpnAndWqeIndexOfRdmaCqes) {
  ornic_cqe cqe{};
  cqe.opcode = ORNIC_CQE_OP_RECV;
  cqe.qpn = to_le<uint32_t>(5);
  cqe.wqe_index = to_le<uint16_t>(3);
  corrupt_cqe(cqe);
  EXPECT_EQ(le(cqe.qpn), kFaultQpn);
  EXPECT_EQ(le(cqe.wqe_index), 3u ^ kFaultWqeIndexFlip);
}

TEST(NicFaults, EqStormKeepsTheEqFull) {
  RxRig rig{only(&FaultInjection::eq_storm)};
  auto& h = rig.h;
  h.doorbell(0, ORNIC_DB_CQ, ORNIC_DB_VALUE(rig.cqn, ORNIC_DB_FLAG_ARM_NEXT, 0));
  h.irqs.clear();
  rig.receive();
  // Every slot holds a COMPLETION of the first pass, and the vector fired.
  for (uint32_t i = 0; i < RxRig::kEqDepth; ++i) {
    const auto eqe = rig.eqe(i);
    EXPECT_EQ(eqe.type, ORNIC_EQE_COMPLETION) << i;
    EXPECT_EQ(le(eqe.object), rig.cqn) << i;
    EXPECT_EQ(eqe.owner & ORNIC_EQE_OWNER_PHASE, expected_phase(i, RxRig::kEqDepth)) << i;
  }
  EXPECT_GE(h.irqs.count(1), 1u);
  // Consuming the whole ring (no arm) refills it with the next pass and interrupts again.
  for (uint32_t round = 1; round <= 3; ++round) {
    h.irqs.clear();
    h.doorbell(0, ORNIC_DB_EQ, ORNIC_DB_VALUE(rig.eqn, 0, round * RxRig::kEqDepth));
    for (uint32_t i = round * RxRig::kEqDepth; i < (round + 1) * RxRig::kEqDepth; ++i)
      EXPECT_EQ(rig.eqe(i).owner & ORNIC_EQE_OWNER_PHASE, expected_phase(i, RxRig::kEqDepth)) << i;
    EXPECT_EQ(h.irqs.count(1), 1u);
  }
}

TEST(NicFaults, NoStormWithoutTheFault) {
  RxRig rig{FaultInjection{}};
  auto& h = rig.h;
  h.doorbell(0, ORNIC_DB_CQ, ORNIC_DB_VALUE(rig.cqn, ORNIC_DB_FLAG_ARM_NEXT, 0));
  rig.receive();
  EXPECT_EQ(rig.eqe(0).type, ORNIC_EQE_COMPLETION);
  EXPECT_EQ(rig.eqe(0).owner & ORNIC_EQE_OWNER_PHASE, 1);
  EXPECT_EQ(rig.eqe(1).owner & ORNIC_EQE_OWNER_PHASE, 0); // nothing more
  h.doorbell(0, ORNIC_DB_EQ, ORNIC_DB_VALUE(rig.eqn, 0, 1));
  EXPECT_EQ(rig.eqe(1).owner & ORNIC_EQE_OWNER_PHASE, 0);
}

} // namespace
} // namespace ornic::test
