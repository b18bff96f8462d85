// Two shm: ports linked over shared memory: on one EventLoop (both start orders, a peer
// that goes away and comes back, a full ring, a peer that corrupts the shared memory or
// sends a bad hello) and across a fork (many frames, data checked, a peer killed and
// restarted).
#include <atomic>
#include <cstring>
#include <optional>

#include <signal.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "common/unique_fd.hpp"
#include "port/port.hpp"
#include "port/shm_port.hpp"
#include "port_test_support.hpp"

namespace ornic::test {
namespace {

std::atomic_ref<uint32_t> field(std::byte* at) {
  return std::atomic_ref<uint32_t>(*reinterpret_cast<uint32_t*>(at));
}

// Records link notifications.
struct LinkLog {
  std::vector<bool> changes;
  Port::LinkListener listener() {
    return [this](bool up) { changes.push_back(up); };
  }
};

class ShmPortTest : public ::testing::Test {
protected:
  // a.sock sorts first: a dials, b listens.
  std::unique_ptr<ShmPort> make_a() { return std::make_unique<ShmPort>(loop, path_a, path_b); }
  std::unique_ptr<ShmPort> make_b() { return std::make_unique<ShmPort>(loop, path_b, path_a); }

  bool both_up(const Port& a, const Port& b) {
    return run_until(loop, [&] { return a.link_up() && b.link_up(); });
  }

  // Sends frames each way and checks they arrive byte for byte.
  void exchange(Port& a, Port& b, uint8_t seed) {
    FrameSink at_a, at_b;
    a.set_receiver(at_a.receiver());
    b.set_receiver(at_b.receiver());
    std::vector<Frame> a_to_b, b_to_a;
    const std::vector<size_t> sizes = {kMinFrameBytes, 60, 1514, 4096, 9018, kMaxFrameBytes};
    for (size_t i = 0; i < sizes.size(); ++i) {
      a_to_b.push_back(make_frame(sizes[i], static_cast<uint8_t>(seed + i)));
      b_to_a.push_back(make_frame(sizes[i], static_cast<uint8_t>(seed + 100 + i)));
      a.send(a_to_b.back());
      b.send(b_to_a.back());
    }
    ASSERT_TRUE(run_until(loop, [&] {
      return at_a.frames.size() == sizes.size() && at_b.frames.size() == sizes.size();
    }));
    EXPECT_EQ(at_b.frames, a_to_b);
    EXPECT_EQ(at_a.frames, b_to_a);
  }

  EventLoop loop;
  TempDir dir;
  std::string path_a = dir.file("a.sock");
  std::string path_b = dir.file("b.sock");
};

TEST_F(ShmPortTest, TheRoleFollowsFromThePathsAndTheSpecMakesAnShmPort) {
  auto a = make_a();
  auto b = make_b();
  EXPECT_TRUE(a->dialer());
  EXPECT_FALSE(b->dialer());
  auto c = make_port(loop, "shm:" + dir.file("c.sock") + "," + dir.file("d.sock"));
  EXPECT_NE(dynamic_cast<ShmPort*>(c.get()), nullptr);
  EXPECT_FALSE(c->link_up());
}

TEST_F(ShmPortTest, ListenerFirstThenDialer) {
  auto b = make_b();
  run_until_idle(loop);
  EXPECT_FALSE(b->link_up());
  auto a = make_a();
  ASSERT_TRUE(both_up(*a, *b));
  exchange(*a, *b, 1);
}

TEST_F(ShmPortTest, DialerFirstThenListener) {
  auto a = make_a();
  run_until(loop, [] { return false; }, std::chrono::milliseconds(250)); // a few failed dials
  EXPECT_FALSE(a->link_up());
  auto b = make_b();
  ASSERT_TRUE(both_up(*a, *b));
  exchange(*a, *b, 2);
}

TEST_F(ShmPortTest, AnIdleLinkDoesNotWakeTheLoop) {
  auto a = make_a();
  auto b = make_b();
  ASSERT_TRUE(both_up(*a, *b));
  run_until_idle(loop);
  // Only the two 100 ms retry timers.
  EXPECT_LE(busy_iterations(loop, std::chrono::milliseconds(500)), 14);
}

// Whichever end dies, the other sees the link go down, drops what it sends, and the link
// comes back with a restarted peer.
class ShmPortRestartTest : public ShmPortTest, public ::testing::WithParamInterface<bool> {};

TEST_P(ShmPortRestartTest, APeerThatGoesAwayAndComesBackTakesTheLinkDownAndUp) {
  const bool dialer_dies = GetParam();
  auto a = make_a();
  auto b = make_b();
  ASSERT_TRUE(both_up(*a, *b));
  std::unique_ptr<ShmPort>& dying = dialer_dies ? a : b;
  std::unique_ptr<ShmPort>& survivor = dialer_dies ? b : a;
  LinkLog log;
  survivor->set_link_listener(log.listener());
  const uint64_t sessions = survivor->sessions();

  dying.reset();
  ASSERT_TRUE(run_until(loop, [&] { return !survivor->link_up() && !log.changes.empty(); }));
  EXPECT_EQ(log.changes, std::vector<bool>{false});
  const uint64_t dropped = survivor->counters().tx_dropped_no_peer;
  survivor->send(make_frame(60, 1));
  EXPECT_EQ(survivor->counters().tx_dropped_no_peer, dropped + 1);
  run_until(loop, [] { return false; }, std::chrono::milliseconds(250)); // retries fail
  EXPECT_FALSE(survivor->link_up());

  dying = dialer_dies ? make_a() : make_b();
  ASSERT_TRUE(both_up(*a, *b));
  ASSERT_TRUE(run_until(loop, [&] { return log.changes.size() == 2; }));
  EXPECT_EQ(log.changes, (std::vector<bool>{false, true}));
  EXPECT_EQ(survivor->sessions(), sessions + 1);
  exchange(*a, *b, 3);
}

INSTANTIATE_TEST_SUITE_P(WhichEndDies, ShmPortRestartTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "Dialer" : "Listener"; });

TEST_F(ShmPortTest, AFullRingQueuesInOrderThenDropsBeyondTheQueue) {
  auto a = make_a();
  auto b = make_b();
  ASSERT_TRUE(both_up(*a, *b));
  FrameSink at_b;
  b->set_receiver(at_b.receiver());
  // Without running the loop b never consumes: the ring fills, then our queue.
  const size_t total = shm::kSlotCount + ShmPort::kMaxQueuedFrames + 10;
  for (size_t i = 0; i < total; ++i) {
    Frame frame = make_frame(64, 0);
    std::memcpy(frame.data() + 14, &i, sizeof(i));
    a->send(frame);
  }
  EXPECT_EQ(a->tx_backlog(), ShmPort::kMaxQueuedFrames);
  EXPECT_EQ(a->counters().tx_backpressured, ShmPort::kMaxQueuedFrames);
  EXPECT_EQ(a->counters().tx_dropped_would_block, 10u);
  const size_t delivered = total - 10;
  ASSERT_TRUE(run_until(loop, [&] { return at_b.frames.size() == delivered; }));
  EXPECT_EQ(a->tx_backlog(), 0u);
  EXPECT_EQ(a->counters().tx_frames, delivered);
  for (size_t i = 0; i < delivered; ++i) {
    size_t n;
    std::memcpy(&n, at_b.frames[i].data() + 14, sizeof(n));
    ASSERT_EQ(n, i);
  }
}

// The dialer's ring 1 is what it consumes, ring 0 what it produces.
TEST_F(ShmPortTest, ACorruptHeadTakesTheLinkDownAndANewSessionBringsItBack) {
  auto a = make_a();
  auto b = make_b();
  ASSERT_TRUE(both_up(*a, *b));
  LinkLog log;
  a->set_link_listener(log.listener());
  std::byte* ring = a->shared_memory_for_test().data() + shm::kRingOffset[1];
  b->send(make_frame(60, 9)); // kicks a (asleep), which will find the head impossible
  field(ring + shm::kHeadOffset).store(shm::kSlotCount + 5);
  ASSERT_TRUE(run_until(loop, [&] { return !log.changes.empty(); }));
  EXPECT_FALSE(log.changes[0]);
  ASSERT_TRUE(both_up(*a, *b));
  EXPECT_EQ(a->sessions(), 2u);
  exchange(*a, *b, 4);
}

TEST_F(ShmPortTest, ACorruptTailTakesTheLinkDownAndANewSessionBringsItBack) {
  auto a = make_a();
  auto b = make_b();
  ASSERT_TRUE(both_up(*a, *b));
  std::byte* ring = a->shared_memory_for_test().data() + shm::kRingOffset[0];
  field(ring + shm::kTailOffset).store(77); // beyond a's head of 0
  a->send(make_frame(60, 1));
  EXPECT_FALSE(a->link_up());
  EXPECT_EQ(a->counters().tx_dropped_error, 1u);
  ASSERT_TRUE(both_up(*a, *b));
  exchange(*a, *b, 5);
}

TEST_F(ShmPortTest, ACorruptLengthDropsThatFrameAndTheLinkStaysUp) {
  auto a = make_a();
  auto b = make_b();
  ASSERT_TRUE(both_up(*a, *b));
  FrameSink at_b;
  b->set_receiver(at_b.receiver());
  std::byte* ring = a->shared_memory_for_test().data() + shm::kRingOffset[0];
  for (const uint32_t length : {0u, 13u, 9217u, 0xffffffffu}) {
    a->send(make_frame(60, 1)); // published, not yet consumed: b has not run
    a->send(make_frame(70, 2));
    const uint32_t head = field(ring + shm::kHeadOffset).load();
    std::byte* slot = ring + shm::kControlBytes + ((head - 2) % shm::kSlotCount) * shm::kSlotBytes;
    field(slot).store(length);
    const size_t before = at_b.frames.size();
    ASSERT_TRUE(run_until(loop, [&] { return at_b.frames.size() == before + 1; }));
    run_until_idle(loop);
    EXPECT_EQ(at_b.frames.back(), make_frame(70, 2)) << length;
  }
  EXPECT_EQ(b->counters().rx_dropped_runt, 2u);
  EXPECT_EQ(b->counters().rx_dropped_oversize, 2u);
  EXPECT_TRUE(a->link_up());
  EXPECT_TRUE(b->link_up());
  EXPECT_EQ(a->sessions(), 1u);
}

TEST_F(ShmPortTest, GarbageFlagsAndAHeadThatRunsAwayNeverHangTheLoop) {
  auto a = make_a();
  auto b = make_b();
  ASSERT_TRUE(both_up(*a, *b));
  FrameSink at_b;
  b->set_receiver(at_b.receiver());
  std::byte* ring = a->shared_memory_for_test().data() + shm::kRingOffset[0];
  a->send(make_frame(60, 1)); // published and kicked; b has not run yet
  field(ring + shm::kConsumerWaitingOffset).store(0xffffffff);
  field(ring + shm::kProducerWaitingOffset).store(0xffffffff);
  // The peer claims a full ring: 511 slots of length 0 after a's frame. b drops them in
  // bounded batches and goes back to sleep.
  field(ring + shm::kHeadOffset).store(shm::kSlotCount);
  ASSERT_TRUE(
      run_until(loop, [&] { return b->counters().rx_dropped_runt == shm::kSlotCount - 1; }));
  run_until_idle(loop);
  ASSERT_EQ(at_b.frames.size(), 1u);
  EXPECT_EQ(at_b.frames[0], make_frame(60, 1));
  EXPECT_TRUE(b->link_up());
  // b's tail is now 512, beyond a's own head of 1: a's next send finds the ring corrupt.
  a->send(make_frame(60, 2));
  EXPECT_FALSE(a->link_up());
  EXPECT_EQ(a->counters().tx_dropped_error, 1u);
  ASSERT_TRUE(both_up(*a, *b));
  EXPECT_EQ(a->sessions(), 2u);
  exchange(*a, *b, 6);
}

// Zero-copy transmit: the frame is built in the ring slot itself; when the slot cannot be
// had (link down, full ring, frames queued) the scratch buffer and send() take over.
TEST_F(ShmPortTest, ReserveAndCommitBuildTheFrameInTheRingOrFallBackToSend) {
  auto a = make_a();
  {
    // Link down: committed like send(), so dropped and counted.
    const std::span<std::byte> area = a->reserve_tx(60);
    ASSERT_EQ(area.size(), 60u);
    a->commit_tx(60);
    EXPECT_EQ(a->counters().tx_dropped_no_peer, 1u);
  }
  auto b = make_b();
  ASSERT_TRUE(both_up(*a, *b));
  FrameSink at_b;
  b->set_receiver(at_b.receiver());
  const std::byte* ring_slots =
      a->shared_memory_for_test().data() + shm::kRingOffset[0] + shm::kControlBytes;
  std::vector<Frame> sent;
  for (size_t i = 0; i < shm::kSlotCount + 3; ++i) { // the last three find the ring full
    const Frame frame = make_frame(60 + i, static_cast<uint8_t>(i));
    const std::span<std::byte> area = a->reserve_tx(frame.size());
    ASSERT_EQ(area.size(), frame.size());
    const bool in_ring =
        area.data() >= ring_slots && area.data() < ring_slots + shm::kSlotCount * shm::kSlotBytes;
    EXPECT_EQ(in_ring, i < shm::kSlotCount) << i;
    std::memcpy(area.data(), frame.data(), frame.size());
    a->commit_tx(frame.size());
    sent.push_back(frame);
  }
  EXPECT_EQ(a->tx_backlog(), 3u);
  // A reservation that is never committed (the guest's buffer could not be read) sends
  // nothing.
  (void)a->reserve_tx(100);
  // A committed runt is dropped and counted.
  (void)a->reserve_tx(10);
  a->commit_tx(10);
  EXPECT_EQ(a->counters().tx_dropped_runt, 1u);
  ASSERT_TRUE(run_until(loop, [&] { return at_b.frames.size() == sent.size(); }));
  run_until_idle(loop);
  EXPECT_EQ(at_b.frames, sent);
  EXPECT_EQ(a->counters().tx_frames, sent.size());
}

// Zero-copy receive: the receiver gets the frame where it lies in its ring slot, and the
// slot is freed only when the receiver returns. The peer may rewrite the slot, its length
// word included, while the receiver runs: the length was read once, the span the receiver
// holds keeps its size, and the next frame is read from the next slot as always.
TEST_F(ShmPortTest, TheReceiverReadsTheFrameInItsSlotWhileThePeerScribblesOnIt) {
  auto a = make_a();
  auto b = make_b();
  ASSERT_TRUE(both_up(*a, *b));
  std::byte* ring = a->shared_memory_for_test().data() + shm::kRingOffset[0]; // a -> b
  const std::byte* slots =
      b->shared_memory_for_test().data() + shm::kRingOffset[0] + shm::kControlBytes;
  std::vector<Frame> seen;
  std::vector<uint32_t> tails_during;
  b->set_receiver([&](std::span<const std::byte> frame) {
    EXPECT_GE(frame.data(), slots);
    EXPECT_LT(frame.data(), slots + shm::kSlotCount * shm::kSlotBytes);
    tails_during.push_back(field(ring + shm::kTailOffset).load());
    const size_t size = frame.size();
    // The hostile peer: a huge length in the slot's length word, garbage in the frame.
    std::byte* slot = const_cast<std::byte*>(frame.data()) - shm::kSlotDataOffset;
    field(slot).store(0xffffffff);
    std::memset(const_cast<std::byte*>(frame.data()), 0x5a, frame.size());
    EXPECT_EQ(frame.size(), size);
    seen.emplace_back(frame.begin(), frame.end());
  });
  a->send(make_frame(60, 1));
  a->send(make_frame(1514, 2));
  ASSERT_TRUE(run_until(loop, [&] { return seen.size() == 2; }));
  ASSERT_EQ(tails_during, (std::vector<uint32_t>{0, 1})); // the slot is still b's meanwhile
  EXPECT_EQ(field(ring + shm::kTailOffset).load(), 2u);   // and freed after
  EXPECT_EQ(seen[0], Frame(60, std::byte{0x5a}));
  EXPECT_EQ(seen[1], Frame(1514, std::byte{0x5a}));
  EXPECT_EQ(b->counters().rx_frames, 2u);
  EXPECT_EQ(b->counters().rx_dropped_oversize, 0u);
  exchange(*a, *b, 7);
}

// What the receiver sends while it holds a frame may find the ring corrupt and end the
// session: the frame's memory stays mapped until the receiver returns.
TEST_F(ShmPortTest, ASessionTornDownInsideTheReceiverKeepsTheFrameReadable) {
  auto a = make_a();
  auto b = make_b();
  ASSERT_TRUE(both_up(*a, *b));
  std::byte* ring_b_to_a = b->shared_memory_for_test().data() + shm::kRingOffset[1];
  const Frame sent = make_frame(4096, 3);
  Frame read_after;
  b->set_receiver([&](std::span<const std::byte> frame) {
    field(ring_b_to_a + shm::kTailOffset).store(99); // beyond b's head of 0
    b->send(make_frame(60, 4));
    EXPECT_FALSE(b->link_up());
    read_after.assign(frame.begin(), frame.end());
  });
  a->send(sent);
  ASSERT_TRUE(run_until(loop, [&] { return !read_after.empty(); }));
  EXPECT_EQ(read_after, sent);
  EXPECT_EQ(b->counters().tx_dropped_error, 1u);
  ASSERT_TRUE(both_up(*a, *b));
  exchange(*a, *b, 8);
}

// A stranger connects to the listener: a garbage hello, a hello with the wrong number of
// descriptors, a hello whose memfd is not sealed. The live session stays.
TEST_F(ShmPortTest, BadHellosAreRefusedAndTheLiveSessionStays) {
  auto a = make_a();
  auto b = make_b();
  ASSERT_TRUE(both_up(*a, *b));
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, path_b.c_str(), sizeof(address.sun_path) - 1);
  auto connect_b = [&] {
    UniqueFd fd(::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
    EXPECT_EQ(::connect(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
    return fd;
  };
  auto send_hello = [](int socket, const ShmPort::Hello& hello, std::vector<int> fds) {
    iovec iov{const_cast<ShmPort::Hello*>(&hello), sizeof(hello)};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * 8)] = {};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    if (!fds.empty()) {
      msg.msg_control = control;
      msg.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
      cmsghdr* cmsg = CMSG_FIRSTHDR(&msg);
      cmsg->cmsg_level = SOL_SOCKET;
      cmsg->cmsg_type = SCM_RIGHTS;
      cmsg->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
      std::memcpy(CMSG_DATA(cmsg), fds.data(), sizeof(int) * fds.size());
    }
    EXPECT_EQ(::sendmsg(socket, &msg, 0), static_cast<ssize_t>(sizeof(hello)));
  };
  const ShmPort::Hello good{shm::kRegionMagic, shm::kRegionVersion, shm::kSlotCount,
                            static_cast<uint32_t>(shm::kSlotBytes), shm::kRegionBytes};
  UniqueFd unsealed(::memfd_create("x", MFD_CLOEXEC));
  ASSERT_EQ(::ftruncate(unsealed.get(), static_cast<off_t>(shm::kRegionBytes)), 0);
  UniqueFd efd(::eventfd(0, EFD_CLOEXEC));
  ShmPort::Hello wrong_magic = good;
  wrong_magic.magic = 1;
  ShmPort::Hello wrong_geometry = good;
  wrong_geometry.slot_count = 1u << 30;
  const std::vector<std::pair<ShmPort::Hello, std::vector<int>>> hellos = {
      {wrong_magic, {unsealed.get(), efd.get(), efd.get()}},
      {wrong_geometry, {unsealed.get(), efd.get(), efd.get()}},
      {good, {}},
      {good, {efd.get(), efd.get()}},
      {good, {unsealed.get(), efd.get(), efd.get()}},           // not sealed
      {good, {efd.get(), efd.get(), efd.get()}},                // not a memfd
      {good, {unsealed.get(), unsealed.get(), unsealed.get()}}, // kicks not eventfds
      {good, {unsealed.get(), efd.get(), efd.get(), efd.get()}},
  };
  for (size_t i = 0; i < hellos.size(); ++i) {
    UniqueFd stranger = connect_b();
    send_hello(stranger.get(), hellos[i].first, hellos[i].second);
    run_until_idle(loop);
    char ack[8];
    // Refused: the connection is closed without an ack.
    EXPECT_EQ(::recv(stranger.get(), ack, sizeof(ack), MSG_DONTWAIT), 0) << i;
    EXPECT_TRUE(b->link_up()) << i;
  }
  {
    UniqueFd silent = connect_b(); // says nothing and hangs up
  }
  run_until_idle(loop);
  EXPECT_EQ(b->sessions(), 1u);
  exchange(*a, *b, 7);
}

// Another process at the other end: its own EventLoop and ShmPort, echoing every frame.
pid_t fork_echo_peer(const std::string& local, const std::string& peer) {
  const pid_t pid = ::fork();
  if (pid != 0)
    return pid;
  {
    EventLoop loop;
    ShmPort port(loop, local, peer);
    port.set_receiver([&](std::span<const std::byte> frame) { port.send(frame); });
    loop.run(); // until killed
  }
  ::_exit(0);
}

void kill_and_reap(pid_t pid) {
  ::kill(pid, SIGKILL);
  int status;
  ::waitpid(pid, &status, 0);
}

TEST_F(ShmPortTest, TwoProcessesExchangeManyFramesAndSurviveAPeerKilledAndRestarted) {
  constexpr size_t kFrames = 20000;
  auto a = make_a();
  for (int round = 0; round < 2; ++round) {
    const pid_t child = fork_echo_peer(path_b, path_a);
    ASSERT_GT(child, 0);
    ASSERT_TRUE(run_until(loop, [&] { return a->link_up(); }, std::chrono::seconds(10)));
    size_t received = 0;
    bool all_match = true;
    a->set_receiver([&](std::span<const std::byte> frame) {
      const size_t n = received++;
      const Frame expected = make_frame(64 + n % 1400, static_cast<uint8_t>(n));
      all_match =
          all_match && std::equal(frame.begin(), frame.end(), expected.begin(), expected.end());
    });
    // Keep at most a ring's worth in flight each way, so nothing is dropped.
    size_t sent = 0;
    const bool done = run_until(
        loop,
        [&] {
          while (sent < kFrames && sent - received < shm::kSlotCount / 2) {
            a->send(make_frame(64 + sent % 1400, static_cast<uint8_t>(sent)));
            ++sent;
          }
          return received == kFrames;
        },
        std::chrono::seconds(60));
    EXPECT_TRUE(done) << "round " << round << ": " << received << " of " << kFrames;
    EXPECT_TRUE(all_match) << "round " << round;
    EXPECT_EQ(a->counters().tx_dropped_would_block, 0u);

    kill_and_reap(child);
    ASSERT_TRUE(run_until(loop, [&] { return !a->link_up(); }));
    a->set_receiver(nullptr);
  }
  EXPECT_EQ(a->sessions(), 2u);
}

} // namespace
} // namespace ornic::test
