// roce.rst, "Responder resources": READ amplification. A READ request is answered from the
// responder's read-resource ring a bounded number of packets per EventLoop turn (a 1 GiB
// READ does not build a gigabyte at once), a duplicate READ is answered again only while
// it is held in the ring and from its own PSN, and READs/atomics beyond max_dest_rd_atomic
// are NAKed invalid request. Crafted requests come "from a" on the wire; what b answers
// is counted (and kept from a) by the wire policy.
#include <cstring>

#include <gtest/gtest.h>

#include "iba/aeth_syndrome.hpp"
#include "iba/opcode_table.hpp"
#include "rdma/transport_engine.hpp"
#include "rdma_pair.hpp"
#include "roce/builder.hpp"
#include "roce/parser.hpp"

namespace ornic::test {
namespace {

constexpr int kA = 0, kB = 1;

struct Seen {
  uint8_t opcode = 0;
  uint32_t psn = 0;
  std::optional<uint8_t> syndrome;
  std::vector<uint8_t> payload;
};

class ReadResources : public ::testing::Test {
protected:
  void SetUp() override {
    pair.wire.policy = [this](int side, uint64_t, const LossyWire::Frame& frame) {
      if (side != kB || !capture)
        return WireAction::deliver;
      roce::ParsedPacket parsed;
      const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(frame.data()),
                                           frame.size());
      if (roce::parse_frame(bytes, parsed) == roce::ParseError::ok) {
        Seen seen;
        seen.opcode = parsed.description.bth.opcode;
        seen.psn = parsed.description.bth.psn;
        if (parsed.description.aeth)
          seen.syndrome = parsed.description.aeth->syndrome;
        if (keep_payloads)
          seen.payload.assign(parsed.payload.begin(), parsed.payload.end());
        from_b.push_back(std::move(seen));
      }
      return WireAction::drop;
    };
  }

  // A request to qb as qa would send it, queued on the wire (delivered by the caller).
  void queue_request(const Qp& to, iba::Opcode opcode, uint32_t psn, uint64_t va, uint32_t rkey,
                     uint32_t length) {
    roce::PacketDescription packet;
    packet.bth.opcode = static_cast<uint8_t>(opcode);
    packet.bth.destination_qp = to.qpn;
    packet.bth.psn = psn;
    packet.bth.ack_request = true;
    if (opcode == iba::Opcode::rc_compare_swap)
      packet.atomic_eth = iba::AtomicEth{va, rkey, 1, 0};
    else
      packet.reth = iba::Reth{va, rkey, length};
    packet.source_gid = roce::Gid(pair.a.gid);
    packet.source_mac = pair.a.mac;
    packet.destination_gid = roce::Gid(pair.b.gid);
    packet.destination_mac = pair.b.mac;
    std::vector<uint8_t> frame;
    ASSERT_EQ(roce::build_frame(packet, {}, frame), roce::BuildError::ok);
    pair.wire.end(kA).send(std::as_bytes(std::span<const uint8_t>(frame)));
  }

  uint32_t psn_of_a(uint32_t n) const { return (0x100 + qa.qpn + n) & iba::kPsnMask; }

  RdmaPair pair;
  Qp qa, qb;
  bool capture = false;
  bool keep_payloads = true;
  std::vector<Seen> from_b;
};

// 512 DIRECT pages of 2 MiB that all map the same 2 MiB of b's memory: a 1 GiB MR.
uint32_t register_gigabyte(Node& node, uint64_t iova, uint64_t& backing) {
  DriverHarness& h = node.h;
  backing = h.alloc(2 << 20, 2 << 20);
  for (size_t i = 0; i < (2u << 20); ++i)
    *h.memory.at(backing + i) = std::byte{static_cast<uint8_t>(i * 7 + i / 4096)};
  const uint64_t list = h.alloc(512 * 8);
  for (uint64_t i = 0; i < 512; ++i)
    h.write(list + i * 8, to_le(backing));
  ornic_admin_reg_mr c{};
  c.hdr.opcode = ORNIC_ADMIN_REG_MR;
  c.mem.addr = to_le(list);
  c.mem.num_pages = to_le(512u);
  c.mem.page_shift = 21;
  c.mem.mode = ORNIC_MEM_MODE_DIRECT;
  c.iova = to_le(iova);
  c.length = to_le(uint64_t{1} << 30);
  c.pd = to_le(node.pd);
  c.access = to_le(ORNIC_ACCESS_LOCAL_WRITE | ORNIC_ACCESS_REMOTE_READ);
  c.key_variant = 0x33;
  const auto cqe = h.execute(DriverHarness::as_sqe(c));
  EXPECT_EQ(cqe.status, ORNIC_ADMIN_STATUS_SUCCESS);
  return le(cqe.result0);
}

TEST_F(ReadResources, GigabyteReadIsAnsweredABoundedNumberOfPacketsPerTurn) {
  std::tie(qa, qb) = pair.rc_pair(ORNIC_MTU_1024);
  constexpr uint64_t kIova = 0x4000'0000'0000;
  uint64_t backing = 0;
  const uint32_t rkey = register_gigabyte(pair.b, kIova, backing);
  capture = true;
  queue_request(qb, iba::Opcode::rc_rdma_read_request, psn_of_a(0), kIova, rkey, 1u << 30);
  pair.wire.deliver(); // b takes the request
  EXPECT_LE(from_b.size(), TransportEngine::kPacketsPerTurn) << "answered all at once";
  ASSERT_LT(from_b.size(), 1000u);
  size_t total = from_b.size();
  for (int turn = 0; turn < 20; ++turn) {
    pair.b.h.loop.run_once(std::chrono::milliseconds(0));
    EXPECT_LE(from_b.size() - total, TransportEngine::kPacketsPerTurn) << "turn " << turn;
    total = from_b.size();
  }
  // It goes on, in order, with the right data.
  ASSERT_GE(total, 20u);
  for (size_t i = 0; i < total; ++i) {
    EXPECT_EQ(from_b[i].psn, psn_of_a(static_cast<uint32_t>(i)));
    EXPECT_EQ(from_b[i].opcode,
              static_cast<uint8_t>(i == 0 ? iba::Opcode::rc_rdma_read_response_first
                                          : iba::Opcode::rc_rdma_read_response_middle));
    ASSERT_EQ(from_b[i].payload.size(), 1024u);
    const uint64_t at = (i * 1024) % (2 << 20);
    EXPECT_EQ(std::memcmp(from_b[i].payload.data(), pair.b.h.memory.at(backing + at), 1024), 0);
  }
  // (Not run to its end here: a million packets take seconds under the sanitizers.)
}

// A READ (multi-packet) followed at once by a SEND: both complete, in order, with the data.
TEST_F(ReadResources, MultiPacketReadThenSendCompleteInOrderWithTheirData) {
  std::tie(qa, qb) = pair.rc_pair(ORNIC_MTU_256);
  constexpr size_t kLength = 40 * 256 + 77;
  for (size_t i = 0; i < kLength; ++i)
    *pair.b.at(i) = std::byte{static_cast<uint8_t>(i * 31 + 5)};
  qb.post_recv(9, {sge(pair.b.buffer + 600000, 64, pair.b.key)});
  auto read = send_wqe(ORNIC_WQE_OP_RDMA_READ, 1);
  read.rdma.remote_addr = to_le(pair.b.buffer);
  read.rdma.rkey = to_le(pair.b.key);
  qa.post_send(read, {sge(pair.a.buffer + 200000, kLength, pair.a.key)});
  qa.post_send_inline(send_wqe(ORNIC_WQE_OP_SEND, 2), std::vector<uint8_t>(64, 0xab));
  const auto done = pair.wait_cqes(pair.a, 2);
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(le(done[0].wr_id), 1u);
  EXPECT_EQ(done[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(le(done[1].wr_id), 2u);
  EXPECT_EQ(done[1].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(std::memcmp(pair.a.at(200000), pair.b.at(0), kLength), 0);
  const auto received = pair.wait_cqes(pair.b, 1);
  ASSERT_EQ(received.size(), 1u);
  EXPECT_EQ(received[0].status, ORNIC_CQE_SUCCESS);
}

TEST_F(ReadResources, DuplicateReadIsAnsweredFromItsPsnOnlyWhileHeld) {
  std::tie(qa, qb) = pair.rc_pair(ORNIC_MTU_1024);
  for (size_t i = 0; i < 4096; ++i)
    *pair.b.at(i) = std::byte{static_cast<uint8_t>(i * 3 + 1)};
  auto read = [&](uint64_t wr_id, uint64_t offset, uint32_t length) {
    auto w = send_wqe(ORNIC_WQE_OP_RDMA_READ, wr_id);
    w.rdma.remote_addr = to_le(pair.b.buffer + offset);
    w.rdma.rkey = to_le(pair.b.key);
    qa.post_send(w, {sge(pair.a.buffer + 100000 + offset, length, pair.a.key)});
    const auto done = pair.wait_cqes(pair.a, 1);
    ASSERT_EQ(done.size(), 1u);
    EXPECT_EQ(done[0].status, ORNIC_CQE_SUCCESS);
  };
  read(1, 0, 4096); // PSNs 0..3 of a

  // The part from PSN 2: answered as a READ of two packets from there.
  capture = true;
  queue_request(qb, iba::Opcode::rc_rdma_read_request, psn_of_a(2), pair.b.buffer + 2048,
                pair.b.key, 2048);
  pair.pump();
  ASSERT_EQ(from_b.size(), 2u);
  EXPECT_EQ(from_b[0].psn, psn_of_a(2));
  EXPECT_EQ(from_b[0].opcode, static_cast<uint8_t>(iba::Opcode::rc_rdma_read_response_first));
  EXPECT_EQ(from_b[1].psn, psn_of_a(3));
  EXPECT_EQ(from_b[1].opcode, static_cast<uint8_t>(iba::Opcode::rc_rdma_read_response_last));
  EXPECT_EQ(std::memcmp(from_b[0].payload.data(), pair.b.at(2048), 1024), 0);
  EXPECT_EQ(std::memcmp(from_b[1].payload.data(), pair.b.at(3072), 1024), 0);

  // Not a part of what that READ asked for: dropped.
  from_b.clear();
  queue_request(qb, iba::Opcode::rc_rdma_read_request, psn_of_a(0), pair.b.buffer + 8192,
                pair.b.key, 4096);
  queue_request(qb, iba::Opcode::rc_rdma_read_request, psn_of_a(1), pair.b.buffer, pair.b.key,
                4096);
  pair.pump();
  EXPECT_TRUE(from_b.empty());

  // Four newer READs (max_dest_rd_atomic 4) push it out of the ring: no longer answered.
  capture = false;
  for (uint64_t n = 0; n < 4; ++n)
    read(2 + n, 1024 * n, 1024);
  capture = true;
  queue_request(qb, iba::Opcode::rc_rdma_read_request, psn_of_a(0), pair.b.buffer, pair.b.key,
                4096);
  pair.pump();
  EXPECT_TRUE(from_b.empty()) << from_b.size() << " responses to a READ no longer held";
  // The newest is still held.
  queue_request(qb, iba::Opcode::rc_rdma_read_request, psn_of_a(7), pair.b.buffer + 3072,
                pair.b.key, 1024);
  pair.pump();
  ASSERT_EQ(from_b.size(), 1u);
  EXPECT_EQ(from_b[0].opcode, static_cast<uint8_t>(iba::Opcode::rc_rdma_read_response_only));
  EXPECT_EQ(qb.state(), ORNIC_QPS_RTS);
}

// rc_pair gives qb max_dest_rd_atomic 4: a fifth READ or atomic while four still wait for
// their responses is NAKed invalid request, and the QP goes to ERR.
TEST_F(ReadResources, ReadBeyondMaxDestRdAtomicIsNakedInvalidRequest) {
  std::tie(qa, qb) = pair.rc_pair(ORNIC_MTU_1024);
  capture = true;
  for (uint32_t n = 0; n < 5; ++n)
    queue_request(qb, iba::Opcode::rc_rdma_read_request, psn_of_a(n * 4), pair.b.buffer, pair.b.key,
                  4096);
  pair.pump();
  const auto nak = std::find_if(from_b.begin(), from_b.end(), [](const Seen& s) {
    return s.opcode == static_cast<uint8_t>(iba::Opcode::rc_acknowledge);
  });
  ASSERT_NE(nak, from_b.end()) << "no NAK among " << from_b.size() << " frames";
  EXPECT_EQ(nak->psn, psn_of_a(16));
  ASSERT_TRUE(nak->syndrome.has_value());
  EXPECT_EQ(*nak->syndrome, iba::make_nak_syndrome(iba::NakCode::invalid_request));
  EXPECT_EQ(qb.state(), ORNIC_QPS_ERR);
}

TEST_F(ReadResources, AtomicBeyondMaxDestRdAtomicIsNakedAndNotExecuted) {
  std::tie(qa, qb) = pair.rc_pair(ORNIC_MTU_1024);
  std::memset(pair.b.at(8192), 0, 8);
  capture = true;
  for (uint32_t n = 0; n < 4; ++n)
    queue_request(qb, iba::Opcode::rc_rdma_read_request, psn_of_a(n), pair.b.buffer, pair.b.key,
                  1024);
  queue_request(qb, iba::Opcode::rc_compare_swap, psn_of_a(4), pair.b.buffer + 8192, pair.b.key, 8);
  pair.pump();
  uint64_t value = 1;
  std::memcpy(&value, pair.b.at(8192), 8);
  EXPECT_EQ(value, 0u) << "the refused atomic was executed";
  ASSERT_FALSE(from_b.empty());
  EXPECT_EQ(from_b.back().opcode, static_cast<uint8_t>(iba::Opcode::rc_acknowledge));
  EXPECT_EQ(from_b.back().syndrome, iba::make_nak_syndrome(iba::NakCode::invalid_request));
  EXPECT_EQ(qb.state(), ORNIC_QPS_ERR);
}

// Two QPs of one NIC: every frame loops back through the engine's own queue. A READ of
// 2048 packets moves a bounded number of frames per turn and its data arrives whole.
TEST_F(ReadResources, LoopbackReadMovesABoundedNumberOfFramesPerTurn) {
  Qp q1 = pair.create_qp(pair.a), q2 = pair.create_qp(pair.a);
  pair.connect(q1, q2, ORNIC_MTU_256);
  pair.connect(q2, q1, ORNIC_MTU_256);
  constexpr size_t kLength = 2048 * 256;
  for (size_t i = 0; i < kLength; ++i)
    *pair.a.at(i) = std::byte{static_cast<uint8_t>(i * 11 + i / 256)};
  auto read = send_wqe(ORNIC_WQE_OP_RDMA_READ, 5);
  read.rdma.remote_addr = to_le(pair.a.buffer);
  read.rdma.rkey = to_le(pair.a.key);
  q1.post_send(read, {sge(pair.a.buffer + kLength, kLength, pair.a.key)});
  std::optional<ornic_cqe> done;
  uint64_t sent = pair.a.counter(ORNIC_CNT_TX_RDMA_PACKETS);
  for (int turn = 0; turn < 10000 && !done; ++turn) {
    pair.a.h.loop.run_once(std::chrono::milliseconds(0));
    const uint64_t now = pair.a.counter(ORNIC_CNT_TX_RDMA_PACKETS);
    ASSERT_LE(now - sent, 2 * TransportEngine::kPacketsPerTurn) << "turn " << turn;
    sent = now;
    done = pair.a.poll();
  }
  ASSERT_TRUE(done.has_value());
  EXPECT_EQ(done->status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(le(done->wr_id), 5u);
  EXPECT_EQ(std::memcmp(pair.a.at(0), pair.a.at(kLength), kLength), 0);
}

} // namespace
} // namespace ornic::test
