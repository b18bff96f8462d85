// Sizes and sequence arithmetic (roce.rst, "Reliability"): a request longer than
// max_msg_sz (2^31) is an invalid request, and a message of 2^23 packets (2 GiB at a
// 256-byte MTU) keeps the requester's PSN window and response matching right (the
// symmetric 24-bit distance turns 2^23 ahead into 2^23 behind).
#include <cstring>

#include <gtest/gtest.h>

#include "iba/aeth_syndrome.hpp"
#include "iba/opcode_table.hpp"
#include "rdma_pair.hpp"
#include "roce/builder.hpp"
#include "roce/parser.hpp"

namespace ornic::test {
namespace {

constexpr int kA = 0, kB = 1;
constexpr uint64_t kHugeIova = 0x7000'0000'0000;
constexpr uint64_t kMaxMsg = uint64_t{1} << 31;

struct Seen {
  uint8_t opcode = 0;
  uint32_t psn = 0;
  std::optional<uint8_t> syndrome;
};

// A 4 GiB MR of 2048 INDIRECT pages of 2 MiB that all map the same 2 MiB (`backing`).
uint32_t register_huge(Node& node, uint64_t& backing) {
  DriverHarness& h = node.h;
  backing = h.alloc(2 << 20, 2 << 20);
  const uint64_t top = h.alloc(4096);
  for (uint64_t t = 0; t < 4; ++t) {
    const uint64_t table = h.alloc(4096);
    h.write(top + t * 8, to_le(table));
    for (uint64_t i = 0; i < 512; ++i)
      h.write(table + i * 8, to_le(backing));
  }
  ornic_admin_reg_mr c{};
  c.hdr.opcode = ORNIC_ADMIN_REG_MR;
  c.mem.addr = to_le(top);
  c.mem.num_pages = to_le(2048u);
  c.mem.page_shift = 21;
  c.mem.mode = ORNIC_MEM_MODE_INDIRECT;
  c.iova = to_le(kHugeIova);
  c.length = to_le(uint64_t{4} << 30);
  c.pd = to_le(node.pd);
  c.access = to_le(ORNIC_ACCESS_LOCAL_WRITE | ORNIC_ACCESS_REMOTE_WRITE | ORNIC_ACCESS_REMOTE_READ);
  const auto cqe = h.execute(DriverHarness::as_sqe(c));
  EXPECT_EQ(cqe.status, ORNIC_ADMIN_STATUS_SUCCESS);
  return le(cqe.result0);
}

class MessageSize : public ::testing::Test {
protected:
  void SetUp() override {
    pair.wire.policy = [this](int side, uint64_t, const LossyWire::Frame& frame) {
      if (side != captured)
        return WireAction::deliver;
      roce::ParsedPacket parsed;
      const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(frame.data()),
                                           frame.size());
      if (roce::parse_frame(bytes, parsed) == roce::ParseError::ok) {
        Seen seen{parsed.description.bth.opcode, parsed.description.bth.psn, {}};
        if (parsed.description.aeth)
          seen.syndrome = parsed.description.aeth->syndrome;
        frames.push_back(seen);
      }
      return WireAction::drop;
    };
  }

  // A packet as `from` would send it to `to`'s QP `qpn`, queued on the wire.
  void queue(Node& from, Node& to, int side, roce::PacketDescription packet,
             const std::vector<uint8_t>& payload) {
    packet.source_gid = roce::Gid(from.gid);
    packet.source_mac = from.mac;
    packet.destination_gid = roce::Gid(to.gid);
    packet.destination_mac = to.mac;
    std::vector<uint8_t> frame;
    ASSERT_EQ(roce::build_frame(packet, payload, frame), roce::BuildError::ok);
    pair.wire.end(side).send(std::as_bytes(std::span<const uint8_t>(frame)));
  }

  RdmaPair pair;
  int captured = -1; // the side whose frames are recorded and dropped
  std::vector<Seen> frames;
};

TEST_F(MessageSize, WriteLongerThanMaxMessageIsAnInvalidRequest) {
  auto [qa, qb] = pair.rc_pair(ORNIC_MTU_1024);
  uint64_t backing = 0;
  const uint32_t rkey = register_huge(pair.b, backing);
  captured = kB;
  roce::PacketDescription write;
  write.bth.opcode = static_cast<uint8_t>(iba::Opcode::rc_rdma_write_first);
  write.bth.destination_qp = qb.qpn;
  write.bth.psn = 0x100 + qa.qpn;
  write.reth = iba::Reth{kHugeIova, rkey, static_cast<uint32_t>(kMaxMsg + 1024)};
  queue(pair.a, pair.b, kA, write, std::vector<uint8_t>(1024, 0x77));
  pair.pump();
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].opcode, static_cast<uint8_t>(iba::Opcode::rc_acknowledge));
  EXPECT_EQ(frames[0].syndrome, iba::make_nak_syndrome(iba::NakCode::invalid_request));
  EXPECT_EQ(*pair.b.h.memory.at(backing), std::byte{0}) << "placed a part of it";
  EXPECT_EQ(qb.state(), ORNIC_QPS_ERR);
}

TEST_F(MessageSize, WriteOfExactlyMaxMessageIsExecuted) {
  auto [qa, qb] = pair.rc_pair(ORNIC_MTU_1024);
  uint64_t backing = 0;
  const uint32_t rkey = register_huge(pair.b, backing);
  captured = kB;
  roce::PacketDescription write;
  write.bth.opcode = static_cast<uint8_t>(iba::Opcode::rc_rdma_write_first);
  write.bth.destination_qp = qb.qpn;
  write.bth.psn = 0x100 + qa.qpn;
  write.reth = iba::Reth{kHugeIova, rkey, static_cast<uint32_t>(kMaxMsg)};
  queue(pair.a, pair.b, kA, write, std::vector<uint8_t>(1024, 0x77));
  pair.pump();
  EXPECT_EQ(*pair.b.h.memory.at(backing), std::byte{0x77});
  EXPECT_EQ(qb.state(), ORNIC_QPS_RTS);
}

// a READs 2^31 bytes at MTU 256: 2^23 response PSNs. The SEND after it waits outside the
// send window, and the responses that come back are placed, not taken for stale ones.
TEST_F(MessageSize, ReadOfTwoToTheTwentyThreePacketsKeepsThePsnWindow) {
  Qp qa = pair.create_qp(pair.a), qb = pair.create_qp(pair.b);
  pair.connect(qa, qb, ORNIC_MTU_256);
  pair.connect(qb, qa, ORNIC_MTU_256);
  uint64_t backing = 0;
  const uint32_t lkey = register_huge(pair.a, backing);
  captured = kA;
  auto read = send_wqe(ORNIC_WQE_OP_RDMA_READ, 1);
  read.rdma.remote_addr = to_le(pair.b.buffer);
  read.rdma.rkey = to_le(pair.b.key);
  qa.post_send(read, {sge(kHugeIova, static_cast<uint32_t>(kMaxMsg), lkey)});
  qa.post_send_inline(send_wqe(ORNIC_WQE_OP_SEND, 2), std::vector<uint8_t>(16, 1));
  pair.pump();
  const uint32_t first = 0x100 + qa.qpn;
  ASSERT_EQ(frames.size(), 1u) << "the SEND went out 2^23 PSNs ahead of the unacknowledged READ";
  EXPECT_EQ(frames[0].opcode, static_cast<uint8_t>(iba::Opcode::rc_rdma_read_request));
  EXPECT_EQ(frames[0].psn, first);

  std::vector<uint8_t> data(256);
  for (size_t i = 0; i < data.size(); ++i)
    data[i] = static_cast<uint8_t>(i * 5 + 3);
  for (uint32_t n = 0; n < 2; ++n) {
    roce::PacketDescription response;
    response.bth.opcode = static_cast<uint8_t>(n == 0 ? iba::Opcode::rc_rdma_read_response_first
                                                      : iba::Opcode::rc_rdma_read_response_middle);
    response.bth.destination_qp = qa.qpn;
    response.bth.psn = (first + n) & iba::kPsnMask;
    if (n == 0)
      response.aeth = iba::Aeth{iba::make_ack_syndrome(), 1};
    queue(pair.b, pair.a, kB, response, data);
  }
  pair.pump();
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_RX_PSN_ERRORS), 0u);
  EXPECT_EQ(std::memcmp(pair.a.h.memory.at(backing), data.data(), data.size()), 0);
  EXPECT_EQ(std::memcmp(pair.a.h.memory.at(backing + 256), data.data(), data.size()), 0);
  EXPECT_EQ(frames.size(), 1u);
}

} // namespace
} // namespace ornic::test
