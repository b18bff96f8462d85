// Guarded guest-memory copies (dma/fault_guard) through MappedGuestMemory over a memfd,
// as every DMA of the model goes to QEMU's guest RAM: the DMA-map lookup, the SIGBUS
// guard, the copy. 64 B (a WQE block, a small payload), 4 KiB (a packet), 64 KiB.
#include <cstring>
#include <vector>

#include "bench_util.hpp"
#include "dma/fault_guard.hpp"
#include "memfd_ram.hpp"

namespace ornic::bench {
namespace {

constexpr uint64_t kBase = 0x40000000;
constexpr size_t kRam = 1 << 20;

void BM_GuestRead(benchmark::State& state) {
  test::MemfdRam ram(kBase, kRam);
  const size_t size = static_cast<size_t>(state.range(0));
  for (size_t i = 0; i < size; ++i)
    ram.bytes()[4096 + i] = std::byte(i * 5 + 1);
  std::vector<std::byte> out(size);
  for (auto _ : state) {
    if (!ram.dma().read(kBase + 4096, out))
      return fail(state, "read of mapped guest memory failed");
    benchmark::DoNotOptimize(out.data());
  }
  if (std::memcmp(out.data(), ram.bytes().data() + 4096, size) != 0)
    return fail(state, "the bytes read differ from guest memory");
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_GuestRead)->Arg(64)->Arg(4096)->Arg(65536);

void BM_GuestWrite(benchmark::State& state) {
  test::MemfdRam ram(kBase, kRam);
  const size_t size = static_cast<size_t>(state.range(0));
  std::vector<std::byte> in(size);
  for (size_t i = 0; i < size; ++i)
    in[i] = std::byte(i * 3 + 7);
  for (auto _ : state) {
    if (!ram.dma().write(kBase + 8192, in))
      return fail(state, "write to mapped guest memory failed");
    benchmark::ClobberMemory();
  }
  if (std::memcmp(in.data(), ram.bytes().data() + 8192, size) != 0)
    return fail(state, "guest memory differs from the bytes written");
  // Whole access or nothing: a write running off the end is refused.
  if (ram.dma().write(kBase + kRam - size / 2, in))
    return fail(state, "a write past the end of guest memory succeeded");
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_GuestWrite)->Arg(64)->Arg(4096)->Arg(65536);

// The guard alone (sigsetjmp and the copy), without the DMA-map lookup.
void BM_GuardedCopy(benchmark::State& state) {
  const size_t size = static_cast<size_t>(state.range(0));
  std::vector<std::byte> from(size, std::byte{0x5a}), to(size);
  for (auto _ : state) {
    if (!guarded_copy(to.data(), from.data(), size))
      return fail(state, "guarded_copy failed on ordinary memory");
    benchmark::ClobberMemory();
  }
  if (to != from)
    return fail(state, "guarded_copy did not copy");
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_GuardedCopy)->Arg(64)->Arg(4096)->Arg(65536);

} // namespace
} // namespace ornic::bench
