#include <gtest/gtest.h>

#include "common/event_loop.hpp"
#include "port/port.hpp"
#include "port_test_support.hpp"

namespace ornic::test {
namespace {

TEST(NullPortTest, LinkIsDownAndEveryFrameIsDropped) {
  EventLoop loop;
  auto port = make_port(loop, "none", {});
  FrameSink sink;
  port->set_receiver(sink.receiver());
  port->send(make_frame(64, 1));
  port->send(make_frame(1514, 2));
  port->send(make_frame(5, 3));
  port->send(make_frame(kMaxFrameBytes + 1, 4));
  run_until_idle(loop);
  EXPECT_FALSE(port->link_up());
  EXPECT_TRUE(sink.frames.empty());
  const PortCounters c = port->counters();
  EXPECT_EQ(c.tx_dropped_no_peer, 2u);
  EXPECT_EQ(c.tx_dropped_runt, 1u);
  EXPECT_EQ(c.tx_dropped_oversize, 1u);
  EXPECT_EQ(c.tx_frames, 0u);
}

} // namespace
} // namespace ornic::test
