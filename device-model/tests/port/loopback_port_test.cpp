#include <gtest/gtest.h>

#include "common/event_loop.hpp"
#include "port/loopback_port.hpp"
#include "port/port.hpp"
#include "port_test_support.hpp"

namespace ornic::test {
namespace {

TEST(LoopbackPortTest, SentFramesComeBackLaterNotFromInsideSend) {
  EventLoop loop;
  auto port = make_port(loop, "loopback", {});
  FrameSink sink;
  port->set_receiver(sink.receiver());
  EXPECT_TRUE(port->link_up());

  std::vector<Frame> sent;
  for (size_t size : {kMinFrameBytes, size_t{64}, size_t{1514}, kMaxFrameBytes}) {
    sent.push_back(make_frame(size, static_cast<uint8_t>(size)));
    port->send(sent.back());
  }
  EXPECT_TRUE(sink.frames.empty()) << "delivery must go through loop.post";
  ASSERT_TRUE(run_until(loop, [&] { return sink.frames.size() == sent.size(); }));
  EXPECT_EQ(sink.frames, sent);
  const PortCounters c = port->counters();
  EXPECT_EQ(c.tx_frames, sent.size());
  EXPECT_EQ(c.rx_frames, sent.size());
  EXPECT_EQ(c.tx_bytes, c.rx_bytes);
}

TEST(LoopbackPortTest, SenderBufferMayBeReusedRightAfterSend) {
  EventLoop loop;
  auto port = make_port(loop, "loopback", {});
  FrameSink sink;
  port->set_receiver(sink.receiver());
  Frame frame = make_frame(100, 1);
  const Frame original = frame;
  port->send(frame);
  frame.assign(frame.size(), std::byte{0});
  ASSERT_TRUE(run_until(loop, [&] { return sink.frames.size() == 1; }));
  EXPECT_EQ(sink.frames[0], original);
}

TEST(LoopbackPortTest, OversizeAndRuntAreRejected) {
  EventLoop loop;
  auto port = make_port(loop, "loopback", {});
  FrameSink sink;
  port->set_receiver(sink.receiver());
  port->send(make_frame(kMaxFrameBytes + 1, 1));
  port->send(make_frame(kMinFrameBytes - 1, 1));
  run_until_idle(loop);
  EXPECT_TRUE(sink.frames.empty());
  EXPECT_EQ(port->counters().tx_dropped_oversize, 1u);
  EXPECT_EQ(port->counters().tx_dropped_runt, 1u);
}

TEST(LoopbackPortTest, PortDestroyedBeforeDeliveryIsSafe) {
  EventLoop loop;
  bool delivered = false;
  {
    auto port = make_port(loop, "loopback", {});
    port->set_receiver([&](std::span<const std::byte>) { delivered = true; });
    port->send(make_frame(64, 1));
  }
  run_until_idle(loop);
  EXPECT_FALSE(delivered);
}

TEST(LoopbackPortTest, BacklogIsBoundedAndCountedAsWouldBlock) {
  EventLoop loop;
  auto port = make_port(loop, "loopback", {});
  FrameSink sink;
  port->set_receiver(sink.receiver());
  const size_t burst = LoopbackPort::kMaxFramesInFlight + 10;
  for (size_t i = 0; i < burst; ++i)
    port->send(make_frame(64, static_cast<uint8_t>(i)));
  EXPECT_EQ(port->counters().tx_dropped_would_block, 10u);
  ASSERT_TRUE(
      run_until(loop, [&] { return sink.frames.size() == LoopbackPort::kMaxFramesInFlight; }));
  port->send(make_frame(64, 1)); // drained: room again
  ASSERT_TRUE(
      run_until(loop, [&] { return sink.frames.size() == LoopbackPort::kMaxFramesInFlight + 1; }));
}

TEST(LoopbackPortTest, ReceiverMaySendAgainWithoutRecursion) {
  EventLoop loop;
  auto port = make_port(loop, "loopback", {});
  int depth = 0, max_depth = 0, received = 0;
  port->set_receiver([&](std::span<const std::byte> frame) {
    ++depth;
    max_depth = std::max(max_depth, depth);
    if (++received < 5)
      port->send(frame);
    --depth;
  });
  port->send(make_frame(64, 1));
  ASSERT_TRUE(run_until(loop, [&] { return received == 5; }));
  EXPECT_EQ(max_depth, 1);
}

} // namespace
} // namespace ornic::test
