// The port as a bottleneck link (--link-rate, --link-queue, --ecn-threshold): frames leave
// at the link rate in order, the queue drops beyond its size, ECN-capable frames that join
// a queue past the threshold are marked CE, and the high-water mark is kept. The test owns
// the clock and drains by hand; the EventLoop is never run.
#include <gtest/gtest.h>

#include "common/event_loop.hpp"
#include "port/shaped_port.hpp"
#include "roce/builder.hpp"
#include "roce/parser.hpp"

namespace ornic {
namespace {

class Capture final : public Port {
public:
  void send(std::span<const std::byte> frame) override {
    sent.emplace_back(frame.begin(), frame.end());
  }
  void set_receiver(Receiver) override {}
  bool link_up() const override { return true; }
  PortCounters counters() const override { return {}; }
  std::vector<std::vector<std::byte>> sent;
};

// An IPv4 RoCEv2 SEND of `payload` bytes with ECN `ecn`: 14 + 20 + 8 + 12 + payload + 4.
std::vector<std::byte> frame(size_t payload, uint8_t ecn) {
  roce::PacketDescription p;
  p.source_gid = roce::gid_from_ipv4({10, 0, 0, 1});
  p.destination_gid = roce::gid_from_ipv4({10, 0, 0, 2});
  p.traffic_class = ecn;
  p.bth.opcode = static_cast<uint8_t>(iba::Opcode::rc_send_only);
  std::vector<uint8_t> bytes;
  EXPECT_EQ(roce::build_frame(p, std::vector<uint8_t>(payload, 1), bytes), roce::BuildError::ok);
  const auto* b = reinterpret_cast<const std::byte*>(bytes.data());
  return {b, b + bytes.size()};
}

uint8_t ecn_of(const std::vector<std::byte>& f) {
  roce::ParsedPacket parsed;
  const auto* b = reinterpret_cast<const uint8_t*>(f.data());
  EXPECT_EQ(roce::parse_frame(std::span<const uint8_t>(b, f.size()), parsed), roce::ParseError::ok);
  return parsed.description.traffic_class & 3;
}

struct Shaped {
  explicit Shaped(const LinkShaping& shaping) {
    auto inner = std::make_unique<Capture>();
    capture = inner.get();
    port = std::make_unique<ShapedPort>(loop, std::move(inner), shaping, [this] { return now; });
  }
  EventLoop loop;
  int64_t now = 1'000'000'000;
  Capture* capture;
  std::unique_ptr<ShapedPort> port;
};

TEST(ShapedPort, DrainsAtTheLinkRateInOrder) {
  Shaped s(LinkShaping{.rate_mbps = 8, .queue_bytes = 1 << 20, .ecn_threshold_bytes = 0});
  const std::vector<std::byte> f = frame(938, 2); // 998 bytes: 998 us at 8 Mbit/s
  ASSERT_EQ(f.size(), 998u);
  const int64_t one = 998'000;
  for (int i = 0; i < 3; ++i)
    s.port->send(f);
  EXPECT_EQ(s.port->tx_backlog(), 3u);
  s.now += one - 1;
  s.port->drain();
  EXPECT_TRUE(s.capture->sent.empty());
  s.now += 1;
  s.port->drain();
  EXPECT_EQ(s.capture->sent.size(), 1u);
  // Late timer: the frames that would have finished meanwhile go, back to back.
  s.now += 2 * one;
  s.port->drain();
  EXPECT_EQ(s.capture->sent.size(), 3u);
  EXPECT_EQ(s.port->queued_bytes(), 0u);
  EXPECT_EQ(s.port->shaping_counters().queue_high_water_bytes, 3 * 998u);
  EXPECT_EQ(s.port->shaping_counters().ecn_marked, 0u);
}

TEST(ShapedPort, MarksEctFramesPastTheThresholdAndDropsPastTheQueue) {
  Shaped s(LinkShaping{.rate_mbps = 8, .queue_bytes = 4990, .ecn_threshold_bytes = 1996});
  const std::vector<std::byte> ect = frame(938, 2), not_ect = frame(938, 0); // 998 bytes
  s.port->send(ect);                                                         // queue 0 -> 998
  s.port->send(ect);                                                         // 998 -> 1996
  s.port->send(ect);     // joins at 1996: marked
  s.port->send(not_ect); // joins at 2994: not ECN-capable, left alone
  s.port->send(ect);     // joins at 3992: marked
  s.port->send(ect);     // 4990 + 998 > 4990: dropped
  EXPECT_EQ(s.port->shaping_counters().ecn_marked, 2u);
  EXPECT_EQ(s.port->shaping_counters().dropped_queue_full, 1u);
  EXPECT_EQ(s.port->shaping_counters().queue_high_water_bytes, 4990u);
  s.now += 10'000'000;
  s.port->drain();
  ASSERT_EQ(s.capture->sent.size(), 5u);
  const uint8_t expected[] = {2, 2, 3, 0, 3};
  for (size_t i = 0; i < 5; ++i)
    EXPECT_EQ(ecn_of(s.capture->sent[i]), expected[i]) << i; // and every one still parses
}

} // namespace
} // namespace ornic
