// IBTA 1.5 FLUSH and ATOMIC WRITE end to end (wqe.rst "FLUSH and ATOMIC_WRITE", roce.rst):
// the WQEs, the packets, the responder's checks and guarantees, duplicates, the read-class
// window, and every error with its completion, NAK and event.
#include <gtest/gtest.h>

#include "rdma_pair.hpp"
#include "roce/builder.hpp"

namespace ornic::test {
namespace {

constexpr int kA = 0, kB = 1; // wire sides: frames sent by a / by b
// Ethernet (14) + IPv4 (20) + UDP (8): where the BTH opcode of an IPv4 RoCE frame sits.
constexpr size_t kBthOpcodeOffset = 42;

uint8_t opcode_of(const LossyWire::Frame& frame) {
  return static_cast<uint8_t>(frame[kBthOpcodeOffset]);
}

std::optional<ornic_eqe> find_event(Node& node, uint8_t type) {
  while (auto eqe = node.h.poll_async_event())
    if (eqe->type == type)
      return eqe;
  return std::nullopt;
}

ornic_send_wqe flush_wqe(uint64_t wr_id, uint64_t remote, uint32_t rkey, uint32_t length,
                         uint8_t type, uint8_t level) {
  auto w = send_wqe(ORNIC_WQE_OP_FLUSH, wr_id);
  w.flush.remote_addr = to_le(remote);
  w.flush.rkey = to_le(rkey);
  w.flush.length = to_le(length);
  w.flush.type = type;
  w.flush.level = level;
  return w;
}

ornic_send_wqe atomic_write_wqe(uint64_t wr_id, uint64_t remote, uint32_t rkey,
                                const std::array<uint8_t, 8>& data) {
  auto w = send_wqe(ORNIC_WQE_OP_ATOMIC_WRITE, wr_id);
  w.atomic_write.remote_addr = to_le(remote);
  w.atomic_write.rkey = to_le(rkey);
  std::copy(data.begin(), data.end(), w.atomic_write.data);
  return w;
}

constexpr std::array<uint8_t, 8> kValue = {0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88};

class Ibta15 : public ::testing::Test {
protected:
  static constexpr uint32_t kAllRemote = ORNIC_ACCESS_REMOTE_WRITE | ORNIC_ACCESS_REMOTE_READ |
                                         ORNIC_ACCESS_REMOTE_ATOMIC | ORNIC_ACCESS_FLUSH;

  // qa -> qb get the case under test; the responder qb has `responder_access`.
  void connect(uint32_t responder_access = kAllRemote) {
    qa = pair.create_qp(pair.a);
    qb = pair.create_qp(pair.b);
    pair.connect(qa, qb, ORNIC_MTU_1024, kAllRemote);
    pair.connect(qb, qa, ORNIC_MTU_1024, responder_access);
  }

  void write(uint64_t wr_id, uint64_t remote, uint32_t length, uint64_t local_offset = 0) {
    auto w = send_wqe(ORNIC_WQE_OP_RDMA_WRITE, wr_id);
    w.rdma.remote_addr = to_le(remote);
    w.rdma.rkey = to_le(pair.b.key);
    qa.post_send(w, {sge(pair.a.buffer + local_offset, length, pair.a.key)});
  }

  void fill_a(uint64_t offset, size_t length, uint8_t seed) {
    for (size_t i = 0; i < length; ++i)
      *pair.a.at(offset + i) = std::byte{static_cast<uint8_t>(seed + i * 7)};
  }

  // The only CQE of `node`, after the wire went quiet.
  ornic_cqe only_cqe(Node& node) {
    const auto done = pair.wait_cqes(node, 1);
    EXPECT_EQ(done.size(), 1u);
    return done.empty() ? ornic_cqe{} : done[0];
  }

  // The request failed at the responder: the WQE's status, both QPs in ERR, the event at
  // b, and a second pair on the same NICs still moves verified data.
  void expect_remote_failure(uint8_t status, uint8_t event) {
    const auto cqe = only_cqe(pair.a);
    EXPECT_EQ(cqe.status, status);
    EXPECT_EQ(le(cqe.wr_id), 9u);
    EXPECT_EQ(qa.state(), ORNIC_QPS_ERR);
    EXPECT_EQ(qb.state(), ORNIC_QPS_ERR);
    const auto found = find_event(pair.b, event);
    ASSERT_TRUE(found.has_value());
    EXPECT_EQ(le(found->object), qb.qpn);
    EXPECT_EQ(pair.b.counter(ORNIC_CNT_NAKS_SENT), 1u);
    bystander_still_works();
  }

  void bystander_still_works() {
    Qp qc = pair.create_qp(pair.a), qd = pair.create_qp(pair.b);
    pair.connect(qc, qd);
    pair.connect(qd, qc);
    fill_a(8192, 64, 5);
    qd.post_recv(7, {sge(pair.b.buffer + 8192, 64, pair.b.key)});
    qc.post_send(send_wqe(ORNIC_WQE_OP_SEND, 8), {sge(pair.a.buffer + 8192, 64, pair.a.key)});
    const auto sent = pair.wait_cqes(pair.a, 1);
    ASSERT_EQ(sent.size(), 1u);
    EXPECT_EQ(sent[0].status, ORNIC_CQE_SUCCESS);
    EXPECT_EQ(le(sent[0].qpn), qc.qpn);
    const auto received = pair.wait_cqes(pair.b, 1);
    ASSERT_EQ(received.size(), 1u);
    EXPECT_EQ(received[0].status, ORNIC_CQE_SUCCESS);
    EXPECT_EQ(std::memcmp(pair.a.at(8192), pair.b.at(8192), 64), 0);
  }

  // A request frame from qa to qb built here, bypassing a's requester, at qb's next PSN.
  void inject(roce::PacketDescription packet, std::span<const uint8_t> payload = {}) {
    packet.source_mac = pair.a.mac;
    packet.destination_mac = pair.b.mac;
    packet.source_gid = roce::Gid(pair.a.gid);
    packet.destination_gid = roce::Gid(pair.b.gid);
    packet.bth.destination_qp = qb.qpn;
    packet.bth.psn = 0x100 + qa.qpn;
    packet.bth.ack_request = true;
    std::vector<uint8_t> frame;
    ASSERT_EQ(roce::build_frame(packet, payload, frame), roce::BuildError::ok);
    pair.wire.end(kA).send(std::as_bytes(std::span<const uint8_t>(frame)));
    pair.pump();
  }

  RdmaPair pair;
  Qp qa, qb;
};

// --- FLUSH -------------------------------------------------------------------------------

TEST_F(Ibta15, FlushAfterWritesCompletesWithTheDataPlaced) {
  connect();
  fill_a(0, 5000, 3);
  write(1, pair.b.buffer + 4096, 5000);
  qa.post_send(
      flush_wqe(2, pair.b.buffer + 4096, pair.b.key, 5000, ORNIC_FLUSH_GLOBAL, ORNIC_FLUSH_RANGE),
      {});
  const auto done = pair.wait_cqes(pair.a, 2);
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(done[0].opcode, ORNIC_CQE_OP_RDMA_WRITE);
  EXPECT_EQ(done[1].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(done[1].opcode, ORNIC_CQE_OP_FLUSH);
  EXPECT_EQ(le(done[1].wr_id), 2u);
  EXPECT_EQ(le(done[1].byte_len), 0u); // a FLUSH moves no data
  EXPECT_EQ(std::memcmp(pair.a.at(0), pair.b.at(4096), 5000), 0);
  EXPECT_TRUE(pair.b.h.memory.persisted().empty()); // global visibility writes nothing back
  EXPECT_EQ(qb.state(), ORNIC_QPS_RTS);
  EXPECT_FALSE(pair.b.poll().has_value()); // nothing at the responder's CQ
}

// The responder answers a FLUSH only once the WRITEs before it are in its memory: check
// the target memory at the moment the FLUSH's response goes on the wire.
TEST_F(Ibta15, FlushIsAnsweredOnlyAfterEarlierWritesArePlaced) {
  connect();
  fill_a(0, 3000, 9);
  int responses_seen = 0;
  bool placed_before_response = false;
  pair.wire.policy = [&](int side, uint64_t, const LossyWire::Frame& frame) {
    if (side == kB &&
        opcode_of(frame) == static_cast<uint8_t>(iba::Opcode::rc_rdma_read_response_only)) {
      ++responses_seen;
      placed_before_response = std::memcmp(pair.a.at(0), pair.b.at(65536), 3000) == 0;
    }
    return WireAction::deliver;
  };
  write(1, pair.b.buffer + 65536, 1000, 0);
  write(2, pair.b.buffer + 65536 + 1000, 2000, 1000);
  qa.post_send(flush_wqe(3, 0, pair.b.key, 0, ORNIC_FLUSH_GLOBAL, ORNIC_FLUSH_MR), {});
  const auto done = pair.wait_cqes(pair.a, 3);
  ASSERT_EQ(done.size(), 3u);
  for (const auto& cqe : done)
    EXPECT_EQ(cqe.status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(responses_seen, 1);
  EXPECT_TRUE(placed_before_response);
}

TEST_F(Ibta15, PersistentFlushOfARangeWritesBackExactlyThatRange) {
  connect();
  qa.post_send(flush_wqe(2, pair.b.buffer + 100, pair.b.key, 5000, ORNIC_FLUSH_PERSISTENT,
                         ORNIC_FLUSH_RANGE),
               {});
  const auto cqe = only_cqe(pair.a);
  EXPECT_EQ(cqe.status, ORNIC_CQE_SUCCESS);
  using Range = FakeGuestMemory::Range;
  const std::vector<Range> expected = {{pair.b.buffer + 100, 5000}};
  EXPECT_EQ(pair.b.h.memory.persisted(), expected);
}

TEST_F(Ibta15, FlushOfBothTypesNeedsBothRights) {
  connect();
  const uint32_t key = pair.b.reg_mr(pair.b.buffer + 4096 + 8, 8192,
                                     ORNIC_ACCESS_LOCAL_WRITE | ORNIC_ACCESS_FLUSH_PERSISTENT);
  // Both placement types need both rights: this MR grants only PERSISTENT.
  qa.post_send(flush_wqe(9, 0x1234, key, 0xffffffff, ORNIC_FLUSH_PERSISTENT | ORNIC_FLUSH_GLOBAL,
                         ORNIC_FLUSH_MR),
               {});
  expect_remote_failure(ORNIC_CQE_REM_ACCESS_ERR, ORNIC_EQE_QP_ACCESS_ERR);
  EXPECT_TRUE(pair.b.h.memory.persisted().empty());
}

TEST_F(Ibta15, PersistentFlushOfTheWholeMr) {
  connect();
  const uint32_t key = pair.b.reg_mr(pair.b.buffer + 4096 + 8, 8192,
                                     ORNIC_ACCESS_LOCAL_WRITE | ORNIC_ACCESS_FLUSH_PERSISTENT);
  // Address and length far outside the MR: the MR level does not look at them.
  qa.post_send(flush_wqe(2, 0x1234, key, 0xffffffff, ORNIC_FLUSH_PERSISTENT, ORNIC_FLUSH_MR), {});
  const auto cqe = only_cqe(pair.a);
  EXPECT_EQ(cqe.status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(cqe.opcode, ORNIC_CQE_OP_FLUSH);
  using Range = FakeGuestMemory::Range;
  const std::vector<Range> expected = {{pair.b.buffer + 4096 + 8, 8192}};
  EXPECT_EQ(pair.b.h.memory.persisted(), expected);
}

TEST_F(Ibta15, ZeroLengthRangeChecksTheKeyAndWritesNothingBack) {
  connect();
  qa.post_send(
      flush_wqe(2, pair.b.buffer, pair.b.key, 0, ORNIC_FLUSH_PERSISTENT, ORNIC_FLUSH_RANGE), {});
  EXPECT_EQ(only_cqe(pair.a).status, ORNIC_CQE_SUCCESS);
  EXPECT_TRUE(pair.b.h.memory.persisted().empty());
}

// pyverbs' test_qp_ex_rc_flush_type_violate: a PERSISTENT FLUSH of an MR that grants only
// FLUSH_GLOBAL.
TEST_F(Ibta15, FlushTypeTheMrDoesNotGrantIsARemoteAccessError) {
  connect();
  const uint32_t global_only = pair.b.reg_mr(pair.b.buffer, 4096,
                                             ORNIC_ACCESS_LOCAL_WRITE | ORNIC_ACCESS_REMOTE_WRITE |
                                                 ORNIC_ACCESS_FLUSH_GLOBAL);
  qa.post_send(
      flush_wqe(9, pair.b.buffer, global_only, 4096, ORNIC_FLUSH_PERSISTENT, ORNIC_FLUSH_RANGE),
      {});
  expect_remote_failure(ORNIC_CQE_REM_ACCESS_ERR, ORNIC_EQE_QP_ACCESS_ERR);
}

TEST_F(Ibta15, FlushTypeTheQpDoesNotGrantIsARemoteAccessError) {
  connect(ORNIC_ACCESS_REMOTE_WRITE | ORNIC_ACCESS_FLUSH_PERSISTENT);
  qa.post_send(flush_wqe(9, pair.b.buffer, pair.b.key, 64, ORNIC_FLUSH_GLOBAL, ORNIC_FLUSH_RANGE),
               {});
  expect_remote_failure(ORNIC_CQE_REM_ACCESS_ERR, ORNIC_EQE_QP_ACCESS_ERR);
}

TEST_F(Ibta15, FlushRangeOutsideTheMrIsARemoteAccessError) {
  connect();
  qa.post_send(flush_wqe(9, pair.b.buffer + Node::kBufferBytes - 16, pair.b.key, 32,
                         ORNIC_FLUSH_GLOBAL, ORNIC_FLUSH_RANGE),
               {});
  expect_remote_failure(ORNIC_CQE_REM_ACCESS_ERR, ORNIC_EQE_QP_ACCESS_ERR);
}

TEST_F(Ibta15, FlushWithAWrongKeyIsARemoteAccessErrorEvenForNoBytes) {
  connect();
  qa.post_send(flush_wqe(9, pair.b.buffer, pair.b.key ^ 1, 0, ORNIC_FLUSH_GLOBAL, ORNIC_FLUSH_MR),
               {});
  expect_remote_failure(ORNIC_CQE_REM_ACCESS_ERR, ORNIC_EQE_QP_ACCESS_ERR);
}

TEST_F(Ibta15, FlushOfAnMrOfAnotherPdIsARemoteAccessError) {
  connect();
  const uint32_t other_pd = pair.b.h.alloc_pd();
  const uint32_t foreign = pair.b.reg_mr(pair.b.buffer, 4096, ORNIC_ACCESS_ALL, other_pd);
  qa.post_send(flush_wqe(9, pair.b.buffer, foreign, 64, ORNIC_FLUSH_GLOBAL, ORNIC_FLUSH_RANGE), {});
  expect_remote_failure(ORNIC_CQE_REM_ACCESS_ERR, ORNIC_EQE_QP_ACCESS_ERR);
}

TEST_F(Ibta15, RefusedWriteBackIsARemoteOperationalError) {
  connect();
  pair.b.h.memory.set_fail_persist(true);
  qa.post_send(
      flush_wqe(9, pair.b.buffer, pair.b.key, 64, ORNIC_FLUSH_PERSISTENT, ORNIC_FLUSH_RANGE), {});
  expect_remote_failure(ORNIC_CQE_REM_OP_ERR, ORNIC_EQE_QP_FATAL);
  EXPECT_GE(pair.b.counter(ORNIC_CNT_DMA_ERRORS), 1u);
}

// The response is lost: the requester sends the FLUSH again, the responder executes it
// again (it changes no data) and the WQE completes once.
TEST_F(Ibta15, DuplicateFlushIsExecutedAgainAndCompletesOnce) {
  connect();
  pair.wire.policy = [](int side, uint64_t n, const auto&) {
    return side == kB && n == 0 ? WireAction::drop : WireAction::deliver;
  };
  qa.post_send(
      flush_wqe(2, pair.b.buffer, pair.b.key, 4096, ORNIC_FLUSH_PERSISTENT, ORNIC_FLUSH_RANGE), {});
  const auto done = pair.wait_cqes(pair.a, 1);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_TIMEOUTS), 1u);
  EXPECT_EQ(pair.b.h.memory.persisted().size(), 2u);
  EXPECT_FALSE(pair.a.poll().has_value());
  EXPECT_EQ(qb.state(), ORNIC_QPS_RTS);
}

// FLUSHes are read-class: no more than max_rd_atomic (4 here) are outstanding at once.
TEST_F(Ibta15, FlushesRespectMaxRdAtomic) {
  connect();
  int flushes_sent = 0;
  pair.wire.policy = [&](int side, uint64_t, const LossyWire::Frame& frame) {
    if (side == kA && opcode_of(frame) == static_cast<uint8_t>(iba::Opcode::rc_flush))
      ++flushes_sent;
    return side == kB ? WireAction::drop : WireAction::deliver; // no responses yet
  };
  for (uint64_t i = 0; i < 6; ++i)
    qa.post_send(
        flush_wqe(10 + i, pair.b.buffer, pair.b.key, 64, ORNIC_FLUSH_GLOBAL, ORNIC_FLUSH_RANGE),
        {});
  pair.pump();
  EXPECT_EQ(flushes_sent, 4);
  pair.wire.policy = nullptr;
  const auto done = pair.wait_cqes(pair.a, 6);
  ASSERT_EQ(done.size(), 6u);
  for (uint64_t i = 0; i < 6; ++i) {
    EXPECT_EQ(done[i].status, ORNIC_CQE_SUCCESS);
    EXPECT_EQ(le(done[i].wr_id), 10 + i);
  }
}

TEST_F(Ibta15, FencedSendWaitsForTheFlush) {
  connect();
  pair.wire.up = false; // the FLUSH stays outstanding
  qa.post_send(flush_wqe(1, pair.b.buffer, pair.b.key, 64, ORNIC_FLUSH_GLOBAL, ORNIC_FLUSH_RANGE),
               {});
  qb.post_recv(3, {sge(pair.b.buffer, 64, pair.b.key)});
  qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, 2, ORNIC_WQE_FLAG_SIGNALED | ORNIC_WQE_FLAG_FENCE),
               {sge(pair.a.buffer, 16, pair.a.key)});
  pair.pump();
  const uint64_t sent_while_down = pair.wire.sent[kA];
  EXPECT_EQ(sent_while_down, 1u); // the FLUSH only
  pair.wire.up = true;
  const auto done = pair.wait_cqes(pair.a, 2);
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(le(done[0].wr_id), 1u);
  EXPECT_EQ(le(done[1].wr_id), 2u);
  EXPECT_EQ(done[1].status, ORNIC_CQE_SUCCESS);
}

// Malformed FLUSH packets from a peer: invalid requests.
class BadFeth : public Ibta15, public ::testing::WithParamInterface<iba::Feth> {};

TEST_P(BadFeth, IsAnInvalidRequest) {
  connect();
  roce::PacketDescription packet;
  packet.bth.opcode = static_cast<uint8_t>(iba::Opcode::rc_flush);
  packet.feth = GetParam();
  packet.reth = iba::Reth{pair.b.buffer, pair.b.key, 64};
  inject(packet);
  EXPECT_EQ(qb.state(), ORNIC_QPS_ERR);
  EXPECT_TRUE(find_event(pair.b, ORNIC_EQE_QP_REQ_ERR).has_value());
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_NAKS_SENT), 1u);
  EXPECT_TRUE(pair.b.h.memory.persisted().empty());
}

INSTANTIATE_TEST_SUITE_P(
    Ibta15, BadFeth,
    ::testing::Values(iba::Feth{.placement_type = 0}, iba::Feth{.placement_type = 0x4},
                      iba::Feth{.placement_type = 0x2, .selectivity_level = 2},
                      iba::Feth{.placement_type = 0x1, .selectivity_level = 0, .reserved = 0x100}));

struct BadWqe {
  const char* name;
  std::function<void(ornic_send_wqe&)> spoil;
  uint8_t vendor_err;
};

class MalformedIbta15Wqe : public Ibta15, public ::testing::WithParamInterface<BadWqe> {};

TEST_P(MalformedIbta15Wqe, FailsLocallyWithTheDetail) {
  connect();
  for (const uint8_t opcode : {ORNIC_WQE_OP_FLUSH, ORNIC_WQE_OP_ATOMIC_WRITE}) {
    SCOPED_TRACE(int(opcode));
    Qp q = pair.create_qp(pair.a);
    pair.connect(q, qb);
    auto w = opcode == ORNIC_WQE_OP_FLUSH
                 ? flush_wqe(4, pair.b.buffer, pair.b.key, 8, ORNIC_FLUSH_GLOBAL, ORNIC_FLUSH_RANGE)
                 : atomic_write_wqe(4, pair.b.buffer, pair.b.key, kValue);
    GetParam().spoil(w);
    q.post_send(w, {}, false);
    // post_send computed num_blocks/num_sge for no SGEs; spoil them again in the ring.
    auto* raw = reinterpret_cast<ornic_send_wqe*>(pair.a.h.memory.at(q.sq));
    GetParam().spoil(*raw);
    pair.a.h.doorbell(0, ORNIC_DB_SQ, ORNIC_DB_VALUE(q.qpn, 0, q.sq_prod));
    const auto cqe = only_cqe(pair.a);
    EXPECT_EQ(cqe.status, ORNIC_CQE_LOC_QP_OP_ERR);
    EXPECT_EQ(cqe.vendor_err, GetParam().vendor_err);
    EXPECT_EQ(le(cqe.wr_id), 4u);
    EXPECT_EQ(q.state(), ORNIC_QPS_ERR);
  }
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_TX_RDMA_PACKETS), 0u); // nothing went out
}

INSTANTIATE_TEST_SUITE_P(
    Ibta15, MalformedIbta15Wqe,
    ::testing::Values(
        BadWqe{"UnknownFlag", [](ornic_send_wqe& w) { w.flags |= 0x40; },
               ORNIC_VERR_RESERVED_NONZERO},
        BadWqe{"Reserved1", [](ornic_send_wqe& w) { w.reserved1 = to_le<uint64_t>(1); },
               ORNIC_VERR_RESERVED_NONZERO},
        BadWqe{"SegmentReserved",
               [](ornic_send_wqe& w) {
                 if (w.opcode == ORNIC_WQE_OP_FLUSH)
                   w.flush.reserved1[2] = to_le(1u);
                 else
                   w.atomic_write.reserved1 = to_le<uint64_t>(1);
               },
               ORNIC_VERR_RESERVED_NONZERO},
        BadWqe{"Inline", [](ornic_send_wqe& w) { w.flags |= ORNIC_WQE_FLAG_INLINE; },
               ORNIC_VERR_BAD_OPCODE},
        BadWqe{"AddressVector", [](ornic_send_wqe& w) { w.flags |= ORNIC_WQE_FLAG_AV; },
               ORNIC_VERR_BAD_AH},
        BadWqe{"Sge", [](ornic_send_wqe& w) { w.num_sge = 1; }, ORNIC_VERR_BAD_SGE_COUNT},
        BadWqe{"InlineLength", [](ornic_send_wqe& w) { w.inline_len = to_le<uint16_t>(8); },
               ORNIC_VERR_BAD_INLINE_LEN}),
    [](const auto& info) { return std::string(info.param.name); });

TEST_F(Ibta15, TwoBlockWqeIsMalformed) {
  connect();
  auto w = atomic_write_wqe(4, pair.b.buffer, pair.b.key, kValue);
  qa.post_send(w, {}, false);
  auto* raw = reinterpret_cast<ornic_send_wqe*>(pair.a.h.memory.at(qa.sq));
  raw->num_blocks = 2;
  qa.sq_prod = 2;
  pair.a.h.doorbell(0, ORNIC_DB_SQ, ORNIC_DB_VALUE(qa.qpn, 0, qa.sq_prod));
  const auto cqe = only_cqe(pair.a);
  EXPECT_EQ(cqe.status, ORNIC_CQE_LOC_QP_OP_ERR);
  EXPECT_EQ(cqe.vendor_err, ORNIC_VERR_BAD_BLOCKS);
}

TEST_F(Ibta15, FlushOfUnknownTypeOrLevelIsMalformed) {
  connect();
  const std::pair<uint8_t, uint8_t> bad[] = {{0, 0}, {4, 0}, {0x81, 0}, {1, 2}, {2, 0xff}};
  for (const auto& [type, level] : bad) {
    SCOPED_TRACE(testing::Message() << int(type) << "/" << int(level));
    Qp q = pair.create_qp(pair.a);
    pair.connect(q, qb);
    q.post_send(flush_wqe(4, pair.b.buffer, pair.b.key, 8, type, level), {});
    const auto cqe = only_cqe(pair.a);
    EXPECT_EQ(cqe.status, ORNIC_CQE_LOC_QP_OP_ERR);
    EXPECT_EQ(cqe.vendor_err, ORNIC_VERR_FLUSH_TYPE);
  }
}

TEST_F(Ibta15, UdQpsTakeNeither) {
  Qp ua = pair.create_qp(pair.a, ORNIC_QPT_UD);
  pair.bring_up_ud(ua, 1);
  ua.post_send(flush_wqe(4, 0, 0, 0, ORNIC_FLUSH_GLOBAL, ORNIC_FLUSH_MR), {});
  auto cqe = only_cqe(pair.a);
  EXPECT_EQ(cqe.status, ORNIC_CQE_LOC_QP_OP_ERR);
  EXPECT_EQ(cqe.vendor_err, ORNIC_VERR_BAD_OPCODE);
  Qp ub = pair.create_qp(pair.a, ORNIC_QPT_UD);
  pair.bring_up_ud(ub, 1);
  ub.post_send(atomic_write_wqe(5, 0, 0, kValue), {});
  cqe = only_cqe(pair.a);
  EXPECT_EQ(cqe.status, ORNIC_CQE_LOC_QP_OP_ERR);
  EXPECT_EQ(cqe.vendor_err, ORNIC_VERR_BAD_OPCODE);
}

// --- ATOMIC WRITE ------------------------------------------------------------------------

TEST_F(Ibta15, AtomicWriteStoresTheEightBytesAsOneStore) {
  connect();
  std::memset(pair.b.at(64), 0xee, 24);
  qa.post_send(atomic_write_wqe(6, pair.b.buffer + 72, pair.b.key, kValue), {});
  const auto cqe = only_cqe(pair.a);
  EXPECT_EQ(cqe.status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(cqe.opcode, ORNIC_CQE_OP_ATOMIC_WRITE);
  EXPECT_EQ(le(cqe.byte_len), 8u);
  EXPECT_EQ(le(cqe.wr_id), 6u);
  EXPECT_EQ(std::memcmp(pair.b.at(72), kValue.data(), 8), 0);
  // Exactly the 8 bytes: the neighbours are untouched.
  for (uint64_t offset : {64, 65, 70, 71, 80, 87})
    EXPECT_EQ(*pair.b.at(offset), std::byte{0xee}) << offset;
  EXPECT_EQ(pair.b.h.memory.atomic_write_count(), 1u);
  EXPECT_FALSE(pair.b.poll().has_value());
  EXPECT_EQ(qb.state(), ORNIC_QPS_RTS);
}

TEST_F(Ibta15, MisalignedAtomicWriteIsAnInvalidRequestAndStoresNothing) {
  connect();
  std::memset(pair.b.at(64), 0xee, 24);
  qa.post_send(atomic_write_wqe(9, pair.b.buffer + 68, pair.b.key, kValue), {});
  expect_remote_failure(ORNIC_CQE_REM_INV_REQ_ERR, ORNIC_EQE_QP_REQ_ERR);
  for (uint64_t offset = 64; offset < 88; ++offset)
    EXPECT_EQ(*pair.b.at(offset), std::byte{0xee}) << offset;
}

TEST_F(Ibta15, AtomicWritePastTheMrIsARemoteAccessError) {
  connect();
  const uint32_t small =
      pair.b.reg_mr(pair.b.buffer, 4096, ORNIC_ACCESS_LOCAL_WRITE | ORNIC_ACCESS_REMOTE_WRITE);
  std::memset(pair.b.at(4096), 0xee, 8);
  qa.post_send(atomic_write_wqe(9, pair.b.buffer + 4096, small, kValue), {});
  expect_remote_failure(ORNIC_CQE_REM_ACCESS_ERR, ORNIC_EQE_QP_ACCESS_ERR);
  for (uint64_t offset = 4096; offset < 4104; ++offset)
    EXPECT_EQ(*pair.b.at(offset), std::byte{0xee});
}

TEST_F(Ibta15, AtomicWriteNeedsRemoteWriteOnTheMr) {
  connect();
  const uint32_t no_write = pair.b.reg_mr(pair.b.buffer, 4096,
                                          ORNIC_ACCESS_LOCAL_WRITE | ORNIC_ACCESS_REMOTE_READ |
                                              ORNIC_ACCESS_REMOTE_ATOMIC);
  qa.post_send(atomic_write_wqe(9, pair.b.buffer, no_write, kValue), {});
  expect_remote_failure(ORNIC_CQE_REM_ACCESS_ERR, ORNIC_EQE_QP_ACCESS_ERR);
}

TEST_F(Ibta15, AtomicWriteNeedsRemoteWriteOnTheQp) {
  connect(ORNIC_ACCESS_REMOTE_READ | ORNIC_ACCESS_REMOTE_ATOMIC);
  qa.post_send(atomic_write_wqe(9, pair.b.buffer, pair.b.key, kValue), {});
  expect_remote_failure(ORNIC_CQE_REM_ACCESS_ERR, ORNIC_EQE_QP_ACCESS_ERR);
}

// The response is lost and the ATOMIC WRITE comes again, after the target changed: the
// duplicate is answered, not executed (it would undo the later store).
TEST_F(Ibta15, DuplicateAtomicWriteIsAnsweredNotExecuted) {
  connect();
  bool changed_after = false;
  pair.wire.policy = [&](int side, uint64_t n, const auto&) {
    if (side == kB && n == 0) {
      std::memset(pair.b.at(0), 0xaa, 8); // a store after the ATOMIC WRITE
      changed_after = true;
      return WireAction::drop;
    }
    return WireAction::deliver;
  };
  qa.post_send(atomic_write_wqe(6, pair.b.buffer, pair.b.key, kValue), {});
  const auto done = pair.wait_cqes(pair.a, 1);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_TRUE(changed_after);
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_TIMEOUTS), 1u);
  EXPECT_EQ(pair.b.h.memory.atomic_write_count(), 1u);
  for (uint64_t offset = 0; offset < 8; ++offset)
    EXPECT_EQ(*pair.b.at(offset), std::byte{0xaa});
  EXPECT_FALSE(pair.a.poll().has_value());
}

// A RETH DMA length or a payload other than 8 bytes.
class BadAtomicWriteLength : public Ibta15,
                             public ::testing::WithParamInterface<std::pair<uint32_t, size_t>> {};

TEST_P(BadAtomicWriteLength, IsAnInvalidRequestAndStoresNothing) {
  const auto [dma_length, payload_bytes] = GetParam();
  connect();
  std::memset(pair.b.at(0), 0xee, 16);
  roce::PacketDescription packet;
  packet.bth.opcode = static_cast<uint8_t>(iba::Opcode::rc_atomic_write);
  packet.reth = iba::Reth{pair.b.buffer, pair.b.key, dma_length};
  const std::vector<uint8_t> payload(payload_bytes, 0x42);
  inject(packet, payload);
  EXPECT_EQ(qb.state(), ORNIC_QPS_ERR);
  EXPECT_TRUE(find_event(pair.b, ORNIC_EQE_QP_REQ_ERR).has_value());
  for (uint64_t offset = 0; offset < 16; ++offset)
    EXPECT_EQ(*pair.b.at(offset), std::byte{0xee});
}

INSTANTIATE_TEST_SUITE_P(Ibta15, BadAtomicWriteLength,
                         ::testing::Values(std::pair<uint32_t, size_t>{8, 4},
                                           std::pair<uint32_t, size_t>{4, 8},
                                           std::pair<uint32_t, size_t>{16, 16},
                                           std::pair<uint32_t, size_t>{8, 0}));

// Both together, as an application persists a pointer after its data: WRITE the data,
// FLUSH it, ATOMIC WRITE the pointer, FLUSH the pointer.
TEST_F(Ibta15, WriteFlushAtomicWriteFlushInOneBatch) {
  connect();
  fill_a(0, 2048, 1);
  write(1, pair.b.buffer + 4096, 2048);
  qa.post_send(flush_wqe(2, pair.b.buffer + 4096, pair.b.key, 2048, ORNIC_FLUSH_PERSISTENT,
                         ORNIC_FLUSH_RANGE),
               {});
  qa.post_send(atomic_write_wqe(3, pair.b.buffer + 8, pair.b.key, kValue), {});
  qa.post_send(flush_wqe(4, pair.b.buffer + 8, pair.b.key, 8,
                         ORNIC_FLUSH_PERSISTENT | ORNIC_FLUSH_GLOBAL, ORNIC_FLUSH_RANGE),
               {});
  const auto done = pair.wait_cqes(pair.a, 4);
  ASSERT_EQ(done.size(), 4u);
  const uint8_t opcodes[] = {ORNIC_CQE_OP_RDMA_WRITE, ORNIC_CQE_OP_FLUSH, ORNIC_CQE_OP_ATOMIC_WRITE,
                             ORNIC_CQE_OP_FLUSH};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(done[i].status, ORNIC_CQE_SUCCESS);
    EXPECT_EQ(done[i].opcode, opcodes[i]);
    EXPECT_EQ(le(done[i].wr_id), i + 1);
  }
  EXPECT_EQ(std::memcmp(pair.a.at(0), pair.b.at(4096), 2048), 0);
  EXPECT_EQ(std::memcmp(pair.b.at(8), kValue.data(), 8), 0);
  using Range = FakeGuestMemory::Range;
  const std::vector<Range> expected = {{pair.b.buffer + 4096, 2048}, {pair.b.buffer + 8, 8}};
  EXPECT_EQ(pair.b.h.memory.persisted(), expected);
}

} // namespace
} // namespace ornic::test
