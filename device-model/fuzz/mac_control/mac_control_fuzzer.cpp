// libFuzzer target for the port's MAC Control and 802.1Q parsing (port/mac_control.hpp)
// and the PFC engine behind it (port/pfc_port.hpp): wire frames in, NIC frames out, the
// clock moving and the PFC configuration changing, in any order. Every frame also goes
// through the parser alone, whose answer must be self-consistent (a PFC or PAUSE it accepts
// rebuilds to the same fields). The engine must never hand a MAC Control frame to the NIC
// nor hold more than its buffers.
//
// Input: records of an operation byte and a 16-bit big-endian argument. Operation (low 2
// bits): 0 = the wire delivers the next `argument` bytes as a frame, 1 = the NIC sends
// them, 2 = the clock advances by `argument` microseconds, 3 = set_pfc_enabled(argument).
// At most kMaxRecords records count.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include <spdlog/spdlog.h>

#include "common/event_loop.hpp"
#include "port/mac_control.hpp"
#include "port/pfc_port.hpp"

namespace {

namespace mc = ornic::mac_control;

class Wire final : public ornic::Port {
public:
  // What the NIC sends passes through as it is (the backends drop runts and count them).
  void send(std::span<const std::byte>) override {}
  void set_receiver(Receiver rx) override { receiver = std::move(rx); }
  bool link_up() const override { return true; }
  ornic::PortCounters counters() const override { return {}; }
  Receiver receiver;
};

void check_parser(std::span<const std::byte> frame) {
  const mc::Parsed parsed = mc::parse(frame);
  if (mc::frame_priority(frame) > 7)
    std::abort();
  constexpr std::array<uint8_t, 6> kSource = {2, 0, 0, 0, 0, 9};
  if (parsed.kind == mc::Kind::pfc) {
    const mc::Parsed again = mc::parse(mc::build_pfc(kSource, parsed.pfc));
    if (again.kind != mc::Kind::pfc || again.pfc.class_enable != parsed.pfc.class_enable ||
        again.pfc.time != parsed.pfc.time || again.reserved_bits)
      std::abort();
  } else if (parsed.kind == mc::Kind::pause) {
    const mc::Parsed again = mc::parse(mc::build_pause(kSource, parsed.pause_time));
    if (again.kind != mc::Kind::pause || again.pause_time != parsed.pause_time)
      std::abort();
  }
  if (parsed.kind != mc::Kind::not_mac_control &&
      (frame.size() < 14 || frame[12] != std::byte{0x88} || frame[13] != std::byte{0x08}))
    std::abort();
}

constexpr int kMaxRecords = 256;

// Small buffers, so a few frames cross XOFF, XON and the drop limit.
ornic::PfcOptions options() {
  ornic::PfcOptions o;
  o.enabled = 0x0f;
  o.speed_mbps = 1'000;
  o.rx_rate_mbps = 100;
  o.rx_buffer_bytes = 4'000;
  o.xoff_bytes = 1'500;
  o.xon_bytes = 700;
  o.tx_buffer_bytes = 3'000;
  o.watchdog_ms = 1;
  return o;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  spdlog::set_level(spdlog::level::off);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static ornic::EventLoop loop;
  const ornic::PfcOptions o = options();
  int64_t now = 1'000'000'000;
  auto inner = std::make_unique<Wire>();
  Wire* wire = inner.get();
  ornic::PfcPort port(loop, std::move(inner), o, [&now] { return now; });
  port.set_receiver([](std::span<const std::byte> frame) {
    if (mc::parse(frame).kind != mc::Kind::not_mac_control)
      std::abort();
  });
  const auto* bytes = reinterpret_cast<const std::byte*>(data);
  size_t at = 0;
  // Bounded, so an input costs what its frames do rather than thousands of empty records.
  for (int records = 0; records < kMaxRecords && at + 3 <= size; ++records) {
    const uint8_t op = data[at] & 3;
    const auto argument = static_cast<uint16_t>((data[at + 1] << 8) | data[at + 2]);
    at += 3;
    switch (op) {
    case 0:
    case 1: {
      const size_t length = std::min<size_t>(argument, size - at);
      const std::span<const std::byte> frame(bytes + at, length);
      at += length;
      check_parser(frame);
      if (op == 0)
        wire->receiver(frame);
      else
        port.send(frame);
      break;
    }
    case 2:
      now += int64_t{argument} * 1000;
      port.poll();
      break;
    default:
      port.set_pfc_enabled(static_cast<uint8_t>(argument));
      break;
    }
    for (size_t p = 0; p < ornic::PfcPort::kPriorities; ++p)
      if (port.rx_buffered_bytes(p) > o.rx_buffer_bytes ||
          port.tx_queued_bytes(p) > o.tx_buffer_bytes)
        std::abort();
  }
  return 0;
}
