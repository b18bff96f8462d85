// Congestion control end to end (roce.rst, "Congestion control"): ornic sends ECT, the
// receiving NIC answers CE-marked packets with at most one CNP per QP per interval, the
// sending NIC cuts the QP's rate and paces it with the transport timer, CC_CONFIG sets and
// validates it all, and CNPs nobody should act on are dropped and counted.
#include <gtest/gtest.h>

#include "rdma_pair.hpp"
#include "roce/builder.hpp"
#include "roce/cnp.hpp"
#include "roce/ecn.hpp"
#include "roce/parser.hpp"

namespace ornic::test {
namespace {

constexpr int kA = 0, kB = 1;
constexpr int64_t kUs = 1000;

ornic_send_wqe write_wqe(uint64_t wr_id, uint64_t remote, uint32_t rkey) {
  auto w = send_wqe(ORNIC_WQE_OP_RDMA_WRITE, wr_id);
  w.rdma.remote_addr = to_le(remote);
  w.rdma.rkey = to_le(rkey);
  return w;
}

roce::ParsedPacket parse(const LossyWire::Frame& frame) {
  roce::ParsedPacket parsed;
  (void)roce::parse_frame(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(frame.data()), frame.size()),
      parsed);
  return parsed;
}

class Cc : public ::testing::Test {
protected:
  void SetUp() override {
    pair.wire.policy = [this](int side, uint64_t, const LossyWire::Frame& frame) {
      const roce::ParsedPacket p = parse(frame);
      if (side == kA) {
        a_traffic_classes.push_back(p.description.traffic_class);
        if (mark_a)
          return WireAction::mark_ce;
      } else if (p.description.bth.opcode == roce::kCnpOpcode) {
        cnps.push_back(p.description);
      }
      return WireAction::deliver;
    };
    std::tie(qa, qb) = pair.rc_pair(ORNIC_MTU_1024);
    for (size_t i = 0; i < kLength; ++i)
      *pair.a.at(i) = std::byte{static_cast<uint8_t>(i * 13 + 1)};
  }

  ornic_admin_cqe cc_config(Node& node, uint8_t op, ornic_cc_params* params) {
    const uint64_t at = node.h.alloc(sizeof(ornic_cc_params));
    if (op == ORNIC_CC_CONFIG_SET)
      node.h.write(at, *params);
    ornic_admin_cc_config c{};
    c.hdr.opcode = ORNIC_ADMIN_CC_CONFIG;
    c.params_addr = to_le(at);
    c.params_len = to_le<uint32_t>(sizeof(ornic_cc_params));
    c.op = op;
    const ornic_admin_cqe done = node.h.execute(DriverHarness::as_sqe(c));
    if (op == ORNIC_CC_CONFIG_QUERY)
      *params = node.h.read<ornic_cc_params>(at);
    return done;
  }
  ornic_cc_params query(Node& node) {
    ornic_cc_params p{};
    EXPECT_EQ(cc_config(node, ORNIC_CC_CONFIG_QUERY, &p).status, ORNIC_ADMIN_STATUS_SUCCESS);
    return p;
  }
  uint64_t rate_of(Qp& qp) {
    const uint64_t out = qp.node->h.alloc(sizeof(ornic_qp_counters));
    ornic_admin_query_counters q{};
    q.hdr.opcode = ORNIC_ADMIN_QUERY_COUNTERS;
    q.resp_addr = to_le(out);
    q.resp_len = to_le<uint32_t>(sizeof(ornic_qp_counters));
    q.scope = ORNIC_COUNTER_SCOPE_QP;
    q.handle = to_le(qp.qpn);
    EXPECT_EQ(qp.node->h.execute(DriverHarness::as_sqe(q)).status, ORNIC_ADMIN_STATUS_SUCCESS);
    return le(qp.node->h.read<ornic_qp_counters>(out).cc_rate_mbps);
  }
  void write(uint64_t wr_id, size_t length = kLength) {
    qa.post_send(write_wqe(wr_id, pair.b.buffer + 65536, pair.b.key),
                 {sge(pair.a.buffer, static_cast<uint32_t>(length), pair.a.key)});
  }
  bool arrived(size_t length = kLength) {
    return std::memcmp(pair.a.at(0), pair.b.at(65536), length) == 0;
  }

  static constexpr size_t kLength = 16 * 1024; // 16 packets of MTU 1024
  RdmaPair pair;
  Qp qa, qb;
  bool mark_a = false;
  std::vector<uint8_t> a_traffic_classes;
  std::vector<roce::PacketDescription> cnps;
};

TEST_F(Cc, CapabilityAndDefaults) {
  EXPECT_NE(pair.a.h.reg(ORNIC_REG_CAPS_LO) & static_cast<uint32_t>(ORNIC_CAP_CC), 0u);
  const ornic_cc_params p = query(pair.a);
  EXPECT_EQ(le(p.flags), ORNIC_CC_FLAG_NP_ENABLE | ORNIC_CC_FLAG_RP_ENABLE);
  EXPECT_EQ(p.ect, ORNIC_CC_ECT_0);
  EXPECT_EQ(p.np_cnp_dscp, 48);
  EXPECT_EQ(le(p.rp_max_rate), 100'000u);
  EXPECT_EQ(le(p.rp_threshold), 5u);
}

TEST_F(Cc, EverySentPacketIsEct0AndNoCnpWithoutCe) {
  write(1);
  ASSERT_EQ(pair.wait_cqes(pair.a, 1).size(), 1u);
  EXPECT_TRUE(arrived());
  ASSERT_FALSE(a_traffic_classes.empty());
  for (uint8_t tc : a_traffic_classes)
    EXPECT_EQ(tc & roce::kEcnMask, roce::kEcnEct0);
  EXPECT_TRUE(cnps.empty());
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_CC_CE_RECEIVED), 0u);
  EXPECT_EQ(rate_of(qa), 0u);
}

TEST_F(Cc, EctChoiceIsConfigurable) {
  ornic_cc_params p = query(pair.a);
  p.ect = ORNIC_CC_ECT_1;
  ASSERT_EQ(cc_config(pair.a, ORNIC_CC_CONFIG_SET, &p).status, ORNIC_ADMIN_STATUS_SUCCESS);
  write(1);
  ASSERT_EQ(pair.wait_cqes(pair.a, 1).size(), 1u);
  for (uint8_t tc : a_traffic_classes)
    EXPECT_EQ(tc & roce::kEcnMask, roce::kEcnEct1);
  p.ect = ORNIC_CC_ECT_AV; // the AV's traffic class (0 here) as it is: not ECN-capable
  ASSERT_EQ(cc_config(pair.a, ORNIC_CC_CONFIG_SET, &p).status, ORNIC_ADMIN_STATUS_SUCCESS);
  a_traffic_classes.clear();
  write(2);
  ASSERT_EQ(pair.wait_cqes(pair.a, 1).size(), 1u);
  for (uint8_t tc : a_traffic_classes)
    EXPECT_EQ(tc & roce::kEcnMask, roce::kEcnNotEct);
}

TEST_F(Cc, CeMarkedPacketsGetOneCnpPerIntervalAndTheSenderSlowsDown) {
  mark_a = true;
  write(1);
  ASSERT_EQ(pair.wait_cqes(pair.a, 1).size(), 1u);
  EXPECT_TRUE(arrived()); // marking loses nothing: the ICRC masks the ECN bits
  // All 16 packets arrived marked within the same instant of b's clock: one CNP.
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_CC_CE_RECEIVED), 16u);
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_CC_CNPS_SENT), 1u);
  ASSERT_EQ(cnps.size(), 1u);
  EXPECT_EQ(cnps[0].bth.destination_qp, qa.qpn);
  EXPECT_EQ(cnps[0].traffic_class, 48 << 2); // np_cnp_dscp, not ECN-capable
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_CC_CNPS_HANDLED), 1u);
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_RX_BAD_HEADER), 0u);
  EXPECT_EQ(rate_of(qa), 50'049u); // alpha 1023/1024: a cut to just above half
  // After the interval, marked packets earn more CNPs (the paced packets of this write
  // are spread over the time wait_cqes moves on), and every one cuts the rate further.
  pair.advance(5 * kUs);
  write(2);
  ASSERT_EQ(pair.wait_cqes(pair.a, 1).size(), 1u);
  EXPECT_TRUE(arrived());
  const uint64_t sent = pair.b.counter(ORNIC_CNT_CC_CNPS_SENT);
  EXPECT_GE(sent, 2u);
  EXPECT_LE(sent, 17u); // never more than one per marked packet
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_CC_CNPS_HANDLED), sent);
  EXPECT_LT(rate_of(qa), 50'049u);
}

TEST_F(Cc, ALimitedQpIsPacedByTheTimerAtItsRate) {
  ornic_cc_params p = query(pair.a);
  p.rp_max_rate = to_le<uint32_t>(1000);                   // 1 Gbit/s line rate
  p.rp_min_rate = to_le<uint32_t>(80);                     // a cut to alpha 1 halves: 500 Mbit/s
  p.rp_time_reset = to_le<uint32_t>(ORNIC_CC_MAX_TIME_US); // no increase during the test
  p.rp_byte_reset = 0;
  ASSERT_EQ(cc_config(pair.a, ORNIC_CC_CONFIG_SET, &p).status, ORNIC_ADMIN_STATUS_SUCCESS);
  mark_a = true;
  write(1, 1024);
  ASSERT_EQ(pair.wait_cqes(pair.a, 1).size(), 1u);
  ASSERT_EQ(pair.a.counter(ORNIC_CNT_CC_CNPS_HANDLED), 1u);
  ASSERT_EQ(rate_of(qa), 500u);
  mark_a = false;
  // 16 frames of ~1.1 KB at 500 Mbit/s (62.5 bytes/us): about 280 us on the wire.
  const uint64_t frames_before = pair.wire.sent[kA];
  write(2);
  pair.pump();
  EXPECT_LE(pair.wire.sent[kA] - frames_before, 3u); // the burst credit, no more
  int64_t elapsed = 0;
  while (!arrived() && elapsed < 10'000 * kUs) {
    pair.advance(10 * kUs);
    elapsed += 10 * kUs;
  }
  EXPECT_TRUE(arrived());
  EXPECT_GE(elapsed, 200 * kUs);
  EXPECT_LE(elapsed, 400 * kUs);
  EXPECT_EQ(pair.wait_cqes(pair.a, 1).size(), 1u);
}

TEST_F(Cc, NpAndRpCanBeTurnedOff) {
  ornic_cc_params p = query(pair.b);
  p.flags = to_le<uint32_t>(ORNIC_CC_FLAG_RP_ENABLE);
  ASSERT_EQ(cc_config(pair.b, ORNIC_CC_CONFIG_SET, &p).status, ORNIC_ADMIN_STATUS_SUCCESS);
  mark_a = true;
  write(1);
  ASSERT_EQ(pair.wait_cqes(pair.a, 1).size(), 1u);
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_CC_CE_RECEIVED), 16u); // counted, not answered
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_CC_CNPS_SENT), 0u);
  // b answers again; a handles the CNP but does not slow down.
  p.flags = to_le<uint32_t>(ORNIC_CC_FLAGS_ALL);
  ASSERT_EQ(cc_config(pair.b, ORNIC_CC_CONFIG_SET, &p).status, ORNIC_ADMIN_STATUS_SUCCESS);
  p = query(pair.a);
  p.flags = to_le<uint32_t>(ORNIC_CC_FLAG_NP_ENABLE);
  ASSERT_EQ(cc_config(pair.a, ORNIC_CC_CONFIG_SET, &p).status, ORNIC_ADMIN_STATUS_SUCCESS);
  write(2);
  ASSERT_EQ(pair.wait_cqes(pair.a, 1).size(), 1u);
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_CC_CNPS_SENT), 1u);
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_CC_CNPS_HANDLED), 1u);
  EXPECT_EQ(rate_of(qa), 0u);
}

TEST_F(Cc, BadParametersAreRefusedAndChangeNothing) {
  const ornic_cc_params good = query(pair.a);
  const auto refused = [&](const std::function<void(ornic_cc_params&)>& spoil) {
    ornic_cc_params p = good;
    spoil(p);
    const bool bad_field =
        cc_config(pair.a, ORNIC_CC_CONFIG_SET, &p).status == ORNIC_ADMIN_STATUS_BAD_FIELD;
    const ornic_cc_params now = query(pair.a);
    return bad_field && std::memcmp(&now, &good, sizeof(now)) == 0;
  };
  EXPECT_TRUE(refused([](auto& p) { p.flags = to_le<uint32_t>(4); }));
  EXPECT_TRUE(refused([](auto& p) { p.ect = 3; }));
  EXPECT_TRUE(refused([](auto& p) { p.np_cnp_dscp = 64; }));
  EXPECT_TRUE(refused([](auto& p) { p.reserved0 = to_le<uint16_t>(1); }));
  EXPECT_TRUE(refused([](auto& p) { p.reserved1 = to_le<uint32_t>(1); }));
  EXPECT_TRUE(refused([](auto& p) { p.rp_max_rate = 0; }));
  EXPECT_TRUE(refused([](auto& p) { p.rp_max_rate = to_le(ORNIC_CC_MAX_RATE_MBPS + 1); }));
  EXPECT_TRUE(refused([](auto& p) { p.rp_min_rate = 0; }));
  EXPECT_TRUE(refused([](auto& p) { p.rp_min_rate = to_le<uint32_t>(100'001); }));
  EXPECT_TRUE(refused([](auto& p) { p.rp_ai_rate = to_le<uint32_t>(100'001); }));
  EXPECT_TRUE(refused([](auto& p) { p.rp_time_reset = 0; }));
  EXPECT_TRUE(refused([](auto& p) { p.rp_threshold = 0; }));
  EXPECT_TRUE(refused([](auto& p) { p.rp_threshold = to_le(ORNIC_CC_MAX_THRESHOLD + 1); }));
  EXPECT_TRUE(refused([](auto& p) { p.rp_gd = to_le(ORNIC_CC_MAX_GD + 1); }));
  EXPECT_TRUE(refused([](auto& p) { p.rp_initial_alpha_value = to_le(ORNIC_CC_ALPHA_ONE + 1); }));
  EXPECT_TRUE(refused([](auto& p) { p.rp_dce_tcp_g = to_le(ORNIC_CC_ALPHA_ONE + 1); }));
  EXPECT_TRUE(refused([](auto& p) { p.rp_dce_tcp_rtt = 0; }));
  EXPECT_TRUE(
      refused([](auto& p) { p.np_min_time_between_cnps = to_le(ORNIC_CC_MAX_TIME_US + 1); }));
  // The command itself: an unknown op, reserved bytes, a short buffer, unreadable memory.
  ornic_admin_cc_config c{};
  c.hdr.opcode = ORNIC_ADMIN_CC_CONFIG;
  c.params_addr = to_le(pair.a.h.alloc(64));
  c.params_len = to_le<uint32_t>(64);
  c.op = 2;
  EXPECT_EQ(pair.a.h.execute(DriverHarness::as_sqe(c)).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  c.op = ORNIC_CC_CONFIG_SET;
  c.reserved1[3] = to_le<uint32_t>(1);
  EXPECT_EQ(pair.a.h.execute(DriverHarness::as_sqe(c)).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  c.reserved1[3] = 0;
  c.params_len = to_le<uint32_t>(63);
  EXPECT_EQ(pair.a.h.execute(DriverHarness::as_sqe(c)).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  c.op = ORNIC_CC_CONFIG_QUERY;
  EXPECT_EQ(pair.a.h.execute(DriverHarness::as_sqe(c)).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  c.params_len = to_le<uint32_t>(64);
  c.op = ORNIC_CC_CONFIG_SET;
  c.params_addr = to_le<uint64_t>(0xdead'0000'0000);
  EXPECT_EQ(pair.a.h.execute(DriverHarness::as_sqe(c)).status, ORNIC_ADMIN_STATUS_BAD_DMA);
  const ornic_cc_params now = query(pair.a);
  EXPECT_EQ(std::memcmp(&now, &good, sizeof(now)), 0);
}

TEST_F(Cc, CnpsNobodyShouldActOnAreDroppedAndCounted) {
  // Forged CNPs delivered straight into a's port: from b's addresses to a's QP...
  roce::PacketDescription from_b;
  from_b.source_mac = pair.b.mac;
  from_b.destination_mac = pair.a.mac;
  from_b.source_gid = pair.b.gid;
  from_b.destination_gid = pair.a.gid;
  std::vector<uint8_t> frame;
  const auto inject = [&](const std::vector<uint8_t>& f) {
    pair.wire.end(kB).send(std::as_bytes(std::span<const uint8_t>(f)));
    pair.pump();
  };
  // ... to a QP that does not exist,
  ASSERT_TRUE(roce::build_cnp(from_b, 0xabcdef, 0, frame));
  inject(frame);
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_RX_UNKNOWN_QP), 1u);
  // from a stranger's GID,
  roce::PacketDescription stranger = from_b;
  stranger.source_gid[15] ^= 0x55;
  ASSERT_TRUE(roce::build_cnp(stranger, qa.qpn, 0, frame));
  inject(frame);
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_RX_PEER_MISMATCH), 1u);
  // with the reserved bytes cut short (ICRC recomputed: only the length is wrong),
  ASSERT_TRUE(roce::build_cnp(from_b, qa.qpn, 0, frame));
  std::vector<uint8_t> short_cnp(frame);
  {
    // Rebuild as an IPv4 packet 4 bytes shorter: lengths, checksum and ICRC follow.
    roce::PacketDescription d = from_b;
    d.bth.opcode = static_cast<uint8_t>(iba::Opcode::rc_send_only);
    d.bth.destination_qp = qa.qpn;
    std::vector<uint8_t> twelve(12, 0);
    ASSERT_EQ(roce::build_frame(d, twelve, short_cnp), roce::BuildError::ok);
    // Turn the SEND ONLY into opcode 0x81 and fix the ICRC over the changed byte.
    const size_t bth = 14 + 20 + 8;
    short_cnp[bth] = roce::kCnpOpcode;
    const size_t ip_end = short_cnp.size() - 4;
    const auto ip = std::span<uint8_t>(short_cnp).subspan(14, ip_end - 14);
    roce::store_icrc(std::span<uint8_t>(short_cnp).subspan(ip_end).first<4>(),
                     roce::compute_icrc(roce::IpFamily::ipv4, ip));
  }
  inject(short_cnp);
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_RX_BAD_HEADER), 1u);
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_CC_CNPS_HANDLED), 0u);
  EXPECT_EQ(rate_of(qa), 0u);
  // The genuine one is acted on, and the QP still works.
  inject(frame);
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_CC_CNPS_HANDLED), 1u);
  EXPECT_EQ(rate_of(qa), 50'049u);
  write(1);
  EXPECT_EQ(pair.wait_cqes(pair.a, 1).size(), 1u);
  EXPECT_TRUE(arrived());
}

} // namespace
} // namespace ornic::test
