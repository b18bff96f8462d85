// The RoCEv2 ICRC (roce/icrc) and the CRC-32 under it (roce/crc32), over IP packets of 64 B
// to a 9000-byte jumbo frame: the cost every packet pays twice, once built, once checked.
#include <cstdint>
#include <vector>

#include "bench_util.hpp"
#include "iba/crc32.hpp"
#include "roce/icrc.hpp"

namespace ornic::bench {
namespace {

std::vector<uint8_t> pattern(size_t bytes) {
  std::vector<uint8_t> data(bytes);
  uint32_t x = 0x12345678;
  for (auto& byte : data) {
    x = x * 1664525u + 1013904223u;
    byte = static_cast<uint8_t>(x >> 24);
  }
  return data;
}

void BM_Icrc(benchmark::State& state) {
  const auto packet = pattern(static_cast<size_t>(state.range(0)));
  // The same bytes must give the same ICRC every time, and a flipped bit another one.
  const uint32_t expected = roce::compute_icrc(roce::IpFamily::ipv4, packet);
  auto flipped = packet;
  flipped.back() ^= 1;
  if (roce::compute_icrc(roce::IpFamily::ipv4, flipped) == expected)
    return fail(state, "a flipped bit leaves the ICRC unchanged");
  // Checked inside the loop, before DoNotOptimize: GCC with -fsanitize=address loses the
  // value of a variable passed to it (seen in the ASan build).
  for (auto _ : state) {
    uint32_t icrc = roce::compute_icrc(roce::IpFamily::ipv4, packet);
    if (icrc != expected)
      return fail(state, "the ICRC changed between runs");
    benchmark::DoNotOptimize(icrc);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_Icrc)->Arg(64)->Arg(1024)->Arg(4096)->Arg(9000);

void BM_Crc32(benchmark::State& state) {
  const auto bytes = pattern(static_cast<size_t>(state.range(0)));
  // Chaining is what the ICRC relies on: crc(a||b) == crc(crc(a), b).
  const std::span<const uint8_t> all(bytes);
  const uint32_t whole = iba::crc32_update(0, all);
  if (iba::crc32_update(iba::crc32_update(0, all.first(17)), all.subspan(17)) != whole)
    return fail(state, "CRC-32 does not chain");
  for (auto _ : state) {
    uint32_t crc = iba::crc32_update(0, all);
    if (crc != whole)
      return fail(state, "the CRC changed between runs");
    benchmark::DoNotOptimize(crc);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_Crc32)->Arg(64)->Arg(1024)->Arg(4096)->Arg(9000);

} // namespace
} // namespace ornic::bench
