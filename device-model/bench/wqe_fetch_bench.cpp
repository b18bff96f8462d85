// Fetching and validating send WQEs (rdma/wqe_fetch) from an SQ ring in memfd-backed guest
// memory: the requester's first step for every WQE. A WRITE with one SGE (two blocks, the
// SGE checked against its MR) and a SEND with 64 bytes inline (two blocks, no MR).
#include <cstring>

#include "bench_util.hpp"
#include "core/nic_core.hpp"
#include "memfd_ram.hpp"
#include "pci/recording_interrupt_sink.hpp"
#include "rdma/wqe_fetch.hpp"

namespace ornic::bench {
namespace {

constexpr uint64_t kBase = 0x40000000;
constexpr size_t kRam = 4 << 20;
constexpr uint64_t kSq = kBase;                 // 4096 blocks = 256 KiB
constexpr uint64_t kBuffer = kBase + (1 << 20); // 1 MiB registered
constexpr unsigned kLogDepth = 12;
constexpr uint32_t kWqes = (1u << kLogDepth) / 2; // two blocks each

struct FetchRig {
  test::MemfdRam ram{kBase, kRam};
  RecordingInterruptSink irqs;
  NicCore core{MacAddress{0x02, 0, 0, 0, 0, 0x0a}};
  QueuePair* qp = nullptr;
  uint32_t lkey = 0;

  FetchRig() {
    core.attach(ram.dma(), irqs);
    const uint32_t pd = *core.resources.pds.insert(ProtectionDomain{});
    MemoryRegion mr;
    mr.key_variant = 0x5a;
    mr.pd = pd;
    mr.iova = kBuffer;
    mr.length = 1 << 20;
    mr.access = ORNIC_ACCESS_ALL;
    mr.pages = QueueMemory::contiguous(kBuffer, 1 << 20);
    lkey = ORNIC_MR_KEY(*core.resources.mrs.insert(std::move(mr)), 0x5a);
    QueuePair q;
    q.type = ORNIC_QPT_RC;
    q.state = ORNIC_QPS_RTS;
    q.pd = pd;
    q.sq_memory = QueueMemory::contiguous(kSq, uint64_t{ORNIC_WQE_BLOCK_SIZE} << kLogDepth);
    q.sq.log_depth = kLogDepth;
    q.sq.producer = 1u << kLogDepth;
    qp = core.resources.qps.find(*core.resources.qps.insert(std::move(q)));
  }

  template <typename T>
  void put(uint64_t iova, const T& value) {
    std::memcpy(ram.bytes().data() + (iova - kBase), &value, sizeof(value));
  }

  // WQE i at blocks 2i, 2i+1.
  void write_wqes(bool inline_data) {
    for (uint32_t i = 0; i < kWqes; ++i) {
      ornic_send_wqe w{};
      w.opcode = inline_data ? ORNIC_WQE_OP_SEND : ORNIC_WQE_OP_RDMA_WRITE;
      w.flags = ORNIC_WQE_FLAG_SIGNALED;
      w.num_blocks = 2;
      w.wr_id = to_le(uint64_t{i});
      const uint64_t block0 = kSq + uint64_t{2 * i} * ORNIC_WQE_BLOCK_SIZE;
      if (inline_data) {
        w.flags |= ORNIC_WQE_FLAG_INLINE;
        w.inline_len = to_le(uint16_t{64});
        std::array<uint8_t, 64> data{};
        data.fill(static_cast<uint8_t>(i));
        put(block0 + ORNIC_WQE_BLOCK_SIZE, data);
      } else {
        w.num_sge = 1;
        w.rdma.remote_addr = to_le(uint64_t{0x1000} + i * 64);
        w.rdma.rkey = to_le(uint32_t{0x1234});
        ornic_sge sge{};
        sge.addr = to_le(kBuffer + uint64_t{i} * 64);
        sge.length = to_le(uint32_t{64});
        sge.lkey = to_le(lkey);
        put(block0 + ORNIC_WQE_BLOCK_SIZE, sge);
      }
      put(block0, w);
    }
  }
};

void fetch_loop(benchmark::State& state, bool inline_data) {
  FetchRig rig;
  rig.write_wqes(inline_data);
  uint32_t i = 0;
  for (auto _ : state) {
    SendOp op;
    if (const auto error = fetch_send_wqe(rig.core, *rig.qp, 2 * i, op))
      return fail(state, "fetch_send_wqe refused a valid WQE (vendor_err " +
                             std::to_string(error->vendor_err) + ")");
    if (op.wr_id != i || op.length != 64 || op.blocks != 2 ||
        (inline_data ? op.inline_data.size() != 64 || op.inline_data[0] != static_cast<uint8_t>(i)
                     : op.sges.size() != 1 || op.sges[0].addr != kBuffer + uint64_t{i} * 64))
      return fail(state, "the fetched WQE differs from the one written");
    benchmark::DoNotOptimize(op);
    i = (i + 1) % kWqes;
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}

void BM_WqeFetchWriteSge(benchmark::State& state) {
  fetch_loop(state, false);
}
BENCHMARK(BM_WqeFetchWriteSge);

void BM_WqeFetchSendInline(benchmark::State& state) {
  fetch_loop(state, true);
}
BENCHMARK(BM_WqeFetchSendInline);

} // namespace
} // namespace ornic::bench
