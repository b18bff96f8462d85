// An RC QP pair end to end (rdma/requester, responder, completer, the transport engine):
// two NICs with memfd-backed guest memory on an in-memory wire (test::RdmaPair), the
// provider's part played by the benchmark (WQEs written to the SQ, one doorbell per batch,
// CQEs polled). Message rate: RDMA WRITEs of 64 B, a batch of kBatch per iteration, a
// completion for each; bandwidth: RDMA WRITEs of 1 MiB. At path MTU 1024 and 4096. And the
// message rate with the batch spread round-robin over 1, 4, 16 and 64 QP pairs on the same
// two NICs (one CQ per NIC), for what many QPs cost the scheduler and the handle tables.
// The rig is rc_pair_rig.hpp.
#include <string>

#include "bench_util.hpp"
#include "rc_pair_rig.hpp"

namespace ornic::bench {
namespace {

constexpr uint32_t kBatch = RcPairRig::kBatch; // WRITEs of 64 B per iteration (two SQ blocks each)
constexpr uint32_t kSmall = 64;
constexpr uint32_t kLarge = 1 << 20;

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
