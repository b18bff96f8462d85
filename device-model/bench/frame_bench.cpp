// Building and parsing RoCEv2 frames (roce/builder, roce/parser): Ethernet, IPv4, UDP, BTH,
// RETH, payload, ICRC — what the requester does for every packet it sends and the engine
// for every packet it receives. Payloads of 64 B and one packet of each path MTU.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "bench_util.hpp"
#include "iba/opcode_table.hpp"
#include "roce/builder.hpp"
#include "roce/parser.hpp"

namespace ornic::bench {
namespace {

roce::PacketDescription write_only() {
  roce::PacketDescription packet;
  packet.destination_mac = {0x02, 0, 0, 0, 0, 0x0b};
  packet.source_mac = {0x02, 0, 0, 0, 0, 0x0a};
  packet.source_gid = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 1};
  packet.destination_gid = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 2};
  packet.bth.opcode = static_cast<uint8_t>(iba::Opcode::rc_rdma_write_only);
  packet.bth.destination_qp = 0x12;
  packet.bth.psn = 0x100;
  packet.bth.ack_request = true;
  packet.reth = iba::Reth{0x10000000, 0x1234, 0};
  return packet;
}

std::vector<uint8_t> payload(size_t bytes) {
  std::vector<uint8_t> data(bytes);
  for (size_t i = 0; i < bytes; ++i)
    data[i] = static_cast<uint8_t>(i * 7 + 3);
  return data;
}

void BM_BuildFrame(benchmark::State& state) {
  const auto data = payload(static_cast<size_t>(state.range(0)));
  auto packet = write_only();
  packet.reth->dma_length = static_cast<uint32_t>(data.size());
  std::vector<uint8_t> frame;
  for (auto _ : state) {
    packet.bth.psn = (packet.bth.psn + 1) & 0xffffff;
    if (roce::build_frame(packet, data, frame) != roce::BuildError::ok)
      return fail(state, "build_frame refused a WRITE ONLY");
    benchmark::DoNotOptimize(frame.data());
  }
  // What was built parses back to what was described.
  roce::ParsedPacket parsed;
  if (roce::parse_frame(frame, parsed) != roce::ParseError::ok ||
      parsed.description.bth.psn != packet.bth.psn ||
      !std::equal(parsed.payload.begin(), parsed.payload.end(), data.begin(), data.end()))
    return fail(state, "the built frame does not parse back");
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * frame.size()));
}
BENCHMARK(BM_BuildFrame)->Arg(64)->Arg(1024)->Arg(4096);

void BM_ParseFrame(benchmark::State& state) {
  const auto data = payload(static_cast<size_t>(state.range(0)));
  auto packet = write_only();
  packet.reth->dma_length = static_cast<uint32_t>(data.size());
  std::vector<uint8_t> frame;
  if (roce::build_frame(packet, data, frame) != roce::BuildError::ok)
    return fail(state, "build_frame refused a WRITE ONLY");
  auto corrupt = frame;
  corrupt[corrupt.size() / 2] ^= 0x40;
  roce::ParsedPacket parsed;
  if (roce::parse_frame(corrupt, parsed) != roce::ParseError::icrc_mismatch)
    return fail(state, "a corrupted frame was not refused for its ICRC");
  for (auto _ : state) {
    if (roce::parse_frame(frame, parsed) != roce::ParseError::ok)
      return fail(state, "parse_frame refused a good frame");
    benchmark::DoNotOptimize(parsed.payload.data());
  }
  if (parsed.description.reth != packet.reth ||
      !std::equal(parsed.payload.begin(), parsed.payload.end(), data.begin(), data.end()))
    return fail(state, "the parsed frame differs from the one built");
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * frame.size()));
}
BENCHMARK(BM_ParseFrame)->Arg(64)->Arg(1024)->Arg(4096);

} // namespace
} // namespace ornic::bench
