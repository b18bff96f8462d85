// Two ports on one EventLoop linked over real AF_UNIX datagram sockets.
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <system_error>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "common/unique_fd.hpp"
#include "port/port.hpp"
#include "port/unix_dgram_port.hpp"
#include "port_test_support.hpp"

namespace ornic::test {
namespace {

std::string unix_spec(const std::string& local, const std::string& peer) {
  return "unix:" + local + "," + peer;
}

sockaddr_un address_of(const std::string& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, path.c_str(), sizeof(address.sun_path) - 1);
  return address;
}

// A third party on the link: an unbound datagram socket that sends raw bytes to a path.
void send_raw_datagram(const std::string& to, std::span<const std::byte> bytes) {
  UniqueFd fd(::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  ASSERT_TRUE(fd);
  const sockaddr_un address = address_of(to);
  ASSERT_EQ(::sendto(fd.get(), bytes.data(), bytes.size(), 0,
                     reinterpret_cast<const sockaddr*>(&address), sizeof(address)),
            static_cast<ssize_t>(bytes.size()))
      << std::strerror(errno);
}

class UnixDgramPortTest : public ::testing::Test {
protected:
  // The kernel doubles it and has a floor; small enough that a burst overflows it whatever
  // net.core.wmem_max says.
  static constexpr int kSmallSendBuffer = 32 * 1024;

  std::unique_ptr<Port> make_a() { return make_port(loop, unix_spec(path_a, path_b), {}); }
  std::unique_ptr<Port> make_b() { return make_port(loop, unix_spec(path_b, path_a), {}); }

  EventLoop loop;
  TempDir dir;
  std::string path_a = dir.file("a.sock");
  std::string path_b = dir.file("b.sock");
};

TEST_F(UnixDgramPortTest, FramesOfSeveralSizesTravelBothWaysByteExact) {
  auto a = make_a();
  auto b = make_b();
  FrameSink at_a, at_b;
  a->set_receiver(at_a.receiver());
  b->set_receiver(at_b.receiver());
  ASSERT_TRUE(run_until(loop, [&] { return a->link_up() && b->link_up(); }));

  const std::vector<size_t> sizes = {kMinFrameBytes, 60, 64, 1514, 4096, 9018, kMaxFrameBytes};
  std::vector<Frame> a_to_b, b_to_a;
  for (size_t i = 0; i < sizes.size(); ++i) {
    a_to_b.push_back(make_frame(sizes[i], static_cast<uint8_t>(i)));
    b_to_a.push_back(make_frame(sizes[i], static_cast<uint8_t>(100 + i)));
  }
  // Interleave sending with running the loop: Linux queues only ~10 datagrams per socket.
  for (size_t i = 0; i < sizes.size(); ++i) {
    a->send(a_to_b[i]);
    b->send(b_to_a[i]);
    ASSERT_TRUE(run_until(loop, [&] { return at_b.frames.size() == i + 1; }));
    ASSERT_TRUE(run_until(loop, [&] { return at_a.frames.size() == i + 1; }));
  }
  EXPECT_EQ(at_b.frames, a_to_b);
  EXPECT_EQ(at_a.frames, b_to_a);

  size_t total = 0;
  for (size_t size : sizes)
    total += size;
  for (const auto& port : {a.get(), b.get()}) {
    const PortCounters c = port->counters();
    EXPECT_EQ(c.tx_frames, sizes.size());
    EXPECT_EQ(c.tx_bytes, total);
    EXPECT_EQ(c.rx_frames, sizes.size());
    EXPECT_EQ(c.rx_bytes, total);
    EXPECT_EQ(c.tx_dropped_no_peer + c.tx_dropped_would_block + c.tx_dropped_error, 0u);
  }
}

TEST_F(UnixDgramPortTest, AbsentPeerDropsAndCountsWithoutError) {
  auto a = make_a();
  EXPECT_FALSE(a->link_up());
  const Frame frame = make_frame(100, 1);
  for (int i = 0; i < 5; ++i)
    EXPECT_NO_THROW(a->send(frame));
  run_until_idle(loop);
  const PortCounters c = a->counters();
  EXPECT_EQ(c.tx_dropped_no_peer, 5u);
  EXPECT_EQ(c.tx_frames, 0u);
  EXPECT_FALSE(a->link_up());
}

TEST_F(UnixDgramPortTest, PeerStartingLaterBringsTheLinkUp) {
  auto a = make_a();
  a->send(make_frame(64, 1));
  EXPECT_FALSE(a->link_up());

  auto b = make_b();
  FrameSink at_b;
  b->set_receiver(at_b.receiver());
  EXPECT_TRUE(b->link_up()) << "a is already bound, so b sees it at once";
  // a notices through its periodic probe, without having to send anything.
  ASSERT_TRUE(run_until(loop, [&] { return a->link_up(); }));

  const Frame frame = make_frame(200, 2);
  a->send(frame);
  ASSERT_TRUE(run_until(loop, [&] { return at_b.frames.size() == 1; }));
  EXPECT_EQ(at_b.frames[0], frame);
  EXPECT_EQ(a->counters().tx_dropped_no_peer, 1u);
  EXPECT_EQ(a->counters().tx_frames, 1u);
}

TEST_F(UnixDgramPortTest, PeerRestartTakesTheLinkDownAndUpAgain) {
  auto a = make_a();
  auto b = make_b();
  ASSERT_TRUE(run_until(loop, [&] { return a->link_up(); }));

  b.reset();
  EXPECT_FALSE(std::filesystem::exists(path_b)) << "a destroyed port removes its socket file";
  a->send(make_frame(64, 1));
  EXPECT_FALSE(a->link_up()) << "the failed send takes the link down at once";
  EXPECT_EQ(a->counters().tx_dropped_no_peer, 1u);

  b = make_b();
  FrameSink at_b;
  b->set_receiver(at_b.receiver());
  ASSERT_TRUE(run_until(loop, [&] { return a->link_up(); }));
  const Frame frame = make_frame(300, 3);
  a->send(frame);
  ASSERT_TRUE(run_until(loop, [&] { return at_b.frames.size() == 1; }));
  EXPECT_EQ(at_b.frames[0], frame);
}

TEST_F(UnixDgramPortTest, IdleLinkGoesDownWhenThePeerDisappears) {
  auto a = make_a();
  auto b = make_b();
  ASSERT_TRUE(run_until(loop, [&] { return a->link_up(); }));
  b.reset();
  EXPECT_TRUE(run_until(loop, [&] { return !a->link_up(); }));
}

TEST_F(UnixDgramPortTest, LinkListenerHearsEveryChangeFromTheLoop) {
  auto a = make_a();
  std::vector<bool> changes;
  bool inside_send = false;
  a->set_link_listener([&](bool up) {
    EXPECT_FALSE(inside_send) << "notified from inside send()";
    changes.push_back(up);
  });

  auto b = make_b();
  ASSERT_TRUE(run_until(loop, [&] { return changes.size() == 1; }));
  EXPECT_EQ(changes, std::vector<bool>{true});

  b.reset();
  inside_send = true;
  a->send(make_frame(64, 1)); // finds the peer gone: the link goes down right here
  inside_send = false;
  EXPECT_EQ(changes.size(), 1u);
  ASSERT_TRUE(run_until(loop, [&] { return changes.size() == 2; }));
  EXPECT_EQ(changes, (std::vector<bool>{true, false}));

  a->set_link_listener(nullptr);
  b = make_b();
  ASSERT_TRUE(run_until(loop, [&] { return a->link_up(); }));
  run_until_idle(loop);
  EXPECT_EQ(changes.size(), 2u) << "a cleared listener is not called";
}

TEST_F(UnixDgramPortTest, OversizeAndRuntFramesAreRejectedOnSend) {
  auto a = make_a();
  auto b = make_b();
  FrameSink at_b;
  b->set_receiver(at_b.receiver());
  a->send(make_frame(kMaxFrameBytes + 1, 1));
  a->send(make_frame(65536, 1));
  a->send(make_frame(kMinFrameBytes - 1, 1));
  a->send(make_frame(3, 1));
  a->send({});
  run_until_idle(loop);
  const PortCounters c = a->counters();
  EXPECT_EQ(c.tx_dropped_oversize, 2u);
  EXPECT_EQ(c.tx_dropped_runt, 3u);
  EXPECT_EQ(c.tx_frames, 0u);
  EXPECT_TRUE(at_b.frames.empty());
}

TEST_F(UnixDgramPortTest, GarbageDatagramsFromAThirdSocketAreDroppedAndCounted) {
  auto a = make_a();
  FrameSink at_a;
  a->set_receiver(at_a.receiver());
  const std::byte garbage[3] = {std::byte{'h'}, std::byte{'i'}, std::byte{'!'}};
  send_raw_datagram(path_a, garbage);
  send_raw_datagram(path_a, {});
  send_raw_datagram(path_a, make_frame(kMinFrameBytes - 1, 9));
  send_raw_datagram(path_a, make_frame(kMaxFrameBytes + 1, 9));
  send_raw_datagram(path_a, make_frame(60000, 9));
  const Frame good = make_frame(64, 9);
  send_raw_datagram(path_a, good); // a real frame from a stranger is still a frame

  ASSERT_TRUE(run_until(loop, [&] { return at_a.frames.size() == 1; }));
  run_until_idle(loop);
  EXPECT_EQ(at_a.frames, std::vector<Frame>{good});
  const PortCounters c = a->counters();
  EXPECT_EQ(c.rx_dropped_runt, 3u);
  EXPECT_EQ(c.rx_dropped_oversize, 2u);
  EXPECT_EQ(c.rx_frames, 1u);
  EXPECT_EQ(c.rx_bytes, 64u);
}

TEST_F(UnixDgramPortTest, FramesBeforeSetReceiverAreCounted) {
  auto a = make_a();
  auto b = make_b();
  a->send(make_frame(64, 1));
  EXPECT_TRUE(run_until(loop, [&] { return b->counters().rx_dropped_no_receiver == 1; }));
}

TEST_F(UnixDgramPortTest, ConnectedPairIsNotLimitedByTheTenDatagramQueue) {
  auto a = make_a();
  auto b = make_b();
  FrameSink at_b;
  b->set_receiver(at_b.receiver());
  ASSERT_TRUE(run_until(loop, [&] { return a->link_up() && b->link_up(); }));
  // Without running the loop b never reads. An unconnected sender would meet the receiver's
  // queue limit (net.unix.max_dgram_qlen, 10) here; a connected pair only its send buffer.
  constexpr uint64_t kBurst = 50;
  for (uint64_t i = 0; i < kBurst; ++i)
    a->send(make_frame(64, static_cast<uint8_t>(i)));
  const PortCounters c = a->counters();
  EXPECT_EQ(c.tx_frames, kBurst);
  EXPECT_EQ(c.tx_backpressured, 0u);
  ASSERT_TRUE(run_until(loop, [&] { return at_b.frames.size() == kBurst; }));
  for (uint64_t i = 0; i < kBurst; ++i)
    EXPECT_EQ(at_b.frames[i], make_frame(64, static_cast<uint8_t>(i))) << i;
}

TEST_F(UnixDgramPortTest, FullSendBufferIsBackPressuredAndDrainedOnEpollout) {
  auto a = std::make_unique<UnixDgramPort>(loop, path_a, path_b, kSmallSendBuffer);
  auto b = std::make_unique<UnixDgramPort>(loop, path_b, path_a, kSmallSendBuffer);
  FrameSink at_b;
  b->set_receiver(at_b.receiver());
  ASSERT_TRUE(run_until(loop, [&] { return a->link_up() && b->link_up(); }));
  // Far more than a's send buffer holds: the rest waits in a's own queue until the socket
  // reports EPOLLOUT (there is no retry timer), and arrives in order.
  constexpr uint64_t kBurst = 200;
  for (uint64_t i = 0; i < kBurst; ++i)
    a->send(make_frame(kMaxFrameBytes, static_cast<uint8_t>(i)));
  PortCounters c = a->counters();
  EXPECT_GT(c.tx_backpressured, 0u);
  EXPECT_EQ(c.tx_dropped_would_block, 0u);
  EXPECT_EQ(a->tx_backlog(), c.tx_backpressured);
  EXPECT_TRUE(a->link_up()) << "a full buffer is a live peer";
  ASSERT_TRUE(run_until(loop, [&] { return at_b.frames.size() == kBurst; }));
  for (uint64_t i = 0; i < kBurst; ++i)
    EXPECT_EQ(at_b.frames[i], make_frame(kMaxFrameBytes, static_cast<uint8_t>(i))) << i;
  c = a->counters();
  EXPECT_EQ(c.tx_frames, kBurst);
  EXPECT_EQ(a->tx_backlog(), 0u);
  // The queue is empty: the port no longer watches EPOLLOUT, so an idle loop stays idle.
  EXPECT_LT(busy_iterations(loop, std::chrono::milliseconds(300)), 10);
}

TEST_F(UnixDgramPortTest, BeyondItsOwnQueueThePortDropsAsWouldBlock) {
  auto a = std::make_unique<UnixDgramPort>(loop, path_a, path_b, kSmallSendBuffer);
  auto b = make_b();
  FrameSink at_b;
  b->set_receiver(at_b.receiver());
  ASSERT_TRUE(run_until(loop, [&] { return a->link_up(); }));
  constexpr uint64_t kBurst = UnixDgramPort::kMaxQueuedFrames + 300;
  for (uint64_t i = 0; i < kBurst; ++i)
    a->send(make_frame(1024, static_cast<uint8_t>(i)));
  const PortCounters c = a->counters();
  EXPECT_GT(c.tx_dropped_would_block, 0u);
  ASSERT_TRUE(run_until(
      loop, [&] { return at_b.frames.size() == kBurst - a->counters().tx_dropped_would_block; }));
}

TEST_F(UnixDgramPortTest, PeerThatDoesNotConnectBackIsDrainedOnEpollout) {
  // QEMU's -netdev dgram binds its socket and uses sendto: the receiver's 10-datagram queue
  // limit applies to what we send it, and the kernel wakes us when the queue has room.
  UniqueFd qemu(::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  const sockaddr_un qemu_address = address_of(path_b);
  ASSERT_EQ(
      ::bind(qemu.get(), reinterpret_cast<const sockaddr*>(&qemu_address), sizeof(qemu_address)),
      0);
  auto a = make_a();
  FrameSink at_a;
  a->set_receiver(at_a.receiver());
  ASSERT_TRUE(a->link_up());
  constexpr uint64_t kBurst = 100;
  for (uint64_t i = 0; i < kBurst; ++i)
    a->send(make_frame(100, static_cast<uint8_t>(i)));
  EXPECT_GT(a->counters().tx_backpressured, 0u);
  std::vector<Frame> received;
  std::vector<std::byte> buffer(kMaxFrameBytes);
  ASSERT_TRUE(run_until(loop, [&] {
    ssize_t n;
    while ((n = ::recv(qemu.get(), buffer.data(), buffer.size(), MSG_DONTWAIT)) > 0)
      received.emplace_back(buffer.begin(), buffer.begin() + n);
    return received.size() == kBurst;
  }));
  for (uint64_t i = 0; i < kBurst; ++i)
    EXPECT_EQ(received[i], make_frame(100, static_cast<uint8_t>(i))) << i;
  // And it may send to us with plain sendto.
  const Frame reply = make_frame(60, 7);
  const sockaddr_un to_a = address_of(path_a);
  ASSERT_EQ(::sendto(qemu.get(), reply.data(), reply.size(), 0,
                     reinterpret_cast<const sockaddr*>(&to_a), sizeof(to_a)),
            static_cast<ssize_t>(reply.size()));
  ASSERT_TRUE(run_until(loop, [&] { return at_a.frames.size() == 1; }));
  EXPECT_EQ(at_a.frames[0], reply);
}

TEST_F(UnixDgramPortTest, ConnectedPortHearsOnlyItsPeer) {
  auto a = make_a();
  auto b = make_b();
  FrameSink at_a;
  a->set_receiver(at_a.receiver());
  ASSERT_TRUE(run_until(loop, [&] { return a->link_up() && b->link_up(); }));
  UniqueFd stranger(::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  const Frame forged = make_frame(64, 66);
  const sockaddr_un to_a = address_of(path_a);
  EXPECT_EQ(::sendto(stranger.get(), forged.data(), forged.size(), 0,
                     reinterpret_cast<const sockaddr*>(&to_a), sizeof(to_a)),
            -1);
  EXPECT_EQ(errno, EPERM);
  const Frame real = make_frame(64, 1);
  b->send(real);
  ASSERT_TRUE(run_until(loop, [&] { return at_a.frames.size() == 1; }));
  run_until_idle(loop);
  EXPECT_EQ(at_a.frames, std::vector<Frame>{real});
}

TEST_F(UnixDgramPortTest, AbsentPeerNeitherCrashesNorSpins) {
  auto a = make_a();
  for (int i = 0; i < 100; ++i)
    a->send(make_frame(64, 1));
  EXPECT_EQ(a->counters().tx_dropped_no_peer, 100u);
  EXPECT_EQ(a->tx_backlog(), 0u);
  // Only the 100 ms probe wakes the loop.
  EXPECT_LT(busy_iterations(loop, std::chrono::milliseconds(500)), 15);
  EXPECT_FALSE(a->link_up());
}

TEST_F(UnixDgramPortTest, QuickPeerRestartWithoutTrafficReconnectsBothEnds) {
  auto a = make_a();
  auto b = make_b();
  ASSERT_TRUE(run_until(loop, [&] { return a->link_up() && b->link_up(); }));
  // A new b at once: a is still connected to the old socket, so b cannot connect to a
  // until a's probe has moved over to the new b.
  b.reset();
  b = make_b();
  FrameSink at_a, at_b;
  a->set_receiver(at_a.receiver());
  b->set_receiver(at_b.receiver());
  ASSERT_TRUE(run_until(loop, [&] { return a->link_up() && b->link_up(); }));
  const Frame ab = make_frame(80, 1), ba = make_frame(90, 2);
  ASSERT_TRUE(run_until(loop, [&] {
    // Until both ends have re-probed, a send may still be refused: repeat until it lands.
    if (at_b.frames.empty())
      a->send(ab);
    if (at_a.frames.empty())
      b->send(ba);
    return !at_a.frames.empty() && !at_b.frames.empty();
  }));
  EXPECT_EQ(at_b.frames[0], ab);
  EXPECT_EQ(at_a.frames[0], ba);
}

TEST_F(UnixDgramPortTest, StaleSocketFileIsReplaced) {
  {
    UniqueFd dead(::socket(AF_UNIX, SOCK_DGRAM, 0));
    const sockaddr_un address = address_of(path_a);
    ASSERT_EQ(::bind(dead.get(), reinterpret_cast<const sockaddr*>(&address), sizeof(address)), 0);
  } // closed: the file stays behind with nobody bound to it
  ASSERT_TRUE(std::filesystem::exists(path_a));
  auto a = make_a();
  auto b = make_b();
  FrameSink at_a;
  a->set_receiver(at_a.receiver());
  b->send(make_frame(64, 1));
  EXPECT_TRUE(run_until(loop, [&] { return at_a.frames.size() == 1; }));
}

TEST_F(UnixDgramPortTest, LocalPathOfALivePortIsNotStolen) {
  auto a = make_a();
  EXPECT_THROW(make_port(loop, unix_spec(path_a, dir.file("c.sock")), {}), std::runtime_error);
  EXPECT_TRUE(std::filesystem::exists(path_a));
}

TEST_F(UnixDgramPortTest, LocalPathThatIsARegularFileIsNotReplaced) {
  std::ofstream(path_a) << "precious";
  EXPECT_THROW(make_a(), std::runtime_error);
  std::ifstream in(path_a);
  std::string content;
  in >> content;
  EXPECT_EQ(content, "precious");
}

TEST_F(UnixDgramPortTest, MissingDirectoryThrowsSystemError) {
  EXPECT_THROW(make_port(loop, unix_spec(dir.file("no/such/dir.sock"), path_b), {}),
               std::system_error);
}

TEST_F(UnixDgramPortTest, DestructionRemovesTheSocketFile) {
  auto a = make_a();
  EXPECT_TRUE(std::filesystem::exists(path_a));
  a.reset();
  EXPECT_FALSE(std::filesystem::exists(path_a));
  // The loop holds nothing of the destroyed port: running it must be harmless.
  run_until_idle(loop);
}

TEST_F(UnixDgramPortTest, ReceiverMaySendFromInsideTheCallback) {
  auto a = make_a();
  auto b = make_b();
  FrameSink at_a;
  a->set_receiver(at_a.receiver());
  b->set_receiver([&](std::span<const std::byte> frame) { b->send(frame); }); // echo
  const Frame frame = make_frame(128, 4);
  a->send(frame);
  ASSERT_TRUE(run_until(loop, [&] { return at_a.frames.size() == 1; }));
  EXPECT_EQ(at_a.frames[0], frame);
}

} // namespace
} // namespace ornic::test
