// An RC QP pair end to end (rdma/requester, responder, completer, the transport engine):
// two NICs with memfd-backed guest memory on an in-memory wire (test::RdmaPair), the
// provider's part played by the benchmark (WQEs written to the SQ, one doorbell per batch,
// CQEs polled). Message rate: RDMA WRITEs of 64 B, a batch of kBatch per iteration, a
// completion for each; bandwidth: RDMA WRITEs of 1 MiB. At path MTU 1024 and 4096. And the
// message rate with the batch spread round-robin over 1, 4, 16 and 64 QP pairs on the same
// two NICs (one CQ per NIC), for what many QPs cost the scheduler and the handle tables.
// Every batch checks each completion and the bytes that arrived at the peer, so a broken
// path fails instead of being measured.
#include <algorithm>
#include <bit>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "bench_util.hpp"
#include "rdma_pair.hpp"

namespace ornic::bench {
namespace {

using test::Node;
using test::Qp;
using test::RdmaPair;

constexpr unsigned kLogDepth = 12; // SQ blocks and CQEs: 4096
constexpr uint32_t kBatch = 1024;  // WRITEs of 64 B per iteration (two SQ blocks each)
constexpr uint32_t kSmall = 64;
constexpr uint32_t kLarge = 1 << 20;

// The rig reports its own failures (an admin command refused, a pair that never goes
// quiet) through GoogleTest, outside any test: as failed parts of the ad hoc result.
int rig_failures() {
  const ::testing::TestResult& result = ::testing::UnitTest::GetInstance()->ad_hoc_test_result();
  int failed = 0;
  for (int i = 0; i < result.total_part_count(); ++i)
    failed += result.GetTestPartResult(i).failed() ? 1 : 0;
  return failed;
}

// SQ blocks for a QP that carries 1/qps of a batch (two blocks per WRITE), with room to
// spare: 4096 for one QP, 64 for 64.
unsigned sq_log_depth(unsigned qps) {
  const uint32_t blocks = 2 * kBatch / qps;
  return std::max(6, std::bit_width(blocks - 1) + 1);
}

class RcPairRig {
public:
  explicit RcPairRig(uint8_t path_mtu, unsigned qps = 1)
      : pair_(RdmaPair::Options{.ram = test::GuestRam::memfd, .cq_log_depth = kLogDepth}) {
    // Jumbo frames on both ports, so that every path MTU up to 4096 is allowed.
    for (Node* node : {&pair_.a, &pair_.b}) {
      ornic_admin_eth_set_mtu jumbo{};
      jumbo.hdr.opcode = ORNIC_ADMIN_ETH_SET_MTU;
      jumbo.mtu = to_le(9000u);
      if (node->h.execute(test::DriverHarness::as_sqe(jumbo)).status != ORNIC_ADMIN_STATUS_SUCCESS)
        ADD_FAILURE() << "ETH_SET_MTU 9000 refused";
    }
    for (unsigned i = 0; i < qps; ++i) {
      senders_.push_back(
          pair_.create_qp(pair_.a, ORNIC_QPT_RC, ORNIC_DB_PAGE_KERNEL, sq_log_depth(qps)));
      receivers_.push_back(
          pair_.create_qp(pair_.b, ORNIC_QPT_RC, ORNIC_DB_PAGE_KERNEL, sq_log_depth(qps)));
      pair_.connect(senders_.back(), receivers_.back(), path_mtu);
      pair_.connect(receivers_.back(), senders_.back(), path_mtu);
    }
  }

  // Posts `count` WRITEs of `length` bytes, the k-th on QP k % qps from and to offset
  // k * length of the nodes' buffers, ringing each QP's doorbell once; runs the pair until
  // quiet; polls the completions. Empty on success, else what went wrong.
  std::string write_batch(uint32_t count, uint32_t length) {
    Node& a = pair_.a;
    const auto qps = static_cast<uint32_t>(senders_.size());
    for (uint32_t k = 0; k < count; ++k) {
      auto wqe = test::send_wqe(ORNIC_WQE_OP_RDMA_WRITE, next_wr_id_ + k);
      wqe.rdma.remote_addr = to_le(pair_.b.buffer + uint64_t{k} * length);
      wqe.rdma.rkey = to_le(pair_.b.key);
      senders_[k % qps].post_send(wqe, {test::sge(a.buffer + uint64_t{k} * length, length, a.key)},
                                  k + qps >= count);
    }
    pair_.pump();
    // With several QPs the completions interleave: each QP's own come in order.
    std::vector<uint64_t> next_of(qps);
    for (uint32_t q = 0; q < qps; ++q)
      next_of[q] = next_wr_id_ + q;
    uint32_t got = 0;
    std::string error;
    for (;;) {
      // The provider's poll: the CQE's phase says it is new; the CQ doorbell once at the end.
      const auto cqe =
          a.h.read<ornic_cqe>(a.cq_ring + uint64_t{a.cq_head % a.cq_depth} * ORNIC_CQE_SIZE);
      if ((cqe.owner & ORNIC_CQE_OWNER_PHASE) != test::expected_phase(a.cq_head, a.cq_depth))
        break;
      ++a.cq_head;
      const uint64_t wr_id = le(cqe.wr_id);
      const uint64_t q = (wr_id - next_wr_id_) % qps;
      if (error.empty() && (cqe.status != ORNIC_CQE_SUCCESS || wr_id != next_of[q]))
        error = "completion " + std::to_string(got) + ": status " + std::to_string(cqe.status) +
                ", wr_id " + std::to_string(wr_id);
      next_of[q] += qps;
      ++got;
    }
    a.h.doorbell(0, ORNIC_DB_CQ, ORNIC_DB_VALUE(a.cqn, 0, a.cq_head));
    next_wr_id_ += count;
    if (!error.empty())
      return error;
    if (got != count)
      return std::to_string(got) + " completions for " + std::to_string(count) + " WRITEs";
    if (std::memcmp(pair_.b.at(0), a.at(0), size_t{count} * length) != 0)
      return "the data at the responder differs from what was sent";
    return {};
  }

  // A new pattern in the first `bytes` of the sender's buffer: a stamp of this batch in
  // every 64-byte piece, so data left over from an earlier batch never passes the check.
  void stamp(size_t bytes) {
    ++batch_;
    for (size_t at = 0; at < bytes; at += 64) {
      const uint64_t word = (batch_ << 32) | at;
      std::memcpy(pair_.a.at(at), &word, sizeof(word));
    }
  }

  uint64_t retransmits() const { return pair_.a.counter(ORNIC_CNT_RETRANSMITS); }
  uint64_t packets_sent() const { return pair_.a.counter(ORNIC_CNT_TX_RDMA_PACKETS); }
  uint64_t acks_received() const { return pair_.b.counter(ORNIC_CNT_TX_RDMA_PACKETS); }

private:
  RdmaPair pair_;
  std::vector<Qp> senders_, receivers_;
  uint64_t next_wr_id_ = 1;
  uint64_t batch_ = 0;
};

void run_writes(benchmark::State& state, uint32_t count, uint32_t length, unsigned qps = 1) {
  const uint8_t mtu = state.range(0) == 4096 ? ORNIC_MTU_4096 : ORNIC_MTU_1024;
  const int failures_before = rig_failures();
  RcPairRig rig(mtu, qps);
  if (rig_failures() != failures_before)
    return fail(state, "the RC pair could not be set up");
  for (auto _ : state) {
    state.PauseTiming();
    rig.stamp(size_t{count} * length);
    state.ResumeTiming();
    const std::string error = rig.write_batch(count, length);
    if (!error.empty())
      return fail(state, error);
  }
  if (rig_failures() != failures_before)
    return fail(state, "the rig reported a failure");
  const auto messages = static_cast<int64_t>(state.iterations()) * count;
  state.SetItemsProcessed(messages);
  state.SetBytesProcessed(messages * length);
  const double packets = static_cast<double>(rig.packets_sent());
  state.counters["acks_per_msg"] =
      benchmark::Counter(static_cast<double>(rig.acks_received()) / static_cast<double>(messages));
  state.counters["pkts_per_msg"] = benchmark::Counter(packets / static_cast<double>(messages));
  state.counters["retransmits"] = benchmark::Counter(static_cast<double>(rig.retransmits()));
}

void BM_RcWriteMsgRate64(benchmark::State& state) {
  run_writes(state, kBatch, kSmall);
}
BENCHMARK(BM_RcWriteMsgRate64)->ArgName("mtu")->Arg(1024)->Arg(4096)->Unit(benchmark::kMillisecond);

void BM_RcWriteMsgRate64Qps(benchmark::State& state) {
  run_writes(state, kBatch, kSmall, static_cast<unsigned>(state.range(1)));
}
BENCHMARK(BM_RcWriteMsgRate64Qps)
    ->ArgNames({"mtu", "qps"})
    ->ArgsProduct({{4096}, {1, 4, 16, 64}})
    ->Unit(benchmark::kMillisecond);

void BM_RcWriteBandwidth1M(benchmark::State& state) {
  run_writes(state, 1, kLarge);
}
BENCHMARK(BM_RcWriteBandwidth1M)
    ->ArgName("mtu")
    ->Arg(1024)
    ->Arg(4096)
    ->Unit(benchmark::kMillisecond);

} // namespace
} // namespace ornic::bench
