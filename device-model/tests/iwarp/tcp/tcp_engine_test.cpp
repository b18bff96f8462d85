// Two TCP engines on an in-memory wire, timers on a simulated clock.
#include <chrono>
#include <deque>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "iwarp/tcp/tcp_engine.hpp"

namespace ornic::iwarp::tcp {
namespace {

using Bytes = std::vector<std::byte>;
using Clock = std::chrono::steady_clock;

const MacAddress kMacA{0x02, 0, 0, 0, 0, 0x0a};
const MacAddress kMacB{0x02, 0, 0, 0, 0, 0x0b};
const Ipv4Address kIpA{10, 0, 0, 1};
const Ipv4Address kIpB{10, 0, 0, 2};
constexpr uint16_t kPortA = 5000;
constexpr uint16_t kPortB = 6000;

// lwIP's timers are one per process: the simulated clock only ever moves forward, across tests.
Clock::time_point g_now = Clock::time_point{} + std::chrono::hours(1);

Bytes pattern(size_t n, uint32_t seed) {
  Bytes b(n);
  std::mt19937 rng(seed);
  for (auto& x : b)
    x = std::byte(rng() & 0xff);
  return b;
}

struct Side {
  std::unique_ptr<TcpEngine> engine;
  std::vector<Bytes> to_netdev; // frames the engine did not claim
  ConnectionId id = kNoConnection;
  bool connected = false;
  std::optional<bool> connect_result;
  std::optional<Endpoint> accepted_from;
  Bytes received;
  bool peer_closed = false;
  std::optional<TcpError> error;
  size_t acked = 0;
};

class TcpEngineTest : public ::testing::Test {
protected:
  struct Frame {
    int to;
    Bytes bytes;
  };

  void SetUp() override {
    a_.engine =
        std::make_unique<TcpEngine>([this](unsigned, std::span<const std::byte> f) { put(1, f); });
    b_.engine =
        std::make_unique<TcpEngine>([this](unsigned, std::span<const std::byte> f) { put(0, f); });
    a_.engine->add_port(0, kMacA, kIpA);
    b_.engine->add_port(0, kMacB, kIpB);
    a_.engine->set_neighbor(0, kIpB, kMacB);
    b_.engine->set_neighbor(0, kIpA, kMacA);
  }

  void TearDown() override {
    a_.engine.reset();
    b_.engine.reset();
  }

  Side& side(int i) { return i == 0 ? a_ : b_; }

  void put(int to, std::span<const std::byte> f) {
    ++sent_;
    // TCP payload bytes of A's data segments (Ethernet, IPv4 and TCP headers skipped).
    if (to == 1 && f.size() >= 54) {
      const auto at = [&](size_t i) { return std::to_integer<size_t>(f[i]); };
      const size_t ip_header = (at(14) & 0xf) * 4;
      const size_t ip_total = (at(16) << 8) | at(17);
      const size_t tcp_header = (at(14 + ip_header + 12) >> 4) * 4;
      if (ip_total > ip_header + tcp_header)
        a_segments_.push_back(ip_total - ip_header - tcp_header);
      if ((at(14 + ip_header + 13) & 0x01) != 0)
        ++a_fins_;
    }
    if (to == 1 && cut_to_b_) {
      ++dropped_;
      return;
    }
    if (drop_every_ != 0 && sent_ % drop_every_ == 0) {
      ++dropped_;
      return;
    }
    if (synchronous_) {
      deliver({to, {f.begin(), f.end()}});
      return;
    }
    if (reorder_every_ != 0 && sent_ % reorder_every_ == 0 && !held_) {
      held_ = Frame{to, {f.begin(), f.end()}};
      return;
    }
    wire_.push_back({to, {f.begin(), f.end()}});
    if (held_) {
      wire_.push_back(std::move(*held_));
      held_.reset();
      ++reordered_;
    }
  }

  void deliver(const Frame& f) {
    Side& s = side(f.to);
    if (!s.engine) // being torn down
      return;
    if (!s.engine->receive(0, f.bytes))
      s.to_netdev.push_back(f.bytes);
  }

  void pump() {
    while (!wire_.empty()) {
      Frame f = std::move(wire_.front());
      wire_.pop_front();
      deliver(f);
      feed_senders();
    }
  }

  void tick() {
    if (held_) {
      wire_.push_back(std::move(*held_));
      held_.reset();
    }
    g_now += TcpEngine::kTickPeriod;
    a_.engine->advance(g_now);
    b_.engine->advance(g_now);
    feed_senders();
  }

  // Runs the wire and the clock until done() or the tick budget is spent.
  template <typename Pred>
  bool run_until(Pred done, int max_ticks = 2000) {
    for (int t = 0; t <= max_ticks; ++t) {
      pump();
      ticks_ = t;
      if (done())
        return true;
      tick();
    }
    return false;
  }

  ConnectionCallbacks callbacks(Side& s) {
    ConnectionCallbacks cb;
    cb.on_receive = [&s, this](ConnectionId id, std::span<const std::byte> b) {
      if (&s == &b_ && abort_on_receive_) {
        s.engine->abort(id);
        return;
      }
      if (&s == &b_ && throw_on_receive_)
        throw std::runtime_error("consumer failed");
      s.received.insert(s.received.end(), b.begin(), b.end());
      if (&s == &b_ && close_after_ != 0 && s.received.size() >= close_after_ &&
          s.id != kNoConnection) {
        s.engine->close(id);
        s.id = kNoConnection;
      }
    };
    cb.on_sent = [&s, this](ConnectionId, size_t n) {
      s.acked += n;
      feed_senders();
    };
    cb.on_peer_closed = [&s](ConnectionId) { s.peer_closed = true; };
    cb.on_error = [&s](ConnectionId, TcpError e) { s.error = e; };
    return cb;
  }

  void listen_b() {
    ASSERT_TRUE(b_.engine->listen(
        0, kPortB, [this](ConnectionId id, const Endpoint& from, ConnectionCallbacks& cb) {
          b_.id = id;
          b_.connected = true;
          b_.accepted_from = from;
          cb = callbacks(b_);
          return true;
        }));
  }

  void connect_a(uint16_t remote_port = kPortB) {
    a_.id = a_.engine->connect(0, kPortA, {kIpB, remote_port}, callbacks(a_),
                               [this](ConnectionId, bool ok) {
                                 a_.connect_result = ok;
                                 a_.connected = ok;
                               });
    ASSERT_NE(a_.id, kNoConnection);
  }

  void establish() {
    listen_b();
    connect_a();
    ASSERT_TRUE(run_until([&] { return a_.connected && b_.connected; }, 100));
  }

  // A connection, then 2 KiB from A that B never hears: the frames to B are lost.
  void send_unheard(uint32_t seed) {
    establish();
    cut_to_b_ = true;
    out_[0] = pattern(2 << 10, seed);
    feed_senders();
  }

  // Whatever is left of out[i] goes into the engine as far as it takes it.
  void feed_senders() {
    for (int i = 0; i < 2; ++i) {
      Side& s = side(i);
      if (feeding_ || !s.engine || s.id == kNoConnection || !s.engine->connected(s.id))
        continue;
      feeding_ = true;
      while (offset_[i] < out_[i].size()) {
        size_t n = s.engine->send(s.id, std::span<const std::byte>(out_[i]).subspan(offset_[i]));
        if (n == 0)
          break;
        offset_[i] += n;
      }
      feeding_ = false;
    }
  }

  void transfer_both_ways(size_t bytes, int max_ticks) {
    out_[0] = pattern(bytes, 1);
    out_[1] = pattern(bytes, 2);
    feed_senders();
    ASSERT_TRUE(run_until(
        [&] { return a_.received.size() >= bytes && b_.received.size() >= bytes; }, max_ticks))
        << "a got " << a_.received.size() << " b got " << b_.received.size();
    EXPECT_TRUE(b_.received == out_[0]);
    EXPECT_TRUE(a_.received == out_[1]);
  }

  Side a_;
  Side b_;
  std::deque<Frame> wire_;
  std::optional<Frame> held_;
  bool synchronous_ = false;
  bool feeding_ = false;
  bool abort_on_receive_ = false;
  bool throw_on_receive_ = false;
  size_t close_after_ = 0; // B closes from inside on_receive once it has this many bytes
  int ticks_ = 0;          // of the last run_until
  size_t drop_every_ = 0;
  size_t reorder_every_ = 0;
  size_t sent_ = 0;
  size_t dropped_ = 0;
  size_t reordered_ = 0;
  Bytes out_[2];
  size_t offset_[2] = {0, 0};
  std::vector<size_t> a_segments_; // payload bytes of each data segment A sent
  size_t a_fins_ = 0;              // segments from A with FIN set, sent or retransmitted
  bool cut_to_b_ = false;          // every frame to B is lost
};

TEST_F(TcpEngineTest, Handshake) {
  establish();
  ASSERT_TRUE(b_.accepted_from.has_value());
  EXPECT_EQ(b_.accepted_from->ip, kIpA);
  EXPECT_EQ(b_.accepted_from->port, kPortA);
  EXPECT_EQ(a_.connect_result, std::optional<bool>(true));
  EXPECT_EQ(a_.engine->connection_count(), 1u);
  EXPECT_EQ(b_.engine->connection_count(), 1u);
  EXPECT_GT(a_.engine->send_space(a_.id), 0u);
  EXPECT_TRUE(a_.to_netdev.empty());
  EXPECT_TRUE(b_.to_netdev.empty());
}

TEST_F(TcpEngineTest, OneMebibyteEachWay) {
  establish();
  transfer_both_ways(1 << 20, 200);
  // The last ACK may wait for the delayed-ACK timer.
  EXPECT_TRUE(run_until([&] { return a_.acked == out_[0].size(); }, 4));
}

TEST_F(TcpEngineTest, LossRecoveredByRetransmission) {
  establish();
  drop_every_ = 13;
  transfer_both_ways(1 << 20, 20000);
  EXPECT_GT(dropped_, 100u);
  std::cout << "[ info ] " << dropped_ << " of " << sent_ << " frames dropped, " << ticks_
            << " ticks\n";
}

TEST_F(TcpEngineTest, ReorderingKeepsTheStreamExact) {
  establish();
  reorder_every_ = 5;
  transfer_both_ways(1 << 20, 2000);
  EXPECT_GT(reordered_, 100u);
}

TEST_F(TcpEngineTest, SynchronousWireIsNotReentered) {
  synchronous_ = true;
  establish();
  transfer_both_ways(1 << 20, 200);
}

TEST_F(TcpEngineTest, FinBothWays) {
  establish();
  out_[0] = pattern(100 << 10, 3);
  feed_senders();
  ASSERT_TRUE(offset_[0] > 0);
  ASSERT_TRUE(run_until([&] { return offset_[0] == out_[0].size(); }, 100));
  a_.engine->close(a_.id);
  EXPECT_EQ(a_.engine->connection_count(), 0u);
  ASSERT_TRUE(run_until([&] { return b_.peer_closed; }, 100));
  EXPECT_TRUE(b_.received == out_[0]); // everything before the FIN
  // B may still talk after A's FIN (half close); then it closes too.
  b_.engine->close(b_.id);
  EXPECT_EQ(b_.engine->connection_count(), 0u);
  EXPECT_FALSE(b_.error.has_value());
  EXPECT_FALSE(a_.error.has_value());
  // LAST_ACK ends with A's ACK, A's TIME_WAIT after 2 MSL: then nothing is left.
  EXPECT_TRUE(
      run_until([&] { return a_.engine->lingering() == 0 && b_.engine->lingering() == 0; }, 1000));
  EXPECT_TRUE(a_.to_netdev.empty());
  EXPECT_TRUE(b_.to_netdev.empty());
}

// rdma_cm listens on a port again while a connection it accepted there still runs (perftest's
// -R does: one connection to exchange parameters, then a new listen for the test's own).
TEST_F(TcpEngineTest, ListenAgainOnAPortItsAcceptedConnectionStillUses) {
  establish();
  b_.engine->stop_listening(0, kPortB);
  ASSERT_TRUE(b_.engine->connected(b_.id));
  ASSERT_TRUE(b_.engine->listen(
      0, kPortB, [](ConnectionId, const Endpoint&, ConnectionCallbacks&) { return false; }));
  EXPECT_FALSE(b_.engine->listen(
      0, kPortB, [](ConnectionId, const Endpoint&, ConnectionCallbacks&) { return false; }));
  transfer_both_ways(64 << 10, 100);
}

// Records (MPA's FPDUs) each travel in a segment of their own, whatever the window lets
// through at a time: a short one is never topped up with the start of the next.
TEST_F(TcpEngineTest, RecordsKeepToSegmentsOfTheirOwn) {
  establish();
  const std::vector<size_t> sizes = {756, 1460, 1460, 100, 1460, 28, 1460, 1460, 1460, 756};
  std::vector<size_t> want;
  Bytes all;
  for (int round = 0; round < 40; ++round)
    for (size_t n : sizes) {
      want.push_back(n);
      const Bytes r = pattern(n, static_cast<uint32_t>(want.size()));
      all.insert(all.end(), r.begin(), r.end());
    }
  a_segments_.clear();
  size_t next = 0, at = 0;
  ASSERT_TRUE(run_until(
      [&] {
        while (next < want.size()) {
          const auto record = std::span<const std::byte>(all).subspan(at, want[next]);
          if (a_.engine->send_record(a_.id, record) == 0)
            break;
          at += want[next++];
        }
        return next == want.size() && b_.received.size() == all.size();
      },
      2000));
  EXPECT_TRUE(b_.received == all);
  EXPECT_EQ(a_segments_, want);
}

TEST_F(TcpEngineTest, PeerFinSeenByTheConnector) {
  establish();
  b_.engine->close(b_.id);
  ASSERT_TRUE(run_until([&] { return a_.peer_closed; }, 100));
  a_.engine->close(a_.id);
  EXPECT_TRUE(
      run_until([&] { return a_.engine->lingering() == 0 && b_.engine->lingering() == 0; }, 1000));
}

TEST_F(TcpEngineTest, ResetMidTransferReachesThePeer) {
  establish();
  out_[0] = pattern(1 << 20, 4);
  feed_senders();
  ASSERT_TRUE(run_until([&] { return b_.received.size() > (100u << 10); }, 100));
  a_.engine->abort(a_.id);
  ASSERT_TRUE(run_until([&] { return b_.error.has_value(); }, 100));
  EXPECT_EQ(*b_.error, TcpError::Reset);
  EXPECT_EQ(b_.engine->connection_count(), 0u);
  EXPECT_FALSE(a_.error.has_value()); // an abort is not reported back to its caller
}

TEST_F(TcpEngineTest, AbortFromInsideTheReceiveCallback) {
  establish();
  abort_on_receive_ = true; // B's consumer gives up on the first bytes it sees
  out_[0] = pattern(256 << 10, 5);
  feed_senders();
  ASSERT_TRUE(run_until([&] { return a_.error.has_value(); }, 100));
  EXPECT_EQ(*a_.error, TcpError::Reset);
  EXPECT_LT(b_.received.size(), out_[0].size());
  EXPECT_EQ(b_.engine->connection_count(), 0u);
  EXPECT_EQ(a_.engine->connection_count(), 0u);
}

TEST_F(TcpEngineTest, ConnectTimesOutWhenNothingAnswers) {
  listen_b();
  drop_every_ = 1;
  connect_a();
  ASSERT_TRUE(run_until([&] { return a_.connect_result.has_value(); }, 4000));
  EXPECT_EQ(*a_.connect_result, false);
  std::cout << "[ info ] connect gave up after " << ticks_ << " ticks\n";
  EXPECT_EQ(a_.engine->connection_count(), 0u);
}

TEST_F(TcpEngineTest, EstablishedConnectionTimesOutOnASilentPeer) {
  establish();
  drop_every_ = 1;
  out_[0] = pattern(10 << 10, 6);
  feed_senders();
  ASSERT_TRUE(run_until([&] { return a_.error.has_value(); }, 40000));
  EXPECT_EQ(*a_.error, TcpError::TimedOut);
  std::cout << "[ info ] established connection gave up after " << ticks_ << " ticks\n";
  EXPECT_EQ(a_.engine->connection_count(), 0u);
}

// The contrast for the next test: close() sends FIN behind the data at once, whether or not
// the peer has seen the data.
TEST_F(TcpEngineTest, CloseSendsFinBeforeTheDataIsAcknowledged) {
  send_unheard(8);
  ASSERT_EQ(offset_[0], out_[0].size());
  a_.engine->close(a_.id);
  a_.id = kNoConnection;
  run_until([] { return false; }, 8);
  EXPECT_GT(a_fins_, 0u);
}

// A last message and then FIN: the FIN waits until the peer acknowledged the message, through
// its losses and retransmissions, so no receiver meets the two together.
TEST_F(TcpEngineTest, CloseWhenAcknowledgedHoldsTheFinUntilTheDataIsAcknowledged) {
  send_unheard(9);
  ASSERT_EQ(offset_[0], out_[0].size());
  a_.engine->close_when_acknowledged(a_.id);
  const ConnectionId handed_back = a_.id;
  a_.id = kNoConnection;
  run_until([] { return false; }, 8); // A retransmits, B hears nothing
  EXPECT_GT(dropped_, 1u);
  EXPECT_EQ(a_fins_, 0u);
  EXPECT_TRUE(a_.engine->connected(handed_back));
  cut_to_b_ = false;
  ASSERT_TRUE(run_until([&] { return b_.peer_closed || b_.error.has_value(); }, 200));
  EXPECT_TRUE(b_.peer_closed);
  EXPECT_TRUE(b_.received == out_[0]);
  EXPECT_GT(a_fins_, 0u);
  EXPECT_FALSE(a_.engine->connected(handed_back));
  EXPECT_EQ(a_.engine->connection_count(), 0u);
  // B answers after the FIN: A takes it without a callback to anyone, then both ends finish.
  out_[1] = pattern(1 << 10, 10);
  feed_senders();
  b_.engine->close(b_.id);
  b_.id = kNoConnection;
  EXPECT_TRUE(
      run_until([&] { return a_.engine->lingering() == 0 && b_.engine->lingering() == 0; }, 1000));
  EXPECT_TRUE(a_.received.empty());
  EXPECT_FALSE(a_.error.has_value());
  EXPECT_FALSE(b_.error.has_value());
}

// A peer that never acknowledges holds nothing for ever: TCP's retransmissions run out, the
// connection goes, and no callback reaches the caller that handed it back.
TEST_F(TcpEngineTest, CloseWhenAcknowledgedGivesUpOnASilentPeer) {
  send_unheard(12);
  a_.engine->close_when_acknowledged(a_.id);
  a_.id = kNoConnection;
  ASSERT_TRUE(run_until([&] { return a_.engine->connection_count() == 0; }, 40000));
  EXPECT_EQ(a_fins_, 0u);
  EXPECT_FALSE(a_.error.has_value());
  EXPECT_TRUE(b_.received.empty());
}

// With nothing unacknowledged the FIN goes at once.
TEST_F(TcpEngineTest, CloseWhenAcknowledgedWithNothingOutstandingSendsFinAtOnce) {
  establish();
  out_[0] = pattern(1 << 10, 11);
  feed_senders();
  ASSERT_TRUE(run_until([&] { return a_.acked == out_[0].size(); }, 100));
  a_.engine->close_when_acknowledged(a_.id);
  a_.id = kNoConnection;
  EXPECT_EQ(a_fins_, 1u);
  EXPECT_EQ(a_.engine->connection_count(), 0u);
  ASSERT_TRUE(run_until([&] { return b_.peer_closed; }, 100));
  EXPECT_TRUE(b_.received == out_[0]);
}

TEST_F(TcpEngineTest, CloseFromInsideTheReceiveCallbackSendsFin) {
  establish();
  // All that A sends: B's close comes with nothing unread (data after a close is reset).
  close_after_ = 4 << 10;
  out_[0] = pattern(4 << 10, 7);
  feed_senders();
  ASSERT_TRUE(run_until([&] { return a_.peer_closed || a_.error.has_value(); }, 100));
  EXPECT_TRUE(a_.peer_closed);
  EXPECT_FALSE(a_.error.has_value());
  EXPECT_EQ(b_.engine->connection_count(), 0u);
}

TEST_F(TcpEngineTest, AThrowingConsumerResetsItsConnection) {
  establish();
  throw_on_receive_ = true;
  out_[0] = pattern(4 << 10, 8);
  feed_senders();
  ASSERT_TRUE(run_until([&] { return a_.error.has_value(); }, 100));
  EXPECT_EQ(*a_.error, TcpError::Reset);
  EXPECT_EQ(b_.engine->counters().callback_exceptions, 1u);
  EXPECT_EQ(b_.engine->connection_count(), 0u);
}

TEST_F(TcpEngineTest, SynToAReservedPortWithoutListenerGetsRst) {
  b_.engine->reserve_port(0, 7000);
  connect_a(7000);
  ASSERT_TRUE(run_until([&] { return a_.connect_result.has_value(); }, 100));
  EXPECT_EQ(*a_.connect_result, false);
  EXPECT_TRUE(b_.to_netdev.empty());
  EXPECT_EQ(a_.engine->connection_count(), 0u);
}

TEST_F(TcpEngineTest, SynToAPortOfTheHostGoesToTheNetdev) {
  connect_a(7001);
  run_until([] { return false; }, 4);
  ASSERT_FALSE(b_.to_netdev.empty());
  EXPECT_FALSE(a_.connect_result.has_value());
  a_.engine->abort(a_.id);
  EXPECT_EQ(a_.engine->connection_count(), 0u);
}

// More connections than lwIP's MEMP_NUM_TCP_PCB default (5): Debian's build takes pcbs from
// malloc, so only the engine's own limit counts.
TEST_F(TcpEngineTest, ManyConnectionsAtOnce) {
  constexpr size_t kConns = 40;
  constexpr size_t kBytes = 16 << 10;
  std::map<ConnectionId, Bytes> got;
  std::vector<ConnectionId> accepted;
  ASSERT_TRUE(
      b_.engine->listen(0, kPortB, [&](ConnectionId id, const Endpoint&, ConnectionCallbacks& cb) {
        accepted.push_back(id);
        cb.on_receive = [&got](ConnectionId c, std::span<const std::byte> b) {
          got[c].insert(got[c].end(), b.begin(), b.end());
        };
        return true;
      }));
  std::vector<ConnectionId> ids;
  size_t up = 0;
  for (size_t i = 0; i < kConns; ++i) {
    ids.push_back(a_.engine->connect(0, static_cast<uint16_t>(kPortA + i), {kIpB, kPortB}, {},
                                     [&up](ConnectionId, bool ok) { up += ok ? 1 : 0; }));
    ASSERT_NE(ids.back(), kNoConnection);
  }
  ASSERT_TRUE(run_until([&] { return up == kConns && accepted.size() == kConns; }, 100));
  Bytes data = pattern(kBytes, 9);
  std::vector<size_t> off(kConns, 0);
  ASSERT_TRUE(run_until(
      [&] {
        bool all = true;
        for (size_t i = 0; i < kConns; ++i) {
          off[i] += a_.engine->send(ids[i], std::span<const std::byte>(data).subspan(off[i]));
          all = all && got[accepted[i]].size() == kBytes;
        }
        return all;
      },
      400));
  for (ConnectionId id : accepted)
    EXPECT_TRUE(got[id] == data);
  EXPECT_EQ(a_.engine->connection_count(), kConns);
  EXPECT_EQ(b_.engine->connection_count(), kConns);
}

// The IPv4 header of a frame from A to B carrying a TCP segment of the connection.
Bytes tcp_frame(size_t payload, uint16_t sport, uint16_t dport, bool good_ip_csum,
                std::mt19937& rng) {
  Bytes f(14 + 20 + 20 + payload);
  auto put = [&](size_t at, std::initializer_list<unsigned> v) {
    for (unsigned x : v)
      f[at++] = std::byte(x & 0xff);
  };
  put(0, {0x02, 0, 0, 0, 0, 0x0b, 0x02, 0, 0, 0, 0, 0x0a, 0x08, 0x00});
  size_t total = 40 + payload;
  put(14, {0x45,
           0,
           unsigned(total >> 8),
           unsigned(total),
           0,
           0,
           0x40,
           0,
           64,
           6,
           0,
           0,
           10,
           0,
           0,
           1,
           10,
           0,
           0,
           2});
  if (good_ip_csum) {
    uint32_t sum = 0;
    for (size_t i = 14; i < 34; i += 2)
      sum += (std::to_integer<unsigned>(f[i]) << 8) | std::to_integer<unsigned>(f[i + 1]);
    while (sum >> 16)
      sum = (sum & 0xffff) + (sum >> 16);
    put(24, {unsigned(~sum >> 8), unsigned(~sum)});
  }
  for (size_t i = 34; i < f.size(); ++i)
    f[i] = std::byte(rng() & 0xff);
  put(34, {unsigned(sport >> 8), unsigned(sport), unsigned(dport >> 8), unsigned(dport)});
  f[46] = std::byte{0x50}; // data offset 5
  return f;
}

TEST_F(TcpEngineTest, GarbageFramesAreDroppedWithoutEffect) {
  establish();
  std::mt19937 rng(7);
  TcpEngine& b = *b_.engine;
  // Not for the engine: handed to the netdev untouched.
  EXPECT_FALSE(b.receive(0, Bytes(10)));
  EXPECT_FALSE(b.receive(0, Bytes(60)));
  EXPECT_FALSE(b.receive(1, tcp_frame(0, kPortA, kPortB, true, rng)));
  // For the connection's ports but broken in every way lwIP checks.
  for (int i = 0; i < 2000; ++i) {
    Bytes f = tcp_frame(rng() % 200, kPortA, kPortB, i % 2 == 0, rng);
    if (i % 3 == 0)
      f.resize(14 + 20 + 4 + rng() % 16); // truncated below the IP total length
    if (i % 5 == 0)
      f[14] = std::byte(0x40 | (rng() % 16)); // any header length
    b.receive(0, f);
    // Random bytes behind a valid Ethernet header.
    Bytes r = pattern(14 + rng() % 100, static_cast<uint32_t>(i));
    std::copy(f.begin(), f.begin() + 14, r.begin());
    b.receive(0, r);
  }
  pump();
  EXPECT_EQ(b_.received.size(), 0u);
  EXPECT_FALSE(b_.error.has_value());
  EXPECT_FALSE(a_.error.has_value());
  // The connection is still good.
  transfer_both_ways(64 << 10, 100);
}

TEST_F(TcpEngineTest, HalfOpenLimitIgnoresExcessSyns) {
  b_.engine =
      std::make_unique<TcpEngine>([this](unsigned, std::span<const std::byte> f) { put(0, f); },
                                  EngineLimits{.max_connections = 8, .max_half_open = 1});
  b_.engine->add_port(0, kMacB, kIpB);
  // No route back from B: its SYN-ACKs are lost and the connections stay half open.
  listen_b();
  std::vector<ConnectionId> ids;
  for (uint16_t p = 0; p < 3; ++p)
    ids.push_back(a_.engine->connect(0, static_cast<uint16_t>(kPortA + p), {kIpB, kPortB}, {},
                                     [](ConnectionId, bool) {}));
  pump();
  EXPECT_EQ(b_.engine->counters().syns_refused, 2u);
  EXPECT_EQ(b_.engine->counters().frames_no_neighbor, 1u);
  EXPECT_TRUE(b_.to_netdev.empty());
  for (ConnectionId id : ids)
    a_.engine->abort(id);
}

// Whatever lwIP would hand to its loopback path (no tcpip thread here to take it) is refused:
// a connect to the port's own address or 127/8, and a SYN whose source claims either.
TEST_F(TcpEngineTest, SelfAddressedPeersAreRefused) {
  for (const Ipv4Address& ip : {kIpA, Ipv4Address{127, 0, 0, 1}, Ipv4Address{0, 0, 0, 0},
                                Ipv4Address{224, 0, 0, 1}, Ipv4Address{255, 255, 255, 255}})
    EXPECT_EQ(a_.engine->connect(0, kPortA, {ip, kPortB}, {}, [](ConnectionId, bool) {}),
              kNoConnection);
  listen_b();
  std::mt19937 rng(3);
  for (const Ipv4Address& src : {kIpB, Ipv4Address{127, 0, 0, 1}, Ipv4Address{224, 0, 0, 5}}) {
    Bytes syn = tcp_frame(0, kPortA, kPortB, false, rng);
    for (size_t i = 0; i < 4; ++i) {
      syn[14 + 12 + i] = std::byte{src[i]};
      syn[14 + 16 + i] = std::byte{kIpB[i]};
    }
    syn[14 + 20 + 13] = std::byte{0x02}; // SYN
    uint64_t bad = b_.engine->counters().frames_bad_source;
    EXPECT_FALSE(b_.engine->receive(0, syn)); // the netdev's, as every frame not taken
    EXPECT_EQ(b_.engine->counters().frames_bad_source, bad + 1);
  }
  pump();
  EXPECT_EQ(b_.engine->connection_count(), 0u);
  // The listener still takes a real peer.
  connect_a();
  ASSERT_TRUE(run_until([&] { return a_.connected && b_.connected; }, 100));
}

} // namespace
} // namespace ornic::iwarp::tcp
