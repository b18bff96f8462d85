// Priority flow control on the port (pfc_port.hpp): per-priority pause of the transmit
// queues, XOFF/XON from a slow receiver's buffers, the watchdog, and two PfcPorts on one
// link where a fast sender meets a slow receiver. The tests own the clock and call poll()
// themselves; the EventLoop is never run.
#include <gtest/gtest.h>

#include "common/event_loop.hpp"
#include "port/pfc_port.hpp"

namespace ornic {
namespace {

using Frame = std::vector<std::byte>;
using mac_control::PfcRequest;
constexpr std::array<uint8_t, 6> kPeerMac = {0x02, 0, 0, 0, 0, 0x02};

// A tagged IPv4-ish frame of `size` bytes at priority `pcp`.
Frame data(uint8_t pcp, size_t size = 1000) {
  Frame f(size, std::byte{0});
  f[0] = std::byte{0x02};
  f[5] = std::byte{0x01};
  f[12] = std::byte{0x81};
  f[14] = static_cast<std::byte>(pcp << 5);
  f[15] = std::byte{42};
  f[16] = std::byte{0x08};
  return f;
}

Frame pfc(uint8_t vector, uint16_t time) {
  PfcRequest request;
  request.class_enable = vector;
  for (size_t p = 0; p < 8; ++p)
    if ((vector & (1u << p)) != 0)
      request.time[p] = time;
  return mac_control::build_pfc(kPeerMac, request);
}

// The wire under the PfcPort: records what it sends, hands the port what the test injects,
// or (joined to another) delivers to the other end on pump().
class Wire final : public Port {
public:
  void send(std::span<const std::byte> frame) override {
    if (peer != nullptr)
      peer->inbox.emplace_back(frame.begin(), frame.end());
    else
      sent.emplace_back(frame.begin(), frame.end());
  }
  void set_receiver(Receiver rx) override { receiver = std::move(rx); }
  bool link_up() const override { return true; }
  PortCounters counters() const override { return {}; }

  void inject(const Frame& f) { receiver(f); }
  void pump() {
    std::vector<Frame> now;
    now.swap(inbox);
    for (const Frame& f : now)
      receiver(f);
  }
  std::vector<Frame> control_sent() const {
    std::vector<Frame> out;
    for (const Frame& f : sent)
      if (mac_control::parse(f).kind != mac_control::Kind::not_mac_control)
        out.push_back(f);
    return out;
  }
  size_t data_sent(uint8_t pcp) const {
    size_t n = 0;
    for (const Frame& f : sent)
      if (mac_control::parse(f).kind == mac_control::Kind::not_mac_control &&
          mac_control::frame_priority(f) == pcp)
        ++n;
    return n;
  }

  Receiver receiver;
  std::vector<Frame> sent;
  std::vector<Frame> inbox;
  Wire* peer = nullptr;
};

struct Rig {
  explicit Rig(PfcOptions options) {
    auto inner = std::make_unique<Wire>();
    wire = inner.get();
    port = std::make_unique<PfcPort>(loop, std::move(inner), options, [this] { return now; });
    port->set_receiver(
        [this](std::span<const std::byte> f) { delivered.emplace_back(f.begin(), f.end()); });
  }
  void advance(int64_t ns) {
    now += ns;
    port->poll();
  }
  EventLoop loop;
  int64_t now = 1'000'000'000;
  Wire* wire;
  std::unique_ptr<PfcPort> port;
  std::vector<Frame> delivered;
};

PfcOptions lossless(uint8_t mask = 0x08) {
  PfcOptions o;
  o.enabled = mask;
  o.speed_mbps = 10'000; // a quantum is 51.2 ns
  return o;
}

TEST(PfcPort, PausedPriorityHoldsWhileAnotherFlows) {
  Rig r(lossless(0xff));
  r.wire->inject(pfc(0x08, 0xffff));
  EXPECT_TRUE(r.port->tx_paused(3));
  r.port->send(data(3));
  r.port->send(data(0));
  r.port->send(data(5));
  r.port->send(data(3));
  EXPECT_EQ(r.wire->data_sent(3), 0u);
  EXPECT_EQ(r.wire->data_sent(0), 1u);
  EXPECT_EQ(r.wire->data_sent(5), 1u);
  EXPECT_EQ(r.port->tx_queued_bytes(3), 2000u);
  EXPECT_EQ(r.port->tx_backlog(), 2u);
  r.wire->inject(pfc(0x08, 0)); // time 0: resume now
  EXPECT_FALSE(r.port->tx_paused(3));
  // The backlog leaves at the port speed: 1000 bytes at 10 Gb/s take 800 ns.
  EXPECT_EQ(r.wire->data_sent(3), 1u);
  r.advance(799);
  EXPECT_EQ(r.wire->data_sent(3), 1u);
  r.advance(1);
  EXPECT_EQ(r.wire->data_sent(3), 2u);
  const PfcPriorityCounters c = r.port->priority_counters(3);
  EXPECT_EQ(c.rx_pause, 1u);
  EXPECT_EQ(c.rx_pause_transitions, 1u);
  EXPECT_EQ(c.tx_frames, 2u);
  EXPECT_EQ(c.tx_bytes, 2000u);
  EXPECT_EQ(r.port->priority_counters(0).rx_pause, 0u);
  EXPECT_TRUE(r.delivered.empty()); // MAC Control never reaches the NIC
}

TEST(PfcPort, PauseExpiresInQuantaAtThePortSpeed) {
  Rig r(lossless());
  r.wire->inject(pfc(0x08, 1000)); // 1000 * 512 bits at 10 Gb/s: 51.2 us
  r.port->send(data(3));
  r.advance(51'199);
  EXPECT_EQ(r.wire->data_sent(3), 0u);
  r.advance(1);
  EXPECT_EQ(r.wire->data_sent(3), 1u);
  EXPECT_EQ(r.port->priority_counters(3).rx_pause_duration_us, 51u);

  // A later frame replaces the time: a refresh keeps it paused past the first expiry.
  r.wire->inject(pfc(0x08, 1000));
  r.advance(40'000);
  r.wire->inject(pfc(0x08, 1000));
  r.port->send(data(3));
  r.advance(40'000);
  EXPECT_EQ(r.wire->data_sent(3), 1u);
  r.advance(11'200);
  EXPECT_EQ(r.wire->data_sent(3), 2u);
  EXPECT_EQ(r.port->priority_counters(3).rx_pause_transitions, 2u);
  EXPECT_EQ(r.port->priority_counters(3).rx_pause, 3u);
}

TEST(PfcPort, PauseAtTheDefaultSpeed) {
  PfcOptions o;
  o.enabled = 0x01;
  Rig r(o);
  r.wire->inject(pfc(0x01, 0xffff)); // 335.54 us at 100 Gb/s
  r.port->send(data(0));
  r.advance(335'539);
  EXPECT_EQ(r.wire->data_sent(0), 0u);
  r.advance(1);
  EXPECT_EQ(r.wire->data_sent(0), 1u);
}

TEST(PfcPort, OnlyPfcEnabledPrioritiesPause) {
  Rig r(lossless(0x08));
  r.wire->inject(pfc(0x0b, 0xffff));
  EXPECT_TRUE(r.port->tx_paused(3));
  EXPECT_FALSE(r.port->tx_paused(0));
  EXPECT_FALSE(r.port->tx_paused(1));
  // Turning PFC off for a paused priority lets its queue go.
  r.port->send(data(3));
  r.port->set_pfc_enabled(0x00);
  EXPECT_FALSE(r.port->tx_paused(3));
  EXPECT_EQ(r.wire->data_sent(3), 1u);
}

TEST(PfcPort, LegacyPauseStopsEverythingOnlyWithoutPfc) {
  Rig r(PfcOptions{.insert = true, .speed_mbps = 10'000});
  r.wire->inject(mac_control::build_pause(kPeerMac, 1000));
  for (size_t p = 0; p < 8; ++p)
    EXPECT_TRUE(r.port->tx_paused(p)) << p;
  r.advance(51'200);
  for (size_t p = 0; p < 8; ++p)
    EXPECT_FALSE(r.port->tx_paused(p)) << p;

  r.port->set_pfc_enabled(0x08);
  r.wire->inject(mac_control::build_pause(kPeerMac, 1000));
  for (size_t p = 0; p < 8; ++p)
    EXPECT_FALSE(r.port->tx_paused(p)) << p;
  EXPECT_EQ(r.port->mac_control_counters().rx_pause, 2u);
  EXPECT_EQ(r.port->mac_control_counters().rx_pause_ignored, 1u);
}

TEST(PfcPort, BadMacControlIsCountedAndDropped) {
  Rig r(lossless(0xff));
  Frame unknown = pfc(0x08, 0xffff);
  unknown[15] = std::byte{0x02};
  r.wire->inject(unknown);
  Frame cut = pfc(0x08, 0xffff);
  cut.resize(40);
  r.wire->inject(cut);
  Frame reserved = pfc(0x08, 0xffff);
  reserved[16] = std::byte{0x01};
  r.wire->inject(reserved);
  EXPECT_TRUE(r.delivered.empty());
  const MacControlCounters& m = r.port->mac_control_counters();
  EXPECT_EQ(m.rx_unknown_opcode, 1u);
  EXPECT_EQ(m.rx_short, 1u);
  EXPECT_EQ(m.rx_pfc, 1u);
  EXPECT_EQ(m.rx_pfc_reserved_bits, 1u);
  // Only the frame with reserved bits acted, on its defined bits.
  EXPECT_TRUE(r.port->tx_paused(3));
  EXPECT_EQ(r.port->priority_counters(3).rx_pause, 1u);
  // Data frames pass straight through without a receive rate.
  r.wire->inject(data(4));
  ASSERT_EQ(r.delivered.size(), 1u);
  EXPECT_EQ(r.port->priority_counters(4).rx_frames, 1u);
  EXPECT_EQ(r.port->priority_counters(4).rx_bytes, 1000u);
}

TEST(PfcPort, TransmitBufferBoundsAPausedPriority) {
  PfcOptions o = lossless();
  o.tx_buffer_bytes = 2500;
  Rig r(o);
  r.wire->inject(pfc(0x08, 0xffff));
  for (int i = 0; i < 4; ++i)
    r.port->send(data(3));
  EXPECT_EQ(r.port->tx_queued_bytes(3), 2000u);
  EXPECT_EQ(r.port->priority_counters(3).tx_discards, 2u);
  // Order is kept: a frame sent after resume waits behind the queued ones.
  r.advance(int64_t{1} << 30);
  EXPECT_EQ(r.wire->data_sent(3), 2u);
}

PfcOptions slow_receiver(uint8_t mask) {
  PfcOptions o = lossless(mask);
  o.rx_rate_mbps = 8;   // 1000 bytes a millisecond
  o.speed_mbps = 1'000; // XOFF refreshed every 16.8 ms
  o.rx_buffer_bytes = 20'000;
  o.xoff_bytes = 5'000;
  o.xon_bytes = 2'000;
  o.watchdog_ms = 0;
  return o;
}

TEST(PfcPort, XoffPastTheThresholdXonOnceDrained) {
  Rig r(slow_receiver(0x08));
  for (int i = 0; i < 5; ++i)
    r.wire->inject(data(3));
  EXPECT_TRUE(r.wire->control_sent().empty()); // 5000 is not past XOFF
  r.wire->inject(data(3));
  ASSERT_EQ(r.wire->control_sent().size(), 1u);
  const mac_control::Parsed xoff = mac_control::parse(r.wire->control_sent()[0]);
  EXPECT_EQ(xoff.kind, mac_control::Kind::pfc);
  EXPECT_EQ(xoff.pfc.class_enable, 0x08);
  EXPECT_EQ(xoff.pfc.time[3], PfcPort::kXoffQuanta);
  EXPECT_TRUE(r.port->xoff_sent(3));
  EXPECT_EQ(r.port->priority_counters(3).tx_pause, 1u);
  EXPECT_TRUE(r.delivered.empty());

  for (int ms = 1; ms <= 3; ++ms) {
    r.advance(1'000'000);
    EXPECT_EQ(r.delivered.size(), size_t(ms));
  }
  EXPECT_EQ(r.wire->control_sent().size(), 1u); // 3000 bytes left: above XON
  r.advance(1'000'000);
  ASSERT_EQ(r.wire->control_sent().size(), 2u);
  const mac_control::Parsed xon = mac_control::parse(r.wire->control_sent()[1]);
  EXPECT_EQ(xon.pfc.class_enable, 0x08);
  EXPECT_EQ(xon.pfc.time[3], 0);
  EXPECT_FALSE(r.port->xoff_sent(3));
  const PfcPriorityCounters c = r.port->priority_counters(3);
  EXPECT_EQ(c.tx_pause, 1u); // an XON is not a pause
  EXPECT_EQ(c.tx_pause_duration_us, 4000u);
  r.advance(2'000'000);
  EXPECT_EQ(r.delivered.size(), 6u);
  EXPECT_EQ(r.port->rx_buffered_bytes(3), 0u);
  EXPECT_EQ(c.rx_discards, 0u);
}

// data() with an IPv4 header behind the tag: ECT(0), its checksum right.
Frame ect_data(uint8_t pcp) {
  Frame f = data(pcp);
  f[18] = std::byte{0x45};
  f[19] = std::byte{0x02};
  f[20] = std::byte{0x03}; // total length 1000 - 18
  f[21] = std::byte{0xd6};
  f[26] = std::byte{64};
  f[27] = std::byte{17};
  uint32_t sum = 0;
  for (size_t i = 18; i < 38; i += 2)
    sum += static_cast<uint32_t>(f[i]) << 8 | static_cast<uint32_t>(f[i + 1]);
  sum = (sum & 0xffff) + (sum >> 16);
  sum = (sum & 0xffff) + (sum >> 16);
  f[28] = static_cast<std::byte>(~sum >> 8);
  f[29] = static_cast<std::byte>(~sum);
  return f;
}
unsigned ecn_of(const Frame& f) {
  return static_cast<unsigned>(f[19]) & 3u;
}
bool ipv4_checksum_ok(const Frame& f) {
  uint32_t sum = 0;
  for (size_t i = 18; i < 38; i += 2)
    sum += static_cast<uint32_t>(f[i]) << 8 | static_cast<uint32_t>(f[i + 1]);
  sum = (sum & 0xffff) + (sum >> 16);
  sum = (sum & 0xffff) + (sum >> 16);
  return sum == 0xffff;
}

TEST(PfcPort, EcnMarksPastTheThresholdBeforeXoff) {
  PfcOptions o = slow_receiver(0x08);
  o.rx_ecn_bytes = 2'000;
  ASSERT_EQ(check_pfc_options(o), "");
  Rig r(o);
  for (int i = 0; i < 5; ++i)
    r.wire->inject(ect_data(3));
  // The fourth and fifth found more than 2000 bytes waiting; XOFF (5000) is not reached.
  EXPECT_EQ(r.port->rx_ecn_marked(3), 2u);
  EXPECT_TRUE(r.wire->control_sent().empty());
  r.wire->inject(ect_data(3));
  EXPECT_EQ(r.port->rx_ecn_marked(3), 3u);
  EXPECT_EQ(r.wire->control_sent().size(), 1u); // PFC still catches what ECN did not
  r.advance(10'000'000);
  ASSERT_EQ(r.delivered.size(), 6u);
  for (size_t i = 0; i < r.delivered.size(); ++i) {
    EXPECT_EQ(ecn_of(r.delivered[i]), i < 3 ? 2u : 3u) << i;
    EXPECT_TRUE(ipv4_checksum_ok(r.delivered[i])) << i;
  }
  // A device reset zeroes the priority counters, not the marks.
  r.port->clear_priority_counters();
  EXPECT_EQ(r.port->rx_ecn_marked(3), 3u);
}

TEST(PfcPort, EcnLeavesNotEctFramesAndMarksLossyPriorities) {
  PfcOptions o = slow_receiver(0x08);
  o.rx_ecn_bytes = 2'000;
  Rig r(o);
  for (int i = 0; i < 5; ++i)
    r.wire->inject(data(3)); // no IP header: not ECN-capable
  for (int i = 0; i < 5; ++i)
    r.wire->inject(ect_data(1));
  EXPECT_EQ(r.port->rx_ecn_marked(3), 0u);
  EXPECT_EQ(r.port->rx_ecn_marked(1), 2u); // ECN does not need PFC
  r.advance(20'000'000);
  ASSERT_EQ(r.delivered.size(), 10u);
  for (const Frame& f : r.delivered) {
    if (mac_control::frame_priority(f) == 3) {
      EXPECT_EQ(f, data(3));
    }
  }
}

TEST(PfcPort, NoEcnThresholdMarksNothing) {
  Rig r(slow_receiver(0x08));
  for (int i = 0; i < 10; ++i)
    r.wire->inject(ect_data(3));
  EXPECT_EQ(r.port->rx_ecn_marked(3), 0u);
  r.advance(20'000'000);
  for (const Frame& f : r.delivered)
    EXPECT_EQ(ecn_of(f), 2u);
}

TEST(PfcOptions, EcnNeedsAReceiveBufferToMarkIn) {
  PfcOptions o;
  o.rx_ecn_bytes = 16'384;
  EXPECT_NE(check_pfc_options(o), ""); // no receive rate: no buffer fills
  o.rx_rate_mbps = 20;
  EXPECT_EQ(check_pfc_options(o), "");
  o.rx_ecn_bytes = o.rx_buffer_bytes;
  EXPECT_NE(check_pfc_options(o), "");
}

TEST(PfcPort, XoffIsRefreshedBeforeItExpires) {
  PfcOptions o = slow_receiver(0x08);
  o.rx_rate_mbps = 1; // 8 ms a frame: stays above XON for a long time
  Rig r(o);
  for (int i = 0; i < 8; ++i)
    r.wire->inject(data(3));
  ASSERT_EQ(r.wire->control_sent().size(), 1u);
  const int64_t half = mac_control::quanta_ns(0xffff, 1'000) / 2;
  r.advance(half - 1);
  EXPECT_EQ(r.wire->control_sent().size(), 1u);
  r.advance(1);
  ASSERT_EQ(r.wire->control_sent().size(), 2u);
  EXPECT_EQ(mac_control::parse(r.wire->control_sent()[1]).pfc.time[3], PfcPort::kXoffQuanta);
  EXPECT_EQ(r.port->priority_counters(3).tx_pause, 2u);
}

TEST(PfcPort, LossyPriorityDropsWhenItsBufferIsFull) {
  Rig r(slow_receiver(0x08));
  for (int i = 0; i < 25; ++i)
    r.wire->inject(data(1));
  EXPECT_TRUE(r.wire->control_sent().empty()); // no PFC on priority 1
  EXPECT_EQ(r.port->priority_counters(1).rx_discards, 5u);
  EXPECT_EQ(r.port->priority_counters(1).rx_frames, 20u);
}

TEST(PfcPort, WatchdogStopsHonouringAStormAndRecovers) {
  PfcOptions o = lossless();
  o.speed_mbps = 1'000; // a refresh every 10 ms keeps the 33.55 ms pause going
  o.watchdog_ms = 100;
  Rig r(o);
  r.wire->inject(pfc(0x08, 0xffff));
  r.port->send(data(3));
  for (int i = 0; i < 9; ++i) {
    r.advance(10'000'000);
    r.wire->inject(pfc(0x08, 0xffff));
  }
  EXPECT_EQ(r.wire->data_sent(3), 0u);
  EXPECT_EQ(r.port->priority_counters(3).tx_pause_storm, 0u);
  r.advance(10'000'000); // 100 ms paused
  EXPECT_EQ(r.port->priority_counters(3).tx_pause_storm, 1u);
  EXPECT_EQ(r.wire->data_sent(3), 1u);
  EXPECT_FALSE(r.port->tx_paused(3));
  // The storm goes on: counted, not honoured.
  for (int i = 0; i < 5; ++i) {
    r.wire->inject(pfc(0x08, 0xffff));
    r.port->send(data(3));
    r.advance(10'000'000);
  }
  EXPECT_EQ(r.wire->data_sent(3), 6u);
  EXPECT_FALSE(r.port->tx_paused(3));
  EXPECT_EQ(r.port->priority_counters(3).rx_pause, 15u);
  // The peer falls quiet for the watchdog time: pause is honoured again.
  r.advance(90'000'000);
  r.wire->inject(pfc(0x08, 0xffff));
  EXPECT_TRUE(r.port->tx_paused(3));
  EXPECT_EQ(r.port->priority_counters(3).tx_pause_storm, 1u);
}

TEST(PfcPort, PauseStormDoesNotStallOtherPriorities) {
  PfcOptions o = lossless(0xff);
  o.watchdog_ms = 0;
  Rig r(o);
  for (int i = 0; i < 1000; ++i) {
    r.wire->inject(pfc(0x08, 0xffff));
    r.port->send(data(static_cast<uint8_t>(i % 8)));
    r.advance(1'000);
  }
  for (uint8_t p = 0; p < 8; ++p)
    EXPECT_EQ(r.wire->data_sent(p), p == 3 ? 0u : 125u) << int(p);
  EXPECT_EQ(r.port->priority_counters(3).rx_pause_transitions, 1u);
  EXPECT_GE(r.port->priority_counters(3).rx_pause_duration_us, 999u);
}

// Two PfcPorts on one link: a sender as fast as its port takes frames (it holds back only
// when a priority's transmit buffer is full, as a NIC with a send window does) into a
// receiver that drains at an eighth of that.
struct Link {
  Link(uint8_t sender_pfc, uint8_t receiver_pfc) {
    PfcOptions send_options = lossless(sender_pfc);
    send_options.insert = true;
    PfcOptions receive_options = lossless(receiver_pfc);
    receive_options.rx_rate_mbps = 1'000; // 8 us a 1000-byte frame
    receive_options.rx_buffer_bytes = 64 << 10;
    receive_options.xoff_bytes = 32 << 10;
    receive_options.xon_bytes = 16 << 10;
    auto a = std::make_unique<Wire>();
    auto b = std::make_unique<Wire>();
    a->peer = b.get();
    b->peer = a.get();
    wire_a = a.get();
    wire_b = b.get();
    sender = std::make_unique<PfcPort>(loop, std::move(a), send_options, [this] { return now; });
    receiver =
        std::make_unique<PfcPort>(loop, std::move(b), receive_options, [this] { return now; });
    sender->set_receiver([](std::span<const std::byte>) {});
    receiver->set_receiver(
        [this](std::span<const std::byte> f) { ++delivered[mac_control::frame_priority(f)]; });
  }
  // One frame a microsecond (8 Gb/s) for each priority in `priorities`, in turn, until
  // `frames` of each have been sent, then until the receiver is idle.
  void run(std::vector<uint8_t> priorities, size_t frames) {
    std::array<size_t, 8> sent{};
    for (int step = 0; step < 2'000'000; ++step) {
      now += 1'000;
      const uint8_t p = priorities[static_cast<size_t>(step) % priorities.size()];
      if (sent[p] < frames && sender->tx_queued_bytes(p) + 1000 <= (size_t{1} << 20)) {
        sender->send(data(p));
        ++sent[p];
      }
      wire_a->pump();
      wire_b->pump();
      sender->poll();
      receiver->poll();
      bool done = true;
      for (const uint8_t q : priorities)
        done = done && sent[q] == frames && receiver->rx_buffered_bytes(q) == 0 &&
               sender->tx_queued_bytes(q) == 0;
      if (done && wire_a->inbox.empty() && wire_b->inbox.empty())
        return;
    }
    ADD_FAILURE() << "the link never went idle";
  }
  EventLoop loop;
  int64_t now = 1'000'000'000;
  Wire* wire_a;
  Wire* wire_b;
  std::unique_ptr<PfcPort> sender;
  std::unique_ptr<PfcPort> receiver;
  std::array<size_t, 8> delivered{};
};

TEST(PfcLink, FastSenderIntoSlowReceiverLosesNothingWithPfc) {
  Link link(0x08, 0x08);
  link.run({3}, 5000);
  EXPECT_EQ(link.delivered[3], 5000u);
  EXPECT_EQ(link.receiver->priority_counters(3).rx_discards, 0u);
  EXPECT_EQ(link.sender->priority_counters(3).tx_discards, 0u);
  EXPECT_GT(link.receiver->priority_counters(3).tx_pause, 0u);
  EXPECT_GT(link.sender->priority_counters(3).rx_pause_transitions, 0u);
  EXPECT_EQ(link.sender->priority_counters(3).tx_pause_storm, 0u);
}

TEST(PfcLink, FastSenderIntoSlowReceiverLosesFramesWithoutPfc) {
  Link link(0x00, 0x00);
  link.run({3}, 5000);
  EXPECT_LT(link.delivered[3], 5000u);
  EXPECT_EQ(link.delivered[3] + link.receiver->priority_counters(3).rx_discards, 5000u);
  EXPECT_EQ(link.receiver->priority_counters(3).tx_pause, 0u);
}

TEST(PfcLink, LosslessPriorityDropsNothingWhileALossyOneDrops) {
  Link link(0x08, 0x08);
  link.run({3, 1}, 3000);
  EXPECT_EQ(link.delivered[3], 3000u);
  EXPECT_EQ(link.receiver->priority_counters(3).rx_discards, 0u);
  EXPECT_GT(link.receiver->priority_counters(1).rx_discards, 0u);
  EXPECT_EQ(link.delivered[1] + link.receiver->priority_counters(1).rx_discards, 3000u);
}

} // namespace
} // namespace ornic
