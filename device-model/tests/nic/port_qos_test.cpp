// SET_PORT_QOS and QUERY_PORT_QOS (admin.rst; ethernet.rst, "Priorities and lossless
// Ethernet"): settings applied whole or not at all, reserved bytes refused, the query
// round trip, the per-priority frame counters of both directions (the PFC engine's, which
// classifies every frame once), and SET_PORT_QOS's PFC settings reaching the engine.
#include <gtest/gtest.h>

#include "core/port_qos.hpp"
#include "driver_harness.hpp"
#include "port/mac_control.hpp"

namespace ornic::test {
namespace {

// A frame to `dst` of `length` bytes: tagged with `pcp` if given, else IPv4 with `dscp`.
std::vector<std::byte> frame(const MacAddress& dst, size_t length, int pcp, uint8_t dscp,
                             uint16_t ethertype = 0x0800) {
  std::vector<std::byte> f(length, std::byte{0});
  for (size_t i = 0; i < 6; ++i)
    f[i] = std::byte{dst[i]};
  size_t at = 12;
  if (pcp >= 0) {
    f[at++] = std::byte{0x81};
    f[at++] = std::byte{0x00};
    f[at++] = std::byte{static_cast<uint8_t>(pcp << 5)};
    f[at++] = std::byte{42};
  }
  f[at++] = std::byte{static_cast<uint8_t>(ethertype >> 8)};
  f[at++] = std::byte{static_cast<uint8_t>(ethertype)};
  if (ethertype == 0x86dd) {
    f[at] = std::byte{static_cast<uint8_t>(0x60 | dscp >> 2)};
    f[at + 1] = std::byte{static_cast<uint8_t>((dscp & 3) << 6)};
  } else {
    f[at] = std::byte{0x45};
    f[at + 1] = std::byte{static_cast<uint8_t>(dscp << 2)};
  }
  return f;
}

ornic_port_qos ets_config() {
  ornic_port_qos q{};
  q.pfc_enable = 1u << 3;
  for (unsigned p = 0; p < ORNIC_QOS_NUM_PRIO; ++p)
    q.prio_tc[p] = p == 3 ? 1 : 0;
  q.tc_tsa[0] = q.tc_tsa[1] = ORNIC_QOS_TSA_ETS;
  q.tc_bw[0] = q.tc_bw[1] = 50;
  q.dscp_valid = to_le(uint64_t{1} << 26);
  q.dscp_prio[26] = 3;
  return q;
}

// The engine as ornic-model puts it on every Ethernet port: nothing lossless until the
// driver says so.
PfcOptions engine() {
  PfcOptions o;
  o.insert = true;
  o.source_mac = kTestMac;
  return o;
}

std::vector<std::byte> pfc_frame(uint8_t priorities, uint16_t quanta) {
  mac_control::PfcRequest request;
  request.class_enable = priorities;
  for (size_t p = 0; p < mac_control::kPriorities; ++p)
    if ((priorities & (1u << p)) != 0)
      request.time[p] = quanta;
  return mac_control::build_pfc({0x02, 0, 0, 0, 0, 0x02}, request);
}

class PortQosAdmin : public ::testing::Test {
protected:
  void SetUp() override { ASSERT_TRUE(h.bring_up(32)); }

  ornic_admin_cqe set(const ornic_port_qos& q, uint32_t len = sizeof(ornic_port_qos)) {
    const uint64_t at = h.alloc(sizeof(q));
    h.write(at, q);
    ornic_admin_port_qos c{};
    c.hdr.opcode = ORNIC_ADMIN_SET_PORT_QOS;
    c.addr = to_le(at);
    c.len = to_le(len);
    return h.execute(DriverHarness::as_sqe(c));
  }
  ornic_port_qos_query query() {
    const uint64_t at = h.alloc(sizeof(ornic_port_qos_query));
    ornic_admin_port_qos c{};
    c.hdr.opcode = ORNIC_ADMIN_QUERY_PORT_QOS;
    c.addr = to_le(at);
    c.len = to_le<uint32_t>(sizeof(ornic_port_qos_query));
    const auto cqe = h.execute(DriverHarness::as_sqe(c));
    EXPECT_EQ(cqe.status, ORNIC_ADMIN_STATUS_SUCCESS);
    EXPECT_EQ(le(cqe.result0), sizeof(ornic_port_qos_query));
    return h.read<ornic_port_qos_query>(at);
  }
  static bool same(const ornic_port_qos& a, const ornic_port_qos& b) {
    return std::memcmp(&a, &b, sizeof(a)) == 0;
  }
  void transmit(const std::vector<std::byte>& f) {
    if (tx_ring == 0) {
      const uint32_t cqn = h.create_cq(h.create_eq(), 6, 0, &cq_ring);
      ornic_admin_create_eth_ring c{};
      c.hdr.opcode = ORNIC_ADMIN_ETH_CREATE_TX_RING;
      c.mem = h.contiguous_ring(16 * 16);
      c.log_depth = 4;
      c.cqn = to_le(cqn);
      tx_ring = le(c.mem.addr);
      const auto cqe = h.execute(DriverHarness::as_sqe(c));
      ASSERT_EQ(cqe.status, ORNIC_ADMIN_STATUS_SUCCESS);
      tx = le(cqe.result0);
    }
    const uint64_t buffer = h.alloc(f.size(), 64);
    std::memcpy(h.memory.at(buffer), f.data(), f.size());
    ornic_eth_tx_desc desc{};
    desc.addr = to_le(buffer);
    desc.length = to_le(static_cast<uint16_t>(f.size()));
    h.write(tx_ring + uint64_t{tx_prod % 16} * ORNIC_ETH_DESC_SIZE, desc);
    h.doorbell(0, ORNIC_DB_ETH_TX, ORNIC_DB_VALUE(tx, 0, ++tx_prod));
    h.run_loop();
  }

  // Data frames the port put on the wire at priority `prio` (by ets_config()'s DSCP map).
  size_t sent_at(unsigned prio) const {
    mac_control::DscpMap dscp;
    dscp.valid = uint64_t{1} << 26;
    dscp.priority[26] = 3;
    size_t n = 0;
    for (const auto& f : h.port.sent)
      if (mac_control::parse(f).kind == mac_control::Kind::not_mac_control &&
          mac_control::frame_priority(f, dscp) == prio)
        ++n;
    return n;
  }

  DriverHarness h{nullptr,
                  nullptr,
                  kTestMac,
                  {},
                  GuestRam::fake,
                  ORNIC_LINK_LAYER_ETH,
                  DriverHarness::kMemorySize,
                  engine()};
  uint64_t cq_ring = 0, tx_ring = 0;
  uint32_t tx = 0, tx_prod = 0;
};

TEST_F(PortQosAdmin, CapabilityIsReported) {
  EXPECT_NE(h.reg(ORNIC_REG_CAPS_LO) & static_cast<uint32_t>(ORNIC_CAP_DCB), 0u);
}

TEST_F(PortQosAdmin, DefaultsAreStrictWithoutPfc) {
  const ornic_port_qos_query q = query();
  EXPECT_TRUE(same(q.config, ornic_port_qos{}));
  for (const auto& c : q.prio)
    EXPECT_EQ(le(c.tx_frames) + le(c.rx_frames) + le(c.tx_pause), 0u);
}

TEST_F(PortQosAdmin, SetThenQueryRoundTrips) {
  const ornic_port_qos want = ets_config();
  ASSERT_EQ(set(want).status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_TRUE(same(query().config, want));
}

TEST_F(PortQosAdmin, BadFieldsChangeNothing) {
  const ornic_port_qos good = ets_config();
  ASSERT_EQ(set(good).status, ORNIC_ADMIN_STATUS_SUCCESS);
  std::vector<ornic_port_qos> bad(8, good);
  bad[0].tc_bw[1] = 40;     // ETS sum 90
  bad[1].tc_tsa[2] = 1;     // credit-based shaper: not supported
  bad[2].prio_tc[0] = 8;    // no such class
  bad[3].dscp_prio[26] = 8; // no such priority
  bad[4].dscp_prio[10] = 1; // without its valid bit
  bad[5].tc_bw[0] = 150;    // above 100
  bad[5].tc_bw[1] = 0;
  bad[6].reserved0[3] = 1;             // reserved
  bad[7].reserved1[5] = to_le(0x100u); // reserved
  for (size_t i = 0; i < bad.size(); ++i) {
    EXPECT_EQ(set(bad[i]).status, ORNIC_ADMIN_STATUS_BAD_FIELD) << i;
    EXPECT_TRUE(same(query().config, good)) << i;
  }
  EXPECT_EQ(set(good, sizeof(ornic_port_qos) - 1).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
}

TEST_F(PortQosAdmin, StrictClassesNeedNoBandwidth) {
  ornic_port_qos q{};
  q.tc_bw[0] = 30; // kept, not used: no ETS class
  EXPECT_EQ(set(q).status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_TRUE(same(query().config, q));
}

TEST_F(PortQosAdmin, ReservedCommandBytesAndShortBuffers) {
  ornic_admin_port_qos c{};
  c.hdr.opcode = ORNIC_ADMIN_QUERY_PORT_QOS;
  c.addr = to_le(h.alloc(sizeof(ornic_port_qos_query)));
  c.len = to_le<uint32_t>(sizeof(ornic_port_qos_query));
  c.reserved[4] = to_le(1u);
  EXPECT_EQ(h.execute(DriverHarness::as_sqe(c)).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  c.reserved[4] = 0;
  c.len = to_le<uint32_t>(sizeof(ornic_port_qos_query) - 8);
  EXPECT_EQ(h.execute(DriverHarness::as_sqe(c)).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  c.hdr.opcode = ORNIC_ADMIN_SET_PORT_QOS;
  c.len = to_le<uint32_t>(sizeof(ornic_port_qos));
  c.reserved[0] = to_le(1u);
  EXPECT_EQ(h.execute(DriverHarness::as_sqe(c)).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
}

TEST_F(PortQosAdmin, ResetRestoresDefaults) {
  ASSERT_EQ(set(ets_config()).status, ORNIC_ADMIN_STATUS_SUCCESS);
  h.write_reg(ORNIC_REG_DEV_CTRL, ORNIC_DEV_CTRL_RESET);
  ASSERT_TRUE(h.bring_up(32));
  EXPECT_TRUE(same(query().config, ornic_port_qos{}));
}

TEST_F(PortQosAdmin, CountsFramesPerPriorityBothWays) {
  ASSERT_EQ(set(ets_config()).status, ORNIC_ADMIN_STATUS_SUCCESS);
  const MacAddress peer{0x02, 0, 0, 0, 0, 0x02};
  transmit(frame(peer, 100, 3, 0));                    // PCP 3
  transmit(frame(peer, 80, 5, 26));                    // PCP wins over DSCP
  transmit(frame(peer, 64, -1, 26));                   // DSCP 26 -> 3
  transmit(frame(peer, 70, -1, 10));                   // DSCP 10 unmapped -> 0
  h.port.deliver(frame(kTestMac, 90, -1, 26, 0x86dd)); // IPv6 DSCP 26 -> 3
  h.port.deliver(frame(kTestMac, 60, 7, 0));
  const ornic_port_qos_query q = query();
  EXPECT_EQ(le(q.prio[3].tx_frames), 2u);
  EXPECT_EQ(le(q.prio[3].tx_bytes), 164u);
  EXPECT_EQ(le(q.prio[5].tx_frames), 1u);
  EXPECT_EQ(le(q.prio[0].tx_frames), 1u);
  EXPECT_EQ(le(q.prio[0].tx_bytes), 70u);
  EXPECT_EQ(le(q.prio[3].rx_frames), 1u);
  EXPECT_EQ(le(q.prio[3].rx_bytes), 90u);
  EXPECT_EQ(le(q.prio[7].rx_frames), 1u);
  // Nothing posted to receive into: both were discarded after they were counted.
  EXPECT_EQ(le(q.prio[3].rx_discards), 1u);
  EXPECT_EQ(le(q.prio[7].rx_discards), 1u);
}

TEST_F(PortQosAdmin, PfcFromTheDriverReachesTheEngine) {
  EXPECT_EQ(h.pfc->pfc_enabled(), 0);
  ASSERT_EQ(set(ets_config()).status, ORNIC_ADMIN_STATUS_SUCCESS); // PFC on priority 3
  EXPECT_EQ(h.pfc->pfc_enabled(), 1u << 3);
  const MacAddress peer{0x02, 0, 0, 0, 0, 0x02};
  h.port.deliver(pfc_frame(0xff, 0xffff)); // the peer stops every priority it may
  transmit(frame(peer, 100, 3, 0));
  transmit(frame(peer, 64, -1, 26)); // DSCP 26 -> 3: stopped too
  transmit(frame(peer, 80, 5, 0));   // lossy: PFC does not stop it
  EXPECT_EQ(sent_at(3), 0u);
  EXPECT_EQ(sent_at(5), 1u);
  h.pfc_now += 25'000;
  ornic_port_qos_query q = query();
  EXPECT_EQ(le(q.prio[3].rx_pause), 1u);
  EXPECT_EQ(le(q.prio[3].rx_pause_transitions), 1u);
  EXPECT_EQ(le(q.prio[3].rx_pause_duration), 25u);
  EXPECT_EQ(le(q.prio[3].tx_frames), 0u); // waiting, not on the wire
  EXPECT_EQ(le(q.prio[5].rx_pause), 0u);
  EXPECT_EQ(le(q.prio[5].tx_frames), 1u);
  EXPECT_EQ(le(q.prio[5].tx_bytes), 80u);

  h.port.deliver(pfc_frame(1u << 3, 0)); // resume: the backlog leaves at the port speed
  EXPECT_EQ(sent_at(3), 1u);
  h.pfc_now += 1'000'000;
  h.pfc->poll();
  EXPECT_EQ(sent_at(3), 2u);
  q = query();
  EXPECT_EQ(le(q.prio[3].tx_frames), 2u);
  EXPECT_EQ(le(q.prio[3].tx_bytes), 164u);
  EXPECT_EQ(le(q.prio[3].rx_pause_duration), 25u);
  EXPECT_EQ(le(q.prio[3].rx_frames), 0u); // PFC frames are the port's, not a priority's

  // The driver turns PFC off again: priority 3 no longer stops.
  ASSERT_EQ(set(ornic_port_qos{}).status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(h.pfc->pfc_enabled(), 0);
  h.port.deliver(pfc_frame(1u << 3, 0xffff));
  transmit(frame(peer, 100, 3, 0));
  EXPECT_EQ(sent_at(3), 3u);
  EXPECT_EQ(le(query().prio[3].rx_pause), 1u);
}

TEST_F(PortQosAdmin, ResetZeroesTheEnginesCounters) {
  ASSERT_EQ(set(ets_config()).status, ORNIC_ADMIN_STATUS_SUCCESS);
  h.port.deliver(pfc_frame(1u << 3, 0xffff));
  h.port.deliver(frame(kTestMac, 90, 3, 0));
  h.pfc_now += 5'000;
  EXPECT_EQ(le(query().prio[3].rx_pause), 1u);
  h.write_reg(ORNIC_REG_DEV_CTRL, ORNIC_DEV_CTRL_RESET);
  ASSERT_TRUE(h.bring_up(32));
  EXPECT_EQ(h.pfc->pfc_enabled(), 0); // the reset's defaults reach the engine
  h.pfc_now += 5'000;
  const ornic_port_qos_query q = query();
  for (const auto& c : q.prio) {
    EXPECT_EQ(le(c.rx_frames) + le(c.rx_bytes) + le(c.rx_pause) + le(c.rx_discards), 0u);
    EXPECT_EQ(le(c.rx_pause_duration) + le(c.rx_pause_transitions), 0u);
  }
}

TEST(PortQos, CountersComeFromThePortSourceAndTheNicsDiscards) {
  PortQos qos;
  EXPECT_EQ(qos.counters(3).tx_pause, 0u);
  std::vector<std::byte> tagged(64, std::byte{0});
  tagged[12] = std::byte{0x81};
  tagged[14] = std::byte{4 << 5};
  qos.count_rx_discard(tagged);
  EXPECT_EQ(qos.counters(4).rx_discards, 1u);
  qos.port_source = [](unsigned prio) {
    PriorityCounters s;
    s.tx_pause = prio * 10;
    s.rx_pause_duration = 7;
    s.rx_discards = 2;
    return s;
  };
  EXPECT_EQ(qos.counters(3).tx_pause, 30u);
  EXPECT_EQ(le(qos.query().prio[4].tx_pause), 40u);
  EXPECT_EQ(le(qos.query().prio[4].rx_pause_duration), 7u);
  EXPECT_EQ(le(qos.query().prio[4].rx_discards), 3u);
  bool cleared = false;
  qos.clear_port_source = [&] { cleared = true; };
  qos.reset();
  EXPECT_TRUE(cleared);
  EXPECT_EQ(qos.counters(4).rx_discards, 2u);
}

TEST(PortQos, PriorityIsPcpThenDscpThenZero) {
  PortQos qos;
  QosConfig c;
  c.dscp_valid = uint64_t{1} << 46;
  c.dscp_prio[46] = 6;
  qos.set_config(c);
  std::vector<std::byte> f(64, std::byte{0});
  f[12] = std::byte{0x08};
  f[14] = std::byte{0x45};
  f[15] = std::byte{46 << 2};
  EXPECT_EQ(qos.priority_of(f), 6u);
  f[15] = std::byte{10 << 2}; // unmapped
  EXPECT_EQ(qos.priority_of(f), 0u);
  f[14] = std::byte{0x65}; // not IPv4 after all
  f[15] = std::byte{46 << 2};
  EXPECT_EQ(qos.priority_of(f), 0u);
  f[12] = std::byte{0x81}; // tagged: the PCP wins
  f[13] = std::byte{0x00};
  f[14] = std::byte{2 << 5};
  EXPECT_EQ(qos.priority_of(f), 2u);
  EXPECT_EQ(qos.priority_of(std::span(f).first(15)), 0u); // tag cut short
}

TEST(PortQos, ConfigChangeIsAnnounced) {
  PortQos qos;
  uint8_t seen = 0xff;
  qos.on_config_change = [&](const QosConfig& c) { seen = c.pfc_enable; };
  QosConfig c;
  c.pfc_enable = 0x08;
  qos.set_config(c);
  EXPECT_EQ(seen, 0x08);
  qos.reset();
  EXPECT_EQ(seen, 0);
}

} // namespace
} // namespace ornic::test
