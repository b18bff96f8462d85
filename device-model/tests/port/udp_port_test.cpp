// Two ports on one EventLoop linked over real UDP sockets on the loopback interface, IPv4
// and IPv6, and the peer played by a raw UDP socket where the test needs to see the bytes.
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <system_error>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <gtest/gtest.h>

#include "common/unique_fd.hpp"
#include "port/port.hpp"
#include "port/port_spec.hpp"
#include "port/udp_port.hpp"
#include "port_test_support.hpp"

namespace ornic::test {
namespace {

struct Family {
  int family;
  const char* host; // numeric, as the spec writes it (brackets added for IPv6)
};

std::string endpoint_text(const Family& f, uint16_t port) {
  const std::string host = f.family == AF_INET6 ? "[" + std::string(f.host) + "]" : f.host;
  return host + ":" + std::to_string(port);
}

sockaddr_storage socket_address(const Family& f, uint16_t port, socklen_t& length) {
  sockaddr_storage address{};
  if (f.family == AF_INET6) {
    auto* a = reinterpret_cast<sockaddr_in6*>(&address);
    a->sin6_family = AF_INET6;
    a->sin6_port = htons(port);
    ::inet_pton(AF_INET6, f.host, &a->sin6_addr);
    length = sizeof(*a);
  } else {
    auto* a = reinterpret_cast<sockaddr_in*>(&address);
    a->sin_family = AF_INET;
    a->sin_port = htons(port);
    ::inet_pton(AF_INET, f.host, &a->sin_addr);
    length = sizeof(*a);
  }
  return address;
}

// A raw UDP socket bound to HOST:port (0: any free port), for playing QEMU or a stranger.
UniqueFd bound_udp_socket(const Family& f, uint16_t port) {
  UniqueFd fd(::socket(f.family, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (!fd)
    return fd;
  socklen_t length = 0;
  const sockaddr_storage address = socket_address(f, port, length);
  if (::bind(fd.get(), reinterpret_cast<const sockaddr*>(&address), length) != 0)
    return UniqueFd();
  return fd;
}

uint16_t local_port_of(int fd) {
  sockaddr_storage address{};
  socklen_t length = sizeof(address);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  return address.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&address)->sin6_port)
                                       : ntohs(reinterpret_cast<sockaddr_in*>(&address)->sin_port);
}

class UdpPortTest : public ::testing::TestWithParam<Family> {
protected:
  void SetUp() override {
    // Two free ports: bind to port 0 and let the kernel choose, then free them again.
    UniqueFd probe_a = bound_udp_socket(GetParam(), 0);
    UniqueFd probe_b = bound_udp_socket(GetParam(), 0);
    if (!probe_a || !probe_b)
      GTEST_SKIP() << "cannot bind a UDP socket to " << GetParam().host
                   << " (IPv6 disabled on this host?)";
    port_a = local_port_of(probe_a.get());
    port_b = local_port_of(probe_b.get());
  }

  std::string spec(uint16_t local, uint16_t remote) const {
    return "udp:" + endpoint_text(GetParam(), local) + "," + endpoint_text(GetParam(), remote);
  }
  std::unique_ptr<Port> make_a() { return make_port(loop, spec(port_a, port_b), {}); }
  std::unique_ptr<Port> make_b() { return make_port(loop, spec(port_b, port_a), {}); }

  // Sends `bytes` from the raw socket to port_a.
  void send_to_a(int fd, std::span<const std::byte> bytes) {
    socklen_t length = 0;
    const sockaddr_storage address = socket_address(GetParam(), port_a, length);
    ASSERT_EQ(::sendto(fd, bytes.data(), bytes.size(), 0,
                       reinterpret_cast<const sockaddr*>(&address), length),
              static_cast<ssize_t>(bytes.size()))
        << std::strerror(errno);
  }

  EventLoop loop;
  uint16_t port_a = 0, port_b = 0;
};

TEST_P(UdpPortTest, FramesOfSeveralSizesTravelBothWaysByteExact) {
  auto a = make_a();
  auto b = make_b();
  FrameSink at_a, at_b;
  a->set_receiver(at_a.receiver());
  b->set_receiver(at_b.receiver());
  EXPECT_TRUE(a->link_up() && b->link_up()) << "UDP has no carrier: up from the start";

  const std::vector<size_t> sizes = {kMinFrameBytes, 60, 64, 1514, 4096, 9018, kMaxFrameBytes};
  std::vector<Frame> a_to_b, b_to_a;
  for (size_t i = 0; i < sizes.size(); ++i) {
    a_to_b.push_back(make_frame(sizes[i], static_cast<uint8_t>(i)));
    b_to_a.push_back(make_frame(sizes[i], static_cast<uint8_t>(100 + i)));
    a->send(a_to_b.back());
    b->send(b_to_a.back());
  }
  ASSERT_TRUE(run_until(loop, [&] {
    return at_a.frames.size() == sizes.size() && at_b.frames.size() == sizes.size();
  }));
  EXPECT_EQ(at_b.frames, a_to_b);
  EXPECT_EQ(at_a.frames, b_to_a);
  for (const auto& port : {a.get(), b.get()}) {
    const PortCounters c = port->counters();
    EXPECT_EQ(c.tx_frames, sizes.size());
    EXPECT_EQ(c.rx_frames, sizes.size());
    EXPECT_EQ(c.tx_dropped_no_peer + c.tx_dropped_would_block + c.tx_dropped_error, 0u);
    EXPECT_TRUE(port->link_up());
  }
}

TEST_P(UdpPortTest, BurstFarBeyondTenDatagramsArrivesCompleteAndInOrder) {
  auto a = make_a();
  auto b = make_b();
  FrameSink at_a, at_b;
  a->set_receiver(at_a.receiver());
  b->set_receiver(at_b.receiver());
  // Neither side runs its loop while the other sends: everything sits in the sockets.
  constexpr uint64_t kBurst = 64;
  for (uint64_t i = 0; i < kBurst; ++i) {
    a->send(make_frame(1000, static_cast<uint8_t>(i)));
    b->send(make_frame(1000, static_cast<uint8_t>(200 + i)));
  }
  ASSERT_TRUE(
      run_until(loop, [&] { return at_a.frames.size() == kBurst && at_b.frames.size() == kBurst; }))
      << at_a.frames.size() << " and " << at_b.frames.size() << " of " << kBurst;
  for (uint64_t i = 0; i < kBurst; ++i) {
    EXPECT_EQ(at_b.frames[i], make_frame(1000, static_cast<uint8_t>(i))) << i;
    EXPECT_EQ(at_a.frames[i], make_frame(1000, static_cast<uint8_t>(200 + i))) << i;
  }
}

TEST_P(UdpPortTest, AbsentPeerTakesTheLinkDownWithoutCrashOrSpin) {
  auto a = make_a(); // nothing listens on port_b: ICMP port unreachable
  // On loopback the ICMP error is back before sendto returns, so every other send is
  // refused (the refusal takes the pending error, and the next send goes out again).
  constexpr uint64_t kFrames = 20;
  for (uint64_t i = 0; i < kFrames; ++i)
    a->send(make_frame(64, static_cast<uint8_t>(i)));
  ASSERT_TRUE(run_until(loop, [&] { return !a->link_up(); }));
  PortCounters c = a->counters();
  EXPECT_GT(c.tx_dropped_no_peer, 0u) << "refused sends are counted";
  EXPECT_EQ(c.tx_frames + c.tx_dropped_no_peer, kFrames);
  EXPECT_EQ(c.tx_dropped_error, 0u);
  // The pending ECONNREFUSED was taken; nothing keeps the loop busy.
  EXPECT_LT(busy_iterations(loop, std::chrono::milliseconds(300)), 5);
  EXPECT_FALSE(a->link_up());
}

TEST_P(UdpPortTest, PeerStartingLaterBringsTheLinkUpWithItsFirstFrame) {
  auto a = make_a();
  FrameSink at_a;
  a->set_receiver(at_a.receiver());
  a->send(make_frame(64, 1));
  a->send(make_frame(64, 2));
  ASSERT_TRUE(run_until(loop, [&] { return !a->link_up(); }));

  auto b = make_b();
  FrameSink at_b;
  b->set_receiver(at_b.receiver());
  const Frame hello = make_frame(100, 3);
  b->send(hello);
  ASSERT_TRUE(run_until(loop, [&] { return at_a.frames.size() == 1; }));
  EXPECT_EQ(at_a.frames[0], hello);
  EXPECT_TRUE(a->link_up());
  const Frame answer = make_frame(100, 4);
  a->send(answer);
  ASSERT_TRUE(run_until(loop, [&] { return at_b.frames.size() == 1; }));
  EXPECT_EQ(at_b.frames[0], answer);
}

TEST_P(UdpPortTest, RestartedPeerIsFoundWithoutItSendingFirst) {
  auto a = make_a();
  auto b = make_b();
  FrameSink at_a, at_b;
  a->set_receiver(at_a.receiver());
  b->set_receiver(at_b.receiver());
  const Frame before = make_frame(64, 1);
  a->send(before);
  ASSERT_TRUE(run_until(loop, [&] { return at_b.frames.size() == 1; }));

  // The peer dies: what a sends now is refused and the link goes down.
  b.reset();
  for (uint8_t i = 0; i < 4; ++i)
    a->send(make_frame(64, static_cast<uint8_t>(10 + i)));
  ASSERT_TRUE(run_until(loop, [&] { return !a->link_up(); }));
  // Probes to nobody are refused too: the link stays down, the loop is not kept busy.
  EXPECT_LT(busy_iterations(loop, UdpPort::kQuietPeriod + std::chrono::milliseconds(500)), 40);
  EXPECT_FALSE(a->link_up()) << "nobody listens, yet the link came up";

  // The peer comes back and stays silent: a's probes go unrefused and bring its link up.
  const auto restarted = std::chrono::steady_clock::now();
  b = make_b();
  FrameSink at_new_b;
  b->set_receiver(at_new_b.receiver());
  ASSERT_TRUE(run_until(
      loop, [&] { return a->link_up(); }, std::chrono::seconds(4)))
      << "the link never came back without the peer sending";
  const auto took = std::chrono::steady_clock::now() - restarted;
  EXPECT_LT(took, UdpPort::kQuietPeriod + 3 * UdpPort::kProbeInterval);
  EXPECT_TRUE(b->link_up());

  // a speaks first, and it arrives; the probes themselves never reach the receiver.
  const Frame after = make_frame(1514, 2);
  a->send(after);
  ASSERT_TRUE(run_until(loop, [&] { return !at_new_b.frames.empty(); }));
  run_until_idle(loop);
  EXPECT_EQ(at_new_b.frames, std::vector<Frame>{after});
  EXPECT_EQ(b->counters().rx_dropped_runt + b->counters().rx_dropped_oversize, 0u);
  EXPECT_EQ(b->counters().tx_frames, 0u) << "the restarted peer never sent";
  EXPECT_TRUE(a->link_up());
}

TEST_P(UdpPortTest, ProbeIsOneFixedEthernetFrameNeverEmpty) {
  auto a = make_a();
  a->send(make_frame(64, 1)); // nobody at port_b yet: refused, link down, probing
  ASSERT_TRUE(run_until(loop, [&] { return !a->link_up(); }));

  // A plain socket at port_b, as QEMU's -netdev dgram would be: what a's probes look like.
  UniqueFd peer = bound_udp_socket(GetParam(), port_b);
  ASSERT_TRUE(peer);
  std::vector<std::byte> buffer(65536);
  ssize_t n = -1;
  ASSERT_TRUE(run_until(loop, [&] {
    if (n < 0)
      n = ::recv(peer.get(), buffer.data(), buffer.size(), MSG_DONTWAIT);
    return n >= 0;
  }));
  ASSERT_EQ(n, static_cast<ssize_t>(UdpPort::kProbeFrameBytes))
      << "never empty: QEMU's -netdev dgram stops reading at an empty datagram";
  const Frame probe(buffer.begin(), buffer.begin() + n);
  EXPECT_EQ(probe, Frame(UdpPort::probe_frame().begin(), UdpPort::probe_frame().end()));
  EXPECT_EQ(probe[0], std::byte{0x01}) << "to a group address bridges do not forward";
  EXPECT_EQ(probe[12], std::byte{0x88});
  EXPECT_EQ(probe[13], std::byte{0xb6}) << "0x88B6: test frames use 0x88B5";
  ASSERT_TRUE(run_until(loop, [&] { return a->link_up(); }, std::chrono::seconds(4)));
  EXPECT_EQ(a->counters().tx_frames, 1u) << "the one frame handed to send(); probes count nowhere";
}

TEST_P(UdpPortTest, ReceivedProbeBringsTheLinkUpAndGoesNoFurther) {
  auto a = make_a();
  FrameSink at_a;
  a->set_receiver(at_a.receiver());
  a->send(make_frame(64, 1));
  ASSERT_TRUE(run_until(loop, [&] { return !a->link_up(); }));

  UniqueFd peer = bound_udp_socket(GetParam(), port_b);
  ASSERT_TRUE(peer);
  send_to_a(peer.get(), UdpPort::probe_frame());
  // A frame that merely starts like a probe is an ordinary frame.
  Frame almost(UdpPort::probe_frame().begin(), UdpPort::probe_frame().end());
  almost.back() = std::byte{1};
  send_to_a(peer.get(), almost);
  ASSERT_TRUE(run_until(loop, [&] { return !at_a.frames.empty(); }));
  run_until_idle(loop);
  EXPECT_TRUE(a->link_up());
  EXPECT_EQ(at_a.frames, std::vector<Frame>{almost});
  const PortCounters c = a->counters();
  EXPECT_EQ(c.rx_frames, 1u);
  EXPECT_EQ(c.rx_dropped_runt + c.rx_dropped_oversize + c.rx_dropped_no_receiver, 0u);
}

TEST_P(UdpPortTest, RawPeerSeesExactlyTheFrameAndMayInjectGarbage) {
  // The peer is a plain UDP socket at port_b, as QEMU's -netdev dgram would be.
  UniqueFd peer = bound_udp_socket(GetParam(), port_b);
  ASSERT_TRUE(peer);
  auto a = make_a();
  FrameSink at_a;
  a->set_receiver(at_a.receiver());

  const Frame frame = make_frame(1514, 9);
  a->send(frame);
  std::vector<std::byte> buffer(65536);
  ssize_t n = -1;
  ASSERT_TRUE(run_until(loop, [&] {
    if (n < 0)
      n = ::recv(peer.get(), buffer.data(), buffer.size(), MSG_DONTWAIT);
    return n >= 0;
  }));
  ASSERT_EQ(n, 1514) << "one frame per datagram, no FCS, no header";
  EXPECT_EQ(Frame(buffer.begin(), buffer.begin() + n), frame);

  const std::byte garbage[3] = {std::byte{'h'}, std::byte{'i'}, std::byte{'!'}};
  send_to_a(peer.get(), garbage);
  send_to_a(peer.get(), {});
  send_to_a(peer.get(), make_frame(kMaxFrameBytes + 1, 9));
  const Frame good = make_frame(60, 5);
  send_to_a(peer.get(), good);
  ASSERT_TRUE(run_until(loop, [&] { return at_a.frames.size() == 1; }));
  run_until_idle(loop);
  EXPECT_EQ(at_a.frames, std::vector<Frame>{good});
  const PortCounters c = a->counters();
  EXPECT_EQ(c.rx_dropped_runt, 2u);
  EXPECT_EQ(c.rx_dropped_oversize, 1u);
  EXPECT_EQ(c.rx_frames, 1u);
}

TEST_P(UdpPortTest, DatagramsFromAnyoneButThePeerNeverArrive) {
  auto a = make_a();
  auto b = make_b();
  FrameSink at_a;
  a->set_receiver(at_a.receiver());
  UniqueFd stranger = bound_udp_socket(GetParam(), 0);
  ASSERT_TRUE(stranger);
  send_to_a(stranger.get(), make_frame(64, 66));
  const Frame real = make_frame(64, 1);
  b->send(real);
  ASSERT_TRUE(run_until(loop, [&] { return at_a.frames.size() == 1; }));
  run_until_idle(loop);
  EXPECT_EQ(at_a.frames, std::vector<Frame>{real});
}

TEST_P(UdpPortTest, LocalAddressInUseIsAClearError) {
  auto a = make_a();
  try {
    make_a();
    ADD_FAILURE() << "bound the same address twice";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), EADDRINUSE);
    EXPECT_NE(std::string(e.what()).find("is in use"), std::string::npos) << e.what();
  }
}

TEST_P(UdpPortTest, LocalHostThatIsNotOursIsAClearError) {
  // Documentation addresses: never configured on a test machine.
  const std::string foreign = GetParam().family == AF_INET6 ? "[2001:db8::77]" : "192.0.2.77";
  try {
    make_port(loop, "udp:" + foreign + ":4000," + endpoint_text(GetParam(), port_b), {});
    ADD_FAILURE() << "bound to a foreign address";
  } catch (const std::system_error& e) {
    EXPECT_NE(std::string(e.what()).find("is not an address of this host"), std::string::npos)
        << e.what();
  }
}

TEST_P(UdpPortTest, LoopbackPathCarriesTheLargestFrameWhole) {
  const UdpPortSpec udp = std::get<UdpPortSpec>(parse_port_spec(spec(port_a, port_b)));
  UdpPort port(loop, udp);
  EXPECT_GE(port.path_mtu(), 9216 + 48) << "lo's MTU is 64 KiB";
  EXPECT_EQ(UdpPort::fragmentation_warning(GetParam().family, port.path_mtu()), "");
}

INSTANTIATE_TEST_SUITE_P(Families, UdpPortTest,
                         ::testing::Values(Family{AF_INET, "127.0.0.1"}, Family{AF_INET6, "::1"}),
                         [](const auto& info) {
                           return info.param.family == AF_INET6 ? "Ipv6" : "Ipv4";
                         });

TEST(UdpPortMtuTest, FrameLimitSubtractsIpAndUdpHeaders) {
  EXPECT_EQ(UdpPort::unfragmented_frame_limit(AF_INET, 1500), 1472u);
  EXPECT_EQ(UdpPort::unfragmented_frame_limit(AF_INET6, 1500), 1452u);
  EXPECT_EQ(UdpPort::unfragmented_frame_limit(AF_INET, 9216 + 28), kMaxFrameBytes);
  EXPECT_EQ(UdpPort::unfragmented_frame_limit(AF_INET6, 20), 0u);
}

TEST(UdpPortMtuTest, WarningSaysWhichMtuFits) {
  const std::string warning = UdpPort::fragmentation_warning(AF_INET, 1500);
  EXPECT_NE(warning.find("path MTU is 1500 bytes"), std::string::npos) << warning;
  EXPECT_NE(warning.find("frames longer than 1472 bytes"), std::string::npos) << warning;
  EXPECT_NE(warning.find("at or below 1458"), std::string::npos) << warning;
  EXPECT_NE(warning.find("underlay MTU to 9244"), std::string::npos) << warning;
  EXPECT_NE(UdpPort::fragmentation_warning(AF_INET6, 9000).find("underlay MTU to 9264"),
            std::string::npos);
  EXPECT_EQ(UdpPort::fragmentation_warning(AF_INET, 9244), "");
  EXPECT_EQ(UdpPort::fragmentation_warning(AF_INET6, 65536), "");
}

} // namespace
} // namespace ornic::test
