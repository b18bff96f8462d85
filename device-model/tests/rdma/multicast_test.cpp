// UD multicast (roce.rst "Multicast", admin.rst ATTACH_MCAST/DETACH_MCAST): the attach
// rules and limits, one datagram reaching every attached QP of both ports (the sender's own
// port by loopback), per-QP Q_Key checks, detach and destroy, and malformed multicast input.
#include <algorithm>
#include <map>

#include <gtest/gtest.h>

#include "core/device_limits.hpp"
#include "rdma_pair.hpp"

namespace ornic::test {
namespace {

using Gid = std::array<uint8_t, 16>;

constexpr uint32_t kQkey = 0x11110000;
constexpr Gid kGroupV4 = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 239, 1, 2, 3};
constexpr Gid kGroupV6 = {0xff, 0x0e, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x12, 0x34, 0x56, 0x78};
constexpr uint32_t kPayload = 200;

ornic_admin_cqe mcast(Node& node, uint8_t opcode, uint32_t qpn, const Gid& gid) {
  ornic_admin_mcast c{};
  c.hdr.opcode = opcode;
  c.qpn = to_le(qpn);
  std::copy(gid.begin(), gid.end(), c.gid);
  return node.h.execute(DriverHarness::as_sqe(c));
}

uint8_t attach(Node& node, uint32_t qpn, const Gid& gid) {
  return mcast(node, ORNIC_ADMIN_ATTACH_MCAST, qpn, gid).status;
}

uint8_t detach(Node& node, uint32_t qpn, const Gid& gid) {
  return mcast(node, ORNIC_ADMIN_DETACH_MCAST, qpn, gid).status;
}

Gid group_n(uint32_t n) {
  Gid gid = kGroupV4;
  gid[14] = static_cast<uint8_t>(n >> 8);
  gid[15] = static_cast<uint8_t>(n);
  return gid;
}

class Multicast : public ::testing::Test {
protected:
  explicit Multicast(bool ipv6 = false) : pair(ipv6), group(ipv6 ? kGroupV6 : kGroupV4) {
    pair.wire.policy = [this](int side, uint64_t, const LossyWire::Frame& frame) {
      wire_frames[side].push_back(frame);
      return WireAction::deliver;
    };
  }

  Qp ud_qp(Node& node, uint32_t qkey = kQkey) {
    Qp qp = pair.create_qp(node, ORNIC_QPT_UD);
    pair.bring_up_ud(qp, qkey);
    return qp;
  }

  // An AH on `node` addressing the group; its dmac is deliberately not the group's MAC.
  uint32_t group_ah(Node& node) {
    ornic_admin_create_ah c{};
    c.hdr.opcode = ORNIC_ADMIN_CREATE_AH;
    c.pd = to_le(node.pd);
    std::copy(group.begin(), group.end(), c.dgid);
    c.dmac[0] = 0x02;
    c.dmac[5] = 0x99;
    c.hop_limit = 1;
    const auto cqe = node.h.execute(DriverHarness::as_sqe(c));
    EXPECT_EQ(cqe.status, ORNIC_ADMIN_STATUS_SUCCESS);
    return le(cqe.result0);
  }

  // A receive buffer of GRH + payload at `offset` of the node's buffer, poisoned.
  void post_recv(Qp& qp, uint64_t offset) {
    std::memset(qp.node->at(offset), 0xee, 40 + kPayload);
    qp.post_recv(offset, {sge(qp.node->buffer + offset, 40 + kPayload, qp.node->key)});
  }

  // One datagram of kPayload bytes to the group, from `from` through AH `ah`.
  void send_to_group(Qp& from, uint32_t ah, uint32_t remote_qpn = ORNIC_QPN_MULTICAST,
                     uint32_t qkey = kQkey) {
    Node& node = *from.node;
    for (uint32_t i = 0; i < kPayload; ++i)
      *node.at(kSendOffset + i) = std::byte(static_cast<uint8_t>(i * 7 + 3));
    auto w = send_wqe(ORNIC_WQE_OP_SEND, 0x5e5d);
    w.ud.ah = to_le(ah);
    w.ud.remote_qpn = to_le(remote_qpn);
    w.ud.qkey = to_le(qkey);
    from.post_send(w, {sge(node.buffer + kSendOffset, kPayload, node.key)});
  }

  // The receive CQEs of `node` by QPN (after the pump that delivered them), sends dropped.
  std::map<uint32_t, ornic_cqe> receives(Node& node, size_t expected) {
    std::map<uint32_t, ornic_cqe> by_qp;
    for (const ornic_cqe& cqe : pair.wait_cqes(node, expected, 10'000'000, 5)) {
      if (cqe.opcode == ORNIC_CQE_OP_RECV) {
        EXPECT_FALSE(by_qp.contains(le(cqe.qpn))) << "two receives on QP " << le(cqe.qpn);
        by_qp[le(cqe.qpn)] = cqe;
      }
    }
    return by_qp;
  }

  void expect_datagram(Qp& qp, const ornic_cqe& cqe, uint64_t offset, uint32_t src_qpn) {
    EXPECT_EQ(cqe.status, ORNIC_CQE_SUCCESS);
    EXPECT_EQ(le(cqe.wr_id), offset);
    EXPECT_EQ(le(cqe.byte_len), 40 + kPayload);
    EXPECT_EQ(le(cqe.src_qp), src_qpn);
    EXPECT_TRUE(cqe.flags & ORNIC_CQE_FLAG_GRH);
    for (uint32_t i = 0; i < kPayload; ++i)
      ASSERT_EQ(std::to_integer<uint8_t>(*qp.node->at(offset + 40 + i)),
                static_cast<uint8_t>(i * 7 + 3))
          << "byte " << i << " at QP " << qp.qpn;
  }

  static constexpr uint64_t kSendOffset = 0x80000;
  RdmaPair pair;
  Gid group;
  std::vector<LossyWire::Frame> wire_frames[2];
};

class MulticastV6 : public Multicast {
protected:
  MulticastV6() : Multicast(true) {}
};

TEST_F(Multicast, QueryDeviceReportsCapAndLimits) {
  DriverHarness& h = pair.a.h;
  const uint64_t response = le(h.contiguous_ring(sizeof(ornic_device_attr)).addr);
  ornic_admin_query q{};
  q.hdr.opcode = ORNIC_ADMIN_QUERY_DEVICE;
  q.resp_addr = to_le(response);
  q.resp_len = to_le(uint32_t{sizeof(ornic_device_attr)});
  ASSERT_EQ(h.execute(DriverHarness::as_sqe(q)).status, ORNIC_ADMIN_STATUS_SUCCESS);
  ornic_device_attr attr{};
  std::memcpy(&attr, h.memory.at(response), sizeof(attr));
  EXPECT_TRUE(le(attr.caps) & ORNIC_CAP_MCAST);
  EXPECT_EQ(le(attr.max_mcast_grp), limits::kMaxMcastGroups);
  EXPECT_EQ(le(attr.max_mcast_qp_attach), limits::kMaxMcastQpAttach);
  EXPECT_EQ(le(attr.max_total_mcast_qp_attach), limits::kMaxTotalMcastQpAttach);
}

TEST_F(Multicast, AttachRules) {
  Qp ud = ud_qp(pair.a);
  Qp rc = pair.create_qp(pair.a, ORNIC_QPT_RC);
  Qp gsi = pair.create_qp(pair.a, ORNIC_QPT_GSI);
  const Gid unicast = pair.a.gid;

  EXPECT_EQ(attach(pair.a, ud.qpn, group), ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(attach(pair.a, ud.qpn, group), ORNIC_ADMIN_STATUS_SUCCESS); // no-op
  EXPECT_EQ(attach(pair.a, rc.qpn, group), ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_EQ(attach(pair.a, gsi.qpn, group), ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_EQ(attach(pair.a, ud.qpn, unicast), ORNIC_ADMIN_STATUS_BAD_FIELD);
  Gid v4_unicast = kGroupV4;
  v4_unicast[12] = 10; // ::ffff:10.1.2.3
  EXPECT_EQ(attach(pair.a, ud.qpn, v4_unicast), ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_EQ(attach(pair.a, 999, group), ORNIC_ADMIN_STATUS_BAD_HANDLE);
  EXPECT_EQ(detach(pair.a, 999, group), ORNIC_ADMIN_STATUS_BAD_HANDLE);

  ornic_admin_mcast bad{};
  bad.hdr.opcode = ORNIC_ADMIN_ATTACH_MCAST;
  bad.qpn = to_le(ud.qpn);
  std::copy(group.begin(), group.end(), bad.gid);
  bad.reserved1[3] = to_le(1u);
  EXPECT_EQ(pair.a.h.execute(DriverHarness::as_sqe(bad)).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  bad.reserved1[3] = 0;
  bad.reserved0 = to_le(1u);
  EXPECT_EQ(pair.a.h.execute(DriverHarness::as_sqe(bad)).status, ORNIC_ADMIN_STATUS_BAD_FIELD);

  // One attach, however often repeated, is undone by one detach.
  EXPECT_EQ(detach(pair.a, ud.qpn, group), ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(detach(pair.a, ud.qpn, group), ORNIC_ADMIN_STATUS_BAD_HANDLE);
  EXPECT_EQ(detach(pair.a, rc.qpn, group), ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_EQ(detach(pair.a, ud.qpn, unicast), ORNIC_ADMIN_STATUS_BAD_FIELD);
  // IPv6 multicast GIDs are groups too, and an unattached QP (any state) may attach.
  Qp fresh = pair.create_qp(pair.a, ORNIC_QPT_UD);
  EXPECT_EQ(attach(pair.a, fresh.qpn, kGroupV6), ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(detach(pair.a, fresh.qpn, kGroupV6), ORNIC_ADMIN_STATUS_SUCCESS);
}

TEST_F(Multicast, Limits) {
  constexpr uint32_t kGroups = 64, kTotal = 512;
  pair.a.h.device.set_object_limits({.mcast_grp = kGroups, .mcast_attach = kTotal});
  std::vector<Qp> qps;
  for (uint32_t i = 0; i < limits::kMaxMcastQpAttach + 1; ++i)
    qps.push_back(pair.create_qp(pair.a, ORNIC_QPT_UD));
  for (uint32_t i = 0; i < limits::kMaxMcastQpAttach; ++i)
    ASSERT_EQ(attach(pair.a, qps[i].qpn, group), ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(attach(pair.a, qps.back().qpn, group), ORNIC_ADMIN_STATUS_LIMIT_EXCEEDED);
  EXPECT_EQ(detach(pair.a, qps[0].qpn, group), ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(attach(pair.a, qps.back().qpn, group), ORNIC_ADMIN_STATUS_SUCCESS);

  // Groups: one QP in max_mcast_grp groups (the first group counts), then no more.
  for (uint32_t n = 1; n < kGroups; ++n)
    ASSERT_EQ(attach(pair.a, qps[0].qpn, group_n(n)), ORNIC_ADMIN_STATUS_SUCCESS) << n;
  EXPECT_EQ(attach(pair.a, qps[0].qpn, group_n(1000)), ORNIC_ADMIN_STATUS_NO_RESOURCES);
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_ADMIN_NO_RESOURCES), 2u);

  // Total attachments: fill the existing groups until the device-wide limit.
  uint32_t total = limits::kMaxMcastQpAttach + kGroups - 1;
  for (uint32_t n = 1; total < kTotal; ++n)
    for (uint32_t i = 1; i < limits::kMaxMcastQpAttach && total < kTotal; ++i, ++total)
      ASSERT_EQ(attach(pair.a, qps[i].qpn, group_n(n)), ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(attach(pair.a, qps[limits::kMaxMcastQpAttach - 1].qpn, group_n(63)),
            ORNIC_ADMIN_STATUS_NO_RESOURCES);
  // Destroying a QP frees its attachments.
  ASSERT_EQ(pair.a.h.execute(DriverHarness::simple(ORNIC_ADMIN_DESTROY_QP, qps[1].qpn)).status,
            ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(attach(pair.a, qps[limits::kMaxMcastQpAttach - 1].qpn, group_n(63)),
            ORNIC_ADMIN_STATUS_SUCCESS);
}

TEST_F(Multicast, OneDatagramReachesEveryAttachedQpOfBothPorts) {
  Qp sender = ud_qp(pair.a);
  Qp local = ud_qp(pair.a); // on the sending port: reached by loopback
  Qp r1 = ud_qp(pair.b), r2 = ud_qp(pair.b), r3 = ud_qp(pair.b);
  Qp wrong_qkey = ud_qp(pair.b, 0x2222);
  Qp not_attached = ud_qp(pair.b);
  for (Qp* qp : {&local, &r1, &r2, &r3, &wrong_qkey})
    ASSERT_EQ(attach(*qp->node, qp->qpn, group), ORNIC_ADMIN_STATUS_SUCCESS);
  uint64_t offset = 0x1000;
  for (Qp* qp : {&local, &r1, &r2, &r3, &wrong_qkey, &not_attached})
    post_recv(*qp, offset += 0x1000);

  send_to_group(sender, group_ah(pair.a));
  auto got_b = receives(pair.b, 3);
  auto got_a = receives(pair.a, 2);
  ASSERT_EQ(got_b.size(), 3u);
  expect_datagram(r1, got_b[r1.qpn], 0x3000, sender.qpn);
  expect_datagram(r2, got_b[r2.qpn], 0x4000, sender.qpn);
  expect_datagram(r3, got_b[r3.qpn], 0x5000, sender.qpn);
  ASSERT_EQ(got_a.size(), 1u);
  expect_datagram(local, got_a[local.qpn], 0x2000, sender.qpn);
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_MCAST_DELIVERED), 3u);
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_QKEY_ERRORS), 1u);
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_RX_MCAST_DELIVERED), 1u);
  // The wrong Q_Key's and the unattached QP's buffers were not touched.
  EXPECT_EQ(std::to_integer<uint8_t>(*pair.b.at(0x6000 + 40)), 0xee);
  EXPECT_EQ(std::to_integer<uint8_t>(*pair.b.at(0x7000 + 40)), 0xee);

  // One frame on the wire, to the group's MAC and IP, from the port.
  ASSERT_EQ(wire_frames[0].size(), 1u);
  const LossyWire::Frame& frame = wire_frames[0][0];
  const uint8_t mac[6] = {0x01, 0x00, 0x5e, 1, 2, 3};
  for (size_t i = 0; i < 6; ++i)
    EXPECT_EQ(std::to_integer<uint8_t>(frame[i]), mac[i]) << "dmac byte " << i;
  for (size_t i = 0; i < 4; ++i)
    EXPECT_EQ(std::to_integer<uint8_t>(frame[14 + 16 + i]), group[12 + i]) << "dst IP " << i;

  // The receive WQEs that got nothing are still there for the next datagram.
  wire_frames[0].clear();
  ASSERT_EQ(detach(pair.b, wrong_qkey.qpn, group), ORNIC_ADMIN_STATUS_SUCCESS);
  ASSERT_EQ(attach(pair.b, not_attached.qpn, group), ORNIC_ADMIN_STATUS_SUCCESS);
  post_recv(r1, 0x8000);
  send_to_group(sender, group_ah(pair.a));
  got_b = receives(pair.b, 2);
  ASSERT_EQ(got_b.size(), 2u);
  expect_datagram(r1, got_b[r1.qpn], 0x8000, sender.qpn);
  expect_datagram(not_attached, got_b[not_attached.qpn], 0x7000, sender.qpn);
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_UD_NO_RECV), 2u); // r2, r3 had nothing posted
}

TEST_F(Multicast, DetachedAndDestroyedQpsStopReceiving) {
  Qp sender = ud_qp(pair.a);
  Qp r1 = ud_qp(pair.b), r2 = ud_qp(pair.b);
  ASSERT_EQ(attach(pair.b, r1.qpn, group), ORNIC_ADMIN_STATUS_SUCCESS);
  ASSERT_EQ(attach(pair.b, r2.qpn, group), ORNIC_ADMIN_STATUS_SUCCESS);
  post_recv(r1, 0x1000);
  post_recv(r2, 0x2000);
  ASSERT_EQ(detach(pair.b, r1.qpn, group), ORNIC_ADMIN_STATUS_SUCCESS);
  const uint32_t ah = group_ah(pair.a);
  send_to_group(sender, ah);
  auto got = receives(pair.b, 1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_TRUE(got.contains(r2.qpn));
  EXPECT_EQ(std::to_integer<uint8_t>(*pair.b.at(0x1000 + 40)), 0xee);

  // The last member destroyed: the group is gone, datagrams are counted and dropped.
  ASSERT_EQ(pair.b.h.execute(DriverHarness::simple(ORNIC_ADMIN_DESTROY_QP, r2.qpn)).status,
            ORNIC_ADMIN_STATUS_SUCCESS);
  send_to_group(sender, ah);
  EXPECT_TRUE(receives(pair.b, 1).empty());
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_MCAST_NO_GROUP), 1u);
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_MCAST_DELIVERED), 1u);
  // No local member on the sending port: nothing looped back there.
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_RX_RDMA_PACKETS), 0u);
}

TEST_F(Multicast, SenderAttachedToItsGroupGetsItsOwnDatagram) {
  Qp sender = ud_qp(pair.a);
  ASSERT_EQ(attach(pair.a, sender.qpn, group), ORNIC_ADMIN_STATUS_SUCCESS);
  post_recv(sender, 0x1000);
  send_to_group(sender, group_ah(pair.a));
  const auto got = receives(pair.a, 2);
  ASSERT_EQ(got.size(), 1u);
  expect_datagram(sender, got.at(sender.qpn), 0x1000, sender.qpn);
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_MCAST_NO_GROUP), 1u); // the wire copy
}

TEST_F(Multicast, DatagramToAUnicastQpnOfAGroupIsABadHeader) {
  Qp sender = ud_qp(pair.a);
  Qp r1 = ud_qp(pair.b);
  ASSERT_EQ(attach(pair.b, r1.qpn, group), ORNIC_ADMIN_STATUS_SUCCESS);
  post_recv(r1, 0x1000);
  send_to_group(sender, group_ah(pair.a), r1.qpn);
  EXPECT_TRUE(receives(pair.b, 1).empty());
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_BAD_HEADER), 1u);
  // The receive stays posted: a proper datagram still lands.
  send_to_group(sender, group_ah(pair.a));
  EXPECT_EQ(receives(pair.b, 1).size(), 1u);
}

TEST_F(Multicast, QpOutOfReceivingStateIsSkippedOthersStillReceive) {
  Qp sender = ud_qp(pair.a);
  Qp idle = pair.create_qp(pair.b, ORNIC_QPT_UD); // RESET
  Qp r1 = ud_qp(pair.b);
  ASSERT_EQ(attach(pair.b, idle.qpn, group), ORNIC_ADMIN_STATUS_SUCCESS);
  ASSERT_EQ(attach(pair.b, r1.qpn, group), ORNIC_ADMIN_STATUS_SUCCESS);
  post_recv(r1, 0x1000);
  send_to_group(sender, group_ah(pair.a));
  const auto got = receives(pair.b, 1);
  ASSERT_EQ(got.size(), 1u);
  expect_datagram(r1, got.at(r1.qpn), 0x1000, sender.qpn);
}

TEST_F(MulticastV6, Ipv6GroupUsesThe3333MacAndDelivers) {
  Qp sender = ud_qp(pair.a);
  Qp r1 = ud_qp(pair.b), r2 = ud_qp(pair.b);
  ASSERT_EQ(attach(pair.b, r1.qpn, group), ORNIC_ADMIN_STATUS_SUCCESS);
  ASSERT_EQ(attach(pair.b, r2.qpn, group), ORNIC_ADMIN_STATUS_SUCCESS);
  post_recv(r1, 0x1000);
  post_recv(r2, 0x2000);
  send_to_group(sender, group_ah(pair.a));
  auto got = receives(pair.b, 2);
  ASSERT_EQ(got.size(), 2u);
  expect_datagram(r1, got[r1.qpn], 0x1000, sender.qpn);
  expect_datagram(r2, got[r2.qpn], 0x2000, sender.qpn);
  ASSERT_EQ(wire_frames[0].size(), 1u);
  const uint8_t mac[6] = {0x33, 0x33, 0x12, 0x34, 0x56, 0x78};
  for (size_t i = 0; i < 6; ++i)
    EXPECT_EQ(std::to_integer<uint8_t>(wire_frames[0][0][i]), mac[i]) << "dmac byte " << i;
}

} // namespace
} // namespace ornic::test
