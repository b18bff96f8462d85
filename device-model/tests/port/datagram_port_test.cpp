// DatagramPort's own rules, on a socketpair with a minimal backend: descriptors that report
// a hang-up or an error condition are closed instead of waking the loop forever.
#include <sys/socket.h>

#include <gtest/gtest.h>

#include "common/unique_fd.hpp"
#include "port/datagram_port.hpp"
#include "port_test_support.hpp"

namespace ornic::test {
namespace {

class SocketPairPort final : public DatagramPort {
public:
  SocketPairPort(EventLoop& loop, UniqueFd fd) : DatagramPort(loop, "test", true) {
    attach(std::move(fd));
  }
  int descriptor() const { return fd(); }
  int detached_calls = 0;

private:
  Verdict classify(int) override { return Verdict::error; }
  void detached() override { ++detached_calls; }
};

struct Pair {
  Pair() {
    int fds[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds), 0);
    ours = UniqueFd(fds[0]);
    theirs = UniqueFd(fds[1]);
  }
  UniqueFd ours, theirs;
};

TEST(DatagramPortTest, HangUpClosesTheDescriptorWithoutSpinning) {
  EventLoop loop;
  Pair pair;
  const int ours = pair.ours.get();
  SocketPairPort port(loop, std::move(pair.ours));
  // Both directions shut: epoll reports EPOLLHUP (level-triggered, for ever) on our end.
  ASSERT_EQ(::shutdown(ours, SHUT_RDWR), 0);
  ASSERT_TRUE(run_until(loop, [&] { return port.descriptor() < 0; }));
  EXPECT_FALSE(port.link_up());
  EXPECT_EQ(port.detached_calls, 1);
  EXPECT_LT(busy_iterations(loop, std::chrono::milliseconds(200)), 5);
  // Sending afterwards is harmless and counted.
  port.send(make_frame(64, 1));
  EXPECT_EQ(port.counters().tx_dropped_no_peer, 1u);
}

TEST(DatagramPortTest, QueuedFramesAreDroppedAndCountedWhenTheDescriptorGoes) {
  EventLoop loop;
  Pair pair;
  const int ours = pair.ours.get();
  // A small send buffer and a peer that never reads: the burst waits in the port's queue.
  const int small = 4096;
  ASSERT_EQ(::setsockopt(ours, SOL_SOCKET, SO_SNDBUF, &small, sizeof(small)), 0);
  SocketPairPort port(loop, std::move(pair.ours));
  for (int i = 0; i < 50; ++i)
    port.send(make_frame(1000, static_cast<uint8_t>(i)));
  const size_t queued = port.tx_backlog();
  ASSERT_GT(queued, 0u);
  ASSERT_EQ(::shutdown(ours, SHUT_RDWR), 0);
  ASSERT_TRUE(run_until(loop, [&] { return port.descriptor() < 0; }));
  EXPECT_EQ(port.tx_backlog(), 0u);
  EXPECT_EQ(port.counters().tx_dropped_no_peer, queued);
  EXPECT_EQ(port.counters().tx_frames + queued, 50u);
}

} // namespace
} // namespace ornic::test
