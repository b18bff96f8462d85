// Cost against count: the message rate of the RC pair (rc_pair_rig.hpp) with N QP pairs
// all active at once, N from 1 to 16384, every QP posting its share of a batch of 64-byte
// RDMA WRITEs (the batch spread round-robin, at least one WRITE per QP and batch). The
// transmit scheduler, the ACK and retransmit timers and the CQ and EQ paths should touch
// only the QPs with work, so the CPU time per message should stay flat as N grows; a scan
// of every QP somewhere would show as a rate falling with N.
//
// Creating and connecting thousands of QP pairs takes longer than measuring them, and
// Google Benchmark calls a benchmark several times while it settles on an iteration
// count: the pair of the last N is kept for the next call. setup_us_per_pair is what one
// pair cost through the admin path (two CREATE_QPs and six MODIFY_QPs) when it was built.
#include <algorithm>
#include <chrono>
#include <memory>
#include <string>

#include "bench_util.hpp"
#include "rc_pair_rig.hpp"

namespace ornic::bench {
namespace {

constexpr uint32_t kLength = 64;

struct CachedRig {
  unsigned qps = 0;
  std::unique_ptr<RcPairRig> rig;
  double setup_us_per_pair = 0;
};

// One rig at a time: the previous N's goes before the next is built.
RcPairRig* rig_for(unsigned qps, uint32_t batch, CachedRig& cache) {
  if (cache.rig && cache.qps == qps)
    return cache.rig.get();
  cache.rig.reset();
  const auto start = std::chrono::steady_clock::now();
  cache.rig = std::make_unique<RcPairRig>(ORNIC_MTU_4096, qps, batch);
  const std::chrono::duration<double, std::micro> took = std::chrono::steady_clock::now() - start;
  cache.qps = qps;
  cache.setup_us_per_pair = took.count() / qps;
  return cache.rig.get();
}

void BM_RcWriteMsgRateActiveQps(benchmark::State& state) {
  static CachedRig cache;
  const auto qps = static_cast<unsigned>(state.range(0));
  const uint32_t count = std::max<uint32_t>(RcPairRig::kBatch, qps);
  const int failures_before = rig_failures();
  RcPairRig* rig = rig_for(qps, count, cache);
  if (rig_failures() != failures_before) {
    cache.rig.reset(); // half set up: never reused
    return fail(state, "the RC pairs could not be set up");
  }
  const uint64_t packets_before = rig->packets_sent(), acks_before = rig->acks_received();
  const uint64_t retransmits_before = rig->retransmits();
  for (auto _ : state) {
    state.PauseTiming();
    rig->stamp(size_t{count} * kLength);
    state.ResumeTiming();
    const std::string error = rig->write_batch(count, kLength);
    if (!error.empty()) {
      cache.rig.reset();
      return fail(state, error);
    }
  }
  if (rig_failures() != failures_before) {
    cache.rig.reset();
    return fail(state, "the rig reported a failure");
  }
  const auto messages = static_cast<double>(state.iterations()) * count;
  state.SetItemsProcessed(static_cast<int64_t>(messages));
  state.SetBytesProcessed(static_cast<int64_t>(messages) * kLength);
  state.counters["pkts_per_msg"] =
      static_cast<double>(rig->packets_sent() - packets_before) / messages;
  state.counters["acks_per_msg"] =
      static_cast<double>(rig->acks_received() - acks_before) / messages;
  state.counters["retransmits"] = static_cast<double>(rig->retransmits() - retransmits_before);
  state.counters["msgs_per_qp_per_batch"] = static_cast<double>(count) / qps;
  state.counters["setup_us_per_pair"] = cache.setup_us_per_pair;
}
// From 1024 on every QP carries one WRITE of a batch and is ACKed for it: what grows from
// there is only the number of QPs. `make check`'s smoke run leaves out 1024 and more
// (qemu-tests/check-model.sh): building that many pairs under the sanitizers takes
// longer than the whole run may.
BENCHMARK(BM_RcWriteMsgRateActiveQps)
    ->ArgName("qps")
    ->Arg(1)
    ->Arg(16)
    ->Arg(256)
    ->Arg(1024)
    ->Arg(4096)
    ->Arg(16384)
    ->Unit(benchmark::kMillisecond);

} // namespace
} // namespace ornic::bench
