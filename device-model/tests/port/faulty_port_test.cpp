#include <algorithm>
#include <stdexcept>

#include <gtest/gtest.h>

#include "common/event_loop.hpp"
#include "port/faulty_port.hpp"
#include "port/loopback_port.hpp"
#include "port/port.hpp"
#include "port/wire_faults.hpp"
#include "port_test_support.hpp"

namespace ornic::test {
namespace {

// Frames numbered in their payload (bytes 14..17), so order and identity survive.
Frame numbered(uint32_t n) {
  Frame f = make_frame(128, 0);
  for (int i = 0; i < 4; ++i)
    f[kMinFrameBytes + i] = std::byte{static_cast<unsigned char>(n >> (8 * i))};
  return f;
}
uint32_t number_of(const Frame& f) {
  uint32_t n = 0;
  for (int i = 0; i < 4; ++i)
    n |= std::to_integer<uint32_t>(f[kMinFrameBytes + i]) << (8 * i);
  return n;
}

struct FaultRun {
  std::vector<Frame> received;
  WireFaultCounters injected;
};

FaultRun send_through(const WireFaults& faults, uint32_t frames) {
  EventLoop loop;
  auto inner = std::make_unique<LoopbackPort>(loop);
  FaultyPort port(loop, std::move(inner), faults);
  FrameSink sink;
  port.set_receiver(sink.receiver());
  for (uint32_t i = 0; i < frames; ++i) {
    port.send(numbered(i));
    // Let the loopback deliver now and then, as a real wire would, so its bounded
    // queue (1024 frames) never fills.
    if (i % 512 == 511)
      run_until_idle(loop, std::chrono::milliseconds(0));
  }
  // The last frame may be held for reordering: its timer releases it.
  run_until(loop, [&] { return port.tx_backlog() == 0; });
  run_until_idle(loop);
  return {sink.frames, port.fault_counters()};
}

TEST(WireFaultsSpec, ParsesEveryKeyAndPercentSigns) {
  const WireFaults f = parse_wire_faults("loss=1%,reorder=2,dup=0.5%,corrupt=0.1%,seed=42");
  EXPECT_DOUBLE_EQ(f.loss, 0.01);
  EXPECT_DOUBLE_EQ(f.reorder, 0.02);
  EXPECT_DOUBLE_EQ(f.duplicate, 0.005);
  EXPECT_DOUBLE_EQ(f.corrupt, 0.001);
  EXPECT_EQ(f.seed, 42u);
  EXPECT_TRUE(f.any());
  EXPECT_FALSE(parse_wire_faults("seed=3").any());
}

TEST(WireFaultsSpec, RejectsMalformedSpecsWithTheReason) {
  for (const char* bad : {"", "loss", "loss=", "loss=x%", "loss=101%", "loss=-1", "jitter=1%",
                          "seed=-1", "seed=1x", "loss=1%,,dup=1%"}) {
    try {
      parse_wire_faults(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("expected KEY=VALUE"), std::string::npos) << bad;
    }
  }
}

TEST(FaultyPort, NoFaultsPassesEveryFrameInOrder) {
  const FaultRun run = send_through(WireFaults{0, 0, 0, 0, 1}, 500);
  ASSERT_EQ(run.received.size(), 500u);
  for (uint32_t i = 0; i < 500; ++i)
    EXPECT_EQ(number_of(run.received[i]), i);
}

TEST(FaultyPort, LossDropsAboutTheRateAndNothingElse) {
  WireFaults f;
  f.loss = 0.05;
  f.seed = 7;
  const FaultRun run = send_through(f, 10000);
  EXPECT_EQ(run.received.size() + run.injected.lost, 10000u);
  // 500 expected; a binomial's 6 sigma is about 130.
  EXPECT_GT(run.injected.lost, 370u);
  EXPECT_LT(run.injected.lost, 630u);
  EXPECT_TRUE(
      std::is_sorted(run.received.begin(), run.received.end(),
                     [](const Frame& a, const Frame& b) { return number_of(a) < number_of(b); }));
}

TEST(FaultyPort, DuplicatesAreSentTwiceBackToBack) {
  WireFaults f;
  f.duplicate = 0.05;
  const FaultRun run = send_through(f, 10000);
  EXPECT_EQ(run.received.size(), 10000u + run.injected.duplicated);
  EXPECT_GT(run.injected.duplicated, 370u);
  EXPECT_LT(run.injected.duplicated, 630u);
}

TEST(FaultyPort, ReorderSwapsAFrameWithItsSuccessorAndLosesNone) {
  WireFaults f;
  f.reorder = 0.05;
  const FaultRun run = send_through(f, 10000);
  ASSERT_EQ(run.received.size(), 10000u);
  std::vector<uint32_t> order;
  for (const Frame& fr : run.received)
    order.push_back(number_of(fr));
  uint32_t swapped = 0;
  for (size_t i = 0; i + 1 < order.size(); ++i)
    if (order[i] > order[i + 1])
      ++swapped;
  // A frame held when the test lets the loop run may leave alone, on its timer.
  EXPECT_LE(swapped, run.injected.reordered);
  EXPECT_GE(swapped + 20, run.injected.reordered);
  EXPECT_GT(run.injected.reordered, 370u);
  std::sort(order.begin(), order.end());
  for (uint32_t i = 0; i < 10000; ++i)
    ASSERT_EQ(order[i], i);
}

TEST(FaultyPort, AHeldFrameLeavesOnItsOwnWhenNothingFollows) {
  WireFaults f;
  f.reorder = 1.0;
  const FaultRun run = send_through(f, 1);
  ASSERT_EQ(run.received.size(), 1u);
  EXPECT_EQ(run.injected.reordered, 1u);
}

TEST(FaultyPort, CorruptionFlipsOneBitPastTheEthernetHeader) {
  WireFaults f;
  f.corrupt = 1.0;
  const FaultRun run = send_through(f, 200);
  ASSERT_EQ(run.received.size(), 200u);
  EXPECT_EQ(run.injected.corrupted, 200u);
  for (const Frame& got : run.received) {
    const Frame want = make_frame(128, 0);
    uint32_t flipped_bits = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      const auto diff = std::to_integer<unsigned>(got[i] ^ want[i]);
      if (i < kMinFrameBytes)
        EXPECT_EQ(diff, 0u) << "header byte " << i;
      else if (i >= kMinFrameBytes + 4) // past the frame number
        flipped_bits += static_cast<uint32_t>(__builtin_popcount(diff));
    }
    EXPECT_LE(flipped_bits, 1u);
  }
}

TEST(FaultyPort, TheSameSeedGivesTheSameRun) {
  WireFaults f{0.02, 0.02, 0.02, 0.02, 99};
  const FaultRun a = send_through(f, 3000);
  const FaultRun b = send_through(f, 3000);
  EXPECT_EQ(a.received, b.received);
  f.seed = 100;
  const FaultRun c = send_through(f, 3000);
  EXPECT_NE(a.received, c.received);
}

TEST(FaultyPort, MakePortWrapsOnlyWhenAFaultIsAsked) {
  EventLoop loop;
  EXPECT_EQ(dynamic_cast<FaultyPort*>(make_port(loop, "loopback", {}, {}).get()), nullptr);
  WireFaults f;
  f.loss = 0.5;
  EXPECT_NE(dynamic_cast<FaultyPort*>(make_port(loop, "loopback", {}, f).get()), nullptr);
}

} // namespace
} // namespace ornic::test
