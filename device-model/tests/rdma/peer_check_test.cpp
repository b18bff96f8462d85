// roce.rst, "Connected peer": an RC or UC QP accepts packets only from the address its
// address vector names, and never from the wire to a broadcast or multicast MAC. A third
// host that knows the QPN, the next PSN and an rkey gets nothing done: memory untouched, no
// answer, PSNs and state unchanged, RX_PEER_MISMATCH counted. IPv4 and IPv6 GIDs.
#include <algorithm>
#include <cstring>

#include <gtest/gtest.h>

#include "iba/aeth_syndrome.hpp"
#include "iba/opcode_table.hpp"
#include "rdma_pair.hpp"
#include "roce/builder.hpp"

namespace ornic::test {
namespace {

constexpr int kA = 0, kB = 1; // wire sides: frames sent by a / by b
constexpr MacAddress kMacStranger = {0x02, 0, 0, 0, 0, 0x0c};
constexpr MacAddress kBroadcast = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
constexpr MacAddress kIpv4MulticastMac = {0x01, 0x00, 0x5e, 0x00, 0x00, 0x01};
constexpr size_t kLength = 256;
constexpr uint64_t kTarget = 64 * 1024; // offset in b's buffer the WRITEs aim at

class PeerCheck : public ::testing::TestWithParam<bool> {
protected:
  PeerCheck() : pair(GetParam()) {}

  // A third node's address on the same subnet as a and b (which end in 1 and 2).
  roce::Gid stranger_gid() const {
    roce::Gid gid(pair.a.gid);
    gid[15] = 3;
    return gid;
  }

  void fill_a(uint8_t seed) {
    for (size_t i = 0; i < kLength; ++i)
      *pair.a.at(i) = std::byte{static_cast<uint8_t>(seed + i * 13)};
  }
  std::vector<std::byte> b_target() {
    return std::vector<std::byte>(pair.b.at(kTarget), pair.b.at(kTarget) + kLength);
  }

  // A WRITE Only to `to` on b with everything right (QPN, expected PSN, rkey, range), sent
  // from `source` with Ethernet destination `dmac`, as if a sent it.
  void inject_write(const Qp& to, uint32_t psn, const roce::Gid& source, const MacAddress& dmac,
                    uint8_t opcode = static_cast<uint8_t>(iba::Opcode::rc_rdma_write_only),
                    uint8_t payload_seed = 0x77) {
    roce::PacketDescription packet;
    packet.bth.opcode = opcode;
    packet.bth.destination_qp = to.qpn;
    packet.bth.psn = psn;
    packet.bth.ack_request = true;
    packet.reth = iba::Reth{pair.b.buffer + kTarget, pair.b.key, kLength};
    packet.source_gid = source;
    packet.source_mac = source == roce::Gid(pair.a.gid) ? pair.a.mac : kMacStranger;
    packet.destination_gid = roce::Gid(pair.b.gid);
    packet.destination_mac = dmac;
    std::vector<uint8_t> payload(kLength);
    for (size_t i = 0; i < kLength; ++i)
      payload[i] = static_cast<uint8_t>(payload_seed + i);
    std::vector<uint8_t> frame;
    ASSERT_EQ(roce::build_frame(packet, payload, frame), roce::BuildError::ok);
    pair.wire.end(kA).send(std::as_bytes(std::span<const uint8_t>(frame)));
    pair.pump();
  }

  // qa's first WRITE: it carries the PSN qb expects (0x100 + qa.qpn); data from a's buffer.
  void real_write_succeeds(Qp& qa, uint64_t wr_id) {
    fill_a(static_cast<uint8_t>(wr_id));
    auto w = send_wqe(ORNIC_WQE_OP_RDMA_WRITE, wr_id);
    w.rdma.remote_addr = to_le(pair.b.buffer + kTarget);
    w.rdma.rkey = to_le(pair.b.key);
    qa.post_send(w, {sge(pair.a.buffer, kLength, pair.a.key)});
    const auto done = pair.wait_cqes(pair.a, 1);
    ASSERT_EQ(done.size(), 1u);
    EXPECT_EQ(done[0].status, ORNIC_CQE_SUCCESS);
    EXPECT_EQ(le(done[0].wr_id), wr_id);
    EXPECT_EQ(std::memcmp(pair.a.at(0), pair.b.at(kTarget), kLength), 0);
  }

  RdmaPair pair;
};

TEST_P(PeerCheck, SpoofedWriteFromAThirdAddressIsDroppedAndTheQpKeepsWorking) {
  auto [qa, qb] = pair.rc_pair();
  const auto before = b_target();
  inject_write(qb, 0x100 + qa.qpn, stranger_gid(), pair.b.mac);

  EXPECT_EQ(b_target(), before) << "the stranger's WRITE was executed";
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_PEER_MISMATCH), 1u);
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_RDMA_PACKETS), 1u);
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_TX_RDMA_PACKETS), 0u) << "no ACK or NAK to anyone";
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_PSN_ERRORS), 0u);
  EXPECT_EQ(qb.state(), ORNIC_QPS_RTS);
  EXPECT_FALSE(pair.b.poll().has_value());
  // The PSN the stranger used is still the one qb expects from its real peer.
  real_write_succeeds(qa, 1);
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_PEER_MISMATCH), 1u);
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_RETRANSMITS), 0u);
}

TEST_P(PeerCheck, TheSameFrameFromThePeersAddressIsExecuted) {
  // The control for the test above: only the source address differed.
  auto [qa, qb] = pair.rc_pair();
  inject_write(qb, 0x100 + qa.qpn, roce::Gid(pair.a.gid), pair.b.mac);
  for (size_t i = 0; i < kLength; ++i)
    ASSERT_EQ(std::to_integer<uint8_t>(*pair.b.at(kTarget + i)), static_cast<uint8_t>(0x77 + i));
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_PEER_MISMATCH), 0u);
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_TX_RDMA_PACKETS), 1u) << "the ACK";
}

TEST_P(PeerCheck, RcFramesToABroadcastOrMulticastMacAreDropped) {
  auto [qa, qb] = pair.rc_pair();
  const auto before = b_target();
  // From the right address, with a valid header, but to every host on the segment.
  inject_write(qb, 0x100 + qa.qpn, roce::Gid(pair.a.gid), kBroadcast);
  inject_write(qb, 0x100 + qa.qpn, roce::Gid(pair.a.gid), kIpv4MulticastMac);
  EXPECT_EQ(b_target(), before);
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_PEER_MISMATCH), 2u);
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_TX_RDMA_PACKETS), 0u);
  EXPECT_EQ(qb.state(), ORNIC_QPS_RTS);
  real_write_succeeds(qa, 2);
}

TEST_P(PeerCheck, SpoofedUcWriteIsDroppedToo) {
  auto [qa, qb] = pair.uc_pair();
  const auto before = b_target();
  inject_write(qb, 0x100 + qa.qpn, stranger_gid(), pair.b.mac,
               static_cast<uint8_t>(iba::Opcode::uc_rdma_write_only));
  EXPECT_EQ(b_target(), before);
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_PEER_MISMATCH), 1u);
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_UC_DROPPED), 0u) << "not even seen as a message";
  inject_write(qb, 0x100 + qa.qpn, roce::Gid(pair.a.gid), kBroadcast,
               static_cast<uint8_t>(iba::Opcode::uc_rdma_write_only));
  EXPECT_EQ(b_target(), before);
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_PEER_MISMATCH), 2u);
  real_write_succeeds(qa, 3);
}

TEST_P(PeerCheck, SpoofedNakCannotFailTheRequester) {
  auto [qa, qb] = pair.rc_pair();
  // b's ACKs are lost for now, so qa's WRITE stays outstanding at PSN 0x100 + qa.qpn.
  pair.wire.policy = [](int side, uint64_t, const auto&) {
    return side == kB ? WireAction::drop : WireAction::deliver;
  };
  fill_a(5);
  auto w = send_wqe(ORNIC_WQE_OP_RDMA_WRITE, 9);
  w.rdma.remote_addr = to_le(pair.b.buffer + kTarget);
  w.rdma.rkey = to_le(pair.b.key);
  qa.post_send(w, {sge(pair.a.buffer, kLength, pair.a.key)});
  pair.pump();
  ASSERT_FALSE(pair.a.poll().has_value());

  // A NAK (remote access error) for exactly that PSN, from a third address to qa.
  roce::PacketDescription nak;
  nak.bth.opcode = static_cast<uint8_t>(iba::Opcode::rc_acknowledge);
  nak.bth.destination_qp = qa.qpn;
  nak.bth.psn = 0x100 + qa.qpn;
  nak.aeth = iba::Aeth{iba::make_nak_syndrome(iba::NakCode::remote_access_error), 0};
  nak.source_gid = stranger_gid();
  nak.source_mac = kMacStranger;
  nak.destination_gid = roce::Gid(pair.a.gid);
  nak.destination_mac = pair.a.mac;
  std::vector<uint8_t> frame;
  ASSERT_EQ(roce::build_frame(nak, {}, frame), roce::BuildError::ok);
  pair.wire.policy = nullptr;
  pair.wire.end(kB).send(std::as_bytes(std::span<const uint8_t>(frame)));
  pair.pump();
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_RX_PEER_MISMATCH), 1u);
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_NAKS_RECEIVED), 0u);
  EXPECT_EQ(qa.state(), ORNIC_QPS_RTS);
  ASSERT_FALSE(pair.a.poll().has_value());

  // The ACK timeout resends, the real peer answers, the WRITE completes.
  const auto done = pair.wait_cqes(pair.a, 1);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(le(done[0].wr_id), 9u);
  EXPECT_GT(pair.a.counter(ORNIC_CNT_RETRANSMITS), 0u);
}

TEST_P(PeerCheck, UdAcceptsDatagramsFromAnyAddress) {
  // UD has no connected peer: a datagram from a third address is delivered as before.
  Qp qa = pair.create_qp(pair.a, ORNIC_QPT_UD), qb = pair.create_qp(pair.b, ORNIC_QPT_UD);
  pair.bring_up_ud(qa, 0x1234);
  pair.bring_up_ud(qb, 0x1234);
  qb.post_recv(1, {sge(pair.b.buffer + kTarget, 4096, pair.b.key)});
  roce::PacketDescription packet;
  packet.bth.opcode = static_cast<uint8_t>(iba::Opcode::ud_send_only);
  packet.bth.destination_qp = qb.qpn;
  packet.deth = iba::Deth{0x1234, 77};
  packet.source_gid = stranger_gid();
  packet.source_mac = kMacStranger;
  packet.destination_gid = roce::Gid(pair.b.gid);
  packet.destination_mac = pair.b.mac;
  const std::vector<uint8_t> payload(32, 0x42);
  std::vector<uint8_t> frame;
  ASSERT_EQ(roce::build_frame(packet, payload, frame), roce::BuildError::ok);
  pair.wire.end(kA).send(std::as_bytes(std::span<const uint8_t>(frame)));
  const auto received = pair.wait_cqes(pair.b, 1);
  ASSERT_EQ(received.size(), 1u);
  EXPECT_EQ(received[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(le(received[0].src_qp), 77u);
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_PEER_MISMATCH), 0u);
}

INSTANTIATE_TEST_SUITE_P(Gids, PeerCheck, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "Ipv6" : "Ipv4"; });

} // namespace
} // namespace ornic::test
