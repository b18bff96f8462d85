// Cost against count: the model's heap per idle object. N CQs, then N QPs (each on one of
// those CQs, taken to RTS towards a peer that never hears from it), N MRs and N AHs, all
// through the admin queue as a driver makes them, on one NIC of an RC pair; the growth of
// the heap (glibc's mallinfo2: bytes in use, mmapped blocks included) over each kind,
// divided by N. Guest memory (the rings) is a memfd outside the heap and is not counted;
// what is counted is what the model keeps per object: the object, its slot in the handle
// table, its timers' and queues' state. Then a churn of N QPs (at most kChurn) created, taken
// to RTS and destroyed one after the other: what the heap keeps of each, which should be
// nothing. Under
// the sanitizers the heap is theirs and the figures mean nothing; the run still creates every
// object and fails if one is refused.
#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <malloc.h>

#include <gtest/gtest.h>

#include "bench_util.hpp"
#include "rc_pair_rig.hpp"

namespace ornic::bench {
namespace {

constexpr uint32_t kChurn = 2000;

size_t heap_in_use() {
  const struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
}

// Heap bytes per object that `create` (one object per call) leaves behind over `count`
// calls. The rig's interrupt sink records every interrupt (an admin completion raises
// one) in a vector of its own: emptied after each call, it keeps its capacity and stays
// out of the count.
double bytes_per(test::RdmaPair& pair, uint32_t count,
                 const std::function<void(uint32_t)>& create) {
  const size_t before = heap_in_use();
  for (uint32_t i = 0; i < count; ++i) {
    create(i);
    pair.a.h.irqs.clear();
    pair.b.h.irqs.clear();
  }
  const size_t after = heap_in_use();
  return (static_cast<double>(after) - static_cast<double>(before)) / count;
}

// One QP on `node`'s own CQ, created, taken to RTS towards `peer` and destroyed.
void churn_one_qp(test::RdmaPair& pair, test::Node& node, const test::Qp& peer) {
  test::Qp qp;
  qp.node = &node;
  qp.qpn = node.h.create_qp(node.pd, node.cqn, ORNIC_QPT_RC, ORNIC_DB_PAGE_KERNEL, &qp.sq, &qp.rq);
  pair.connect(qp, peer, ORNIC_MTU_1024);
  if (node.h.execute(test::DriverHarness::simple(ORNIC_ADMIN_DESTROY_QP, qp.qpn)).status !=
      ORNIC_ADMIN_STATUS_SUCCESS)
    ADD_FAILURE() << "DESTROY_QP " << qp.qpn << " refused";
}

void BM_IdleObjectMemory(benchmark::State& state) {
  const auto count = static_cast<uint32_t>(state.range(0));
  // Each QP's SQ and RQ (a page each), its CQ's ring (a page), three MODIFY_QP buffers (a
  // page: the next rings start on a page boundary); the churn's QPs the same without a CQ.
  const size_t guest = size_t{count} * 4 * 4096 + size_t{kChurn} * 3 * 4096 + (8 << 20);
  const int failures_before = rig_failures();
  test::RdmaPair pair(test::RdmaPair::Options{.ram = test::GuestRam::memfd, .guest_memory = guest});
  test::Node& node = pair.a;
  std::vector<uint32_t> cqns(count);
  test::Qp peer;
  peer.node = &pair.b;
  peer.qpn = 0x100; // no such QP: nothing is ever sent
  pair.a.h.irqs.clear();
  pair.b.h.irqs.clear();
  double per_cq = 0, per_qp = 0, per_mr = 0, per_ah = 0, per_churn = 0;
  for (auto _ : state) {
    per_cq = bytes_per(pair, count, [&](uint32_t i) { cqns[i] = node.h.create_cq(node.eqn, 6); });
    per_qp = bytes_per(pair, count, [&](uint32_t i) {
      test::Qp qp;
      qp.node = &node;
      qp.qpn =
          node.h.create_qp(node.pd, cqns[i], ORNIC_QPT_RC, ORNIC_DB_PAGE_KERNEL, &qp.sq, &qp.rq);
      pair.connect(qp, peer, ORNIC_MTU_1024);
    });
    per_mr =
        bytes_per(pair, count, [&](uint32_t) { node.reg_mr(node.buffer, 4096, ORNIC_ACCESS_ALL); });
    per_ah = bytes_per(pair, count, [&](uint32_t) { pair.create_ah(node, pair.b); });
    per_churn =
        bytes_per(pair, std::min(count, kChurn), [&](uint32_t) { churn_one_qp(pair, node, peer); });
  }
  // Every command checks its completion (EXPECT_EQ in the rig): a refused one is a failure.
  if (rig_failures() != failures_before)
    return fail(state, "an object could not be created");
  state.SetItemsProcessed(int64_t{4} * count * static_cast<int64_t>(state.iterations()));
  state.counters["bytes_per_cq"] = per_cq;
  state.counters["bytes_per_qp"] = per_qp;
  state.counters["bytes_per_mr"] = per_mr;
  state.counters["bytes_per_ah"] = per_ah;
  state.counters["churn_bytes_per_qp"] = per_churn;
}
// One iteration: the objects stay until the pair goes. `make check`'s smoke run leaves out
// 4096 (qemu-tests/check-model.sh).
BENCHMARK(BM_IdleObjectMemory)
    ->ArgName("objects")
    ->Arg(256)
    ->Arg(4096)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

// The process's resident set, kB (VmRSS of /proc/self/status); 0 if unreadable.
double resident_kb() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.starts_with("VmRSS:"))
      return std::stod(line.substr(6));
  return 0;
}

// QP churn at scale: N QPs, one at a time, created, taken to RTS and destroyed, on one NIC of
// an RC pair, as a long-lived driver cycles them. The heap and the resident set after a warm-up
// and after the N cycles: what the model keeps of a destroyed QP times N, which must stay
// near zero for a device that runs for months. The rings of each QP are given back to the rig
// after its DESTROY_QP so that guest memory does not bound N.
void BM_QpChurnMemory(benchmark::State& state) {
  const auto cycles = static_cast<uint64_t>(state.range(0));
  constexpr uint64_t kWarmUp = 2000;
  const int failures_before = rig_failures();
  test::RdmaPair pair(test::RdmaPair::Options{.ram = test::GuestRam::memfd});
  test::Node& node = pair.a;
  test::Qp peer;
  peer.node = &pair.b;
  peer.qpn = 0x100; // no such QP: nothing is ever sent
  const auto cycle = [&] {
    const uint64_t mark = node.h.mark();
    churn_one_qp(pair, node, peer);
    node.h.rewind(mark);
    pair.a.h.irqs.clear();
    pair.b.h.irqs.clear();
  };
  double heap_before = 0, heap_after = 0, rss_before = 0, rss_after = 0, seconds = 0;
  for (auto _ : state) {
    for (uint64_t i = 0; i < kWarmUp; ++i)
      cycle();
    heap_before = static_cast<double>(heap_in_use());
    rss_before = resident_kb();
    const auto start = std::chrono::steady_clock::now();
    for (uint64_t i = 0; i < cycles && rig_failures() == failures_before; ++i)
      cycle();
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    heap_after = static_cast<double>(heap_in_use());
    rss_after = resident_kb();
  }
  if (rig_failures() != failures_before)
    return fail(state, "a QP could not be created, connected or destroyed");
  state.SetItemsProcessed(static_cast<int64_t>(cycles) * static_cast<int64_t>(state.iterations()));
  state.counters["heap_before"] = heap_before;
  state.counters["heap_after"] = heap_after;
  state.counters["heap_bytes_per_cycle"] = (heap_after - heap_before) / static_cast<double>(cycles);
  state.counters["rss_before_kb"] = rss_before;
  state.counters["rss_after_kb"] = rss_after;
  state.counters["cycles_per_second"] = static_cast<double>(cycles) / seconds;
}
// A million cycles take minutes: `make check`'s smoke run keeps to the short one
// (qemu-tests/check-model.sh).
BENCHMARK(BM_QpChurnMemory)
    ->ArgName("cycles")
    ->Arg(2000)
    ->Arg(1000000)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

} // namespace
} // namespace ornic::bench
