// The tap backend against a real tap interface. Creating a tap needs /dev/net/tun and
// CAP_NET_ADMIN: each test makes a network namespace of its own for it (so parallel runs
// cannot collide and the tap dies with the namespace) and is skipped, with the reason, where
// that is not possible. The host side of the tap is played by an AF_PACKET socket; the
// tap's state is changed as `ip link set dev TAP up/down` and `ip link del TAP` do.
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/if_packet.h>
#include <linux/if_tun.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <net/ethernet.h>
#include <net/if.h>

#include "common/unique_fd.hpp"
#include "port/port.hpp"
#include "port/tap_port.hpp"
#include "port_test_support.hpp"

namespace ornic::test {
namespace {

constexpr char kTap[] = "orntest0";
constexpr uint16_t kTestEtherType = 0x88b5; // IEEE local experimental: the stack ignores it

bool has_test_ethertype(std::span<const std::byte> frame) {
  return frame.size() >= 14 && std::to_integer<unsigned>(frame[12]) == (kTestEtherType >> 8) &&
         std::to_integer<unsigned>(frame[13]) == (kTestEtherType & 0xff);
}

ifreq request_for(const char* name) {
  ifreq request{};
  std::strncpy(request.ifr_name, name, IFNAMSIZ - 1);
  return request;
}

// `ip tuntap add dev NAME mode tap` (persistent, single queue, no vnet header), or the
// errno that prevented it; `tun` makes a tun-mode device instead.
int create_persistent_tap(const char* name, bool tun = false) {
  UniqueFd fd(::open("/dev/net/tun", O_RDWR | O_CLOEXEC));
  if (!fd)
    return errno;
  ifreq request = request_for(name);
  request.ifr_flags = static_cast<short>((tun ? IFF_TUN : IFF_TAP) | IFF_NO_PI);
  if (::ioctl(fd.get(), TUNSETIFF, &request) != 0 || ::ioctl(fd.get(), TUNSETPERSIST, 1) != 0)
    return errno;
  return 0;
}

// `ip link set dev NAME up|down`.
void set_admin_up(const char* name, bool up) {
  UniqueFd control(::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  ifreq request = request_for(name);
  ASSERT_EQ(::ioctl(control.get(), SIOCGIFFLAGS, &request), 0) << std::strerror(errno);
  request.ifr_flags =
      static_cast<short>(up ? request.ifr_flags | IFF_UP : request.ifr_flags & ~IFF_UP);
  ASSERT_EQ(::ioctl(control.get(), SIOCSIFFLAGS, &request), 0) << std::strerror(errno);
}

// `ip link del NAME`, over rtnetlink.
void delete_link(const char* name) {
  const unsigned index = ::if_nametoindex(name);
  ASSERT_NE(index, 0u);
  UniqueFd netlink(::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE));
  ASSERT_TRUE(netlink);
  struct {
    nlmsghdr header;
    ifinfomsg info;
  } request{};
  request.header.nlmsg_len = sizeof(request);
  request.header.nlmsg_type = RTM_DELLINK;
  request.header.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
  request.header.nlmsg_seq = 1;
  request.info.ifi_family = AF_UNSPEC;
  request.info.ifi_index = static_cast<int>(index);
  ASSERT_EQ(::send(netlink.get(), &request, sizeof(request), 0),
            static_cast<ssize_t>(sizeof(request)));
  alignas(nlmsghdr) char answer[4096];
  const ssize_t n = ::recv(netlink.get(), answer, sizeof(answer), 0);
  ASSERT_GE(n, static_cast<ssize_t>(sizeof(nlmsghdr) + sizeof(nlmsgerr)));
  const auto* header = reinterpret_cast<const nlmsghdr*>(answer);
  ASSERT_EQ(header->nlmsg_type, NLMSG_ERROR);
  EXPECT_EQ(static_cast<const nlmsgerr*>(NLMSG_DATA(header))->error, 0);
}

// The host's end of the tap: sends frames out of it and sees the frames it receives.
class HostSide {
public:
  explicit HostSide(const char* name)
      : fd_(::socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL))) {
    sockaddr_ll address{};
    address.sll_family = AF_PACKET;
    address.sll_protocol = htons(ETH_P_ALL);
    address.sll_ifindex = static_cast<int>(::if_nametoindex(name));
    bound_ = fd_ && ::bind(fd_.get(), reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
  }
  bool ok() const { return bound_; }
  void send(const Frame& frame) {
    ASSERT_EQ(::send(fd_.get(), frame.data(), frame.size(), 0), static_cast<ssize_t>(frame.size()))
        << std::strerror(errno);
  }
  // Frames of the test EtherType the interface received (not those it sent).
  std::vector<Frame> take_received() {
    std::vector<Frame> frames;
    std::vector<std::byte> buffer(65536);
    for (;;) {
      sockaddr_ll from{};
      socklen_t length = sizeof(from);
      const ssize_t n = ::recvfrom(fd_.get(), buffer.data(), buffer.size(), MSG_DONTWAIT,
                                   reinterpret_cast<sockaddr*>(&from), &length);
      if (n < 0)
        return frames;
      if (from.sll_pkttype == PACKET_OUTGOING ||
          !has_test_ethertype(std::span(buffer).first(static_cast<size_t>(n))))
        continue;
      frames.emplace_back(buffer.begin(), buffer.begin() + n);
    }
  }

private:
  UniqueFd fd_;
  bool bound_ = false;
};

// Keeps only the test's frames: the kernel sends its own (IPv6 router solicitations, MLD)
// out of a tap that comes up.
Port::Receiver test_frames_into(std::vector<Frame>& frames) {
  return [&frames](std::span<const std::byte> f) {
    if (has_test_ethertype(f))
      frames.emplace_back(f.begin(), f.end());
  };
}

// Sends a frame from the host until the port has one, then forgets it: the kernel gives a
// tap its queueing discipline only when linkwatch handles the carrier change (up to a second
// after the port attached, later under load), and drops what is sent before that unseen.
void wait_for_host_path(EventLoop& loop, HostSide& host, std::vector<Frame>& at_port) {
  const Frame probe = make_frame(60, 0xee, kTestEtherType);
  for (int i = 0; i < 300 && at_port.empty(); ++i) {
    host.send(probe);
    run_until(loop, [&] { return !at_port.empty(); }, std::chrono::milliseconds(100));
  }
  ASSERT_FALSE(at_port.empty()) << "no frame from the host reached the port in 30 s";
  run_until_idle(loop);
  for (const Frame& frame : at_port)
    ASSERT_EQ(frame, probe);
  at_port.clear();
}

class TapPortTest : public ::testing::Test {
protected:
  void SetUp() override {
    original_netns_ = UniqueFd(::open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC));
    if (!original_netns_)
      GTEST_SKIP() << "cannot open /proc/self/ns/net: " << std::strerror(errno);
    if (::unshare(CLONE_NEWNET) != 0)
      GTEST_SKIP() << "cannot make a private network namespace for the tap ("
                   << std::strerror(errno) << "): needs CAP_SYS_ADMIN";
    in_private_netns_ = true;
    if (const int error = create_persistent_tap(kTap))
      GTEST_SKIP() << "cannot create a tap (" << std::strerror(error)
                   << "): needs /dev/net/tun and CAP_NET_ADMIN";
  }
  void TearDown() override {
    if (in_private_netns_ && ::setns(original_netns_.get(), CLONE_NEWNET) != 0)
      ADD_FAILURE() << "cannot return to the original network namespace";
  }

  EventLoop loop;

private:
  UniqueFd original_netns_;
  bool in_private_netns_ = false;
};

TEST_F(TapPortTest, FramesTravelBothWaysAndTheLinkFollowsTheTap) {
  auto port = make_port(loop, std::string("tap:") + kTap, {});
  std::vector<bool> changes;
  port->set_link_listener([&](bool up) { changes.push_back(up); });
  std::vector<Frame> at_port;
  port->set_receiver(test_frames_into(at_port));
  EXPECT_FALSE(port->link_up()) << "a new tap is down";

  set_admin_up(kTap, true);
  ASSERT_TRUE(run_until(loop, [&] { return port->link_up(); }));
  HostSide host(kTap);
  ASSERT_TRUE(host.ok()) << std::strerror(errno);
  ASSERT_NO_FATAL_FAILURE(wait_for_host_path(loop, host, at_port));

  // Host → port: frames of several sizes, byte exact, no header added or removed.
  std::vector<Frame> from_host;
  for (size_t size : {size_t{60}, size_t{1514}})
    from_host.push_back(make_frame(size, static_cast<uint8_t>(size), kTestEtherType));
  for (const Frame& frame : from_host)
    host.send(frame);
  ASSERT_TRUE(run_until(loop, [&] { return at_port.size() == from_host.size(); }));
  EXPECT_EQ(at_port, from_host);

  // Port → host.
  std::vector<Frame> from_port, at_host;
  for (size_t size : {size_t{14}, size_t{64}, size_t{1514}})
    from_port.push_back(make_frame(size, static_cast<uint8_t>(size + 1), kTestEtherType));
  for (const Frame& frame : from_port)
    port->send(frame);
  ASSERT_TRUE(run_until(loop, [&] {
    for (Frame& frame : host.take_received())
      at_host.push_back(std::move(frame));
    return at_host.size() == from_port.size();
  }));
  EXPECT_EQ(at_host, from_port);
  EXPECT_EQ(port->counters().tx_frames, from_port.size());

  // `ip link set down`: the link goes down, a frame sent meanwhile is dropped and counted.
  set_admin_up(kTap, false);
  ASSERT_TRUE(run_until(loop, [&] { return !port->link_up(); }));
  const uint64_t dropped = port->counters().tx_dropped_no_peer;
  port->send(make_frame(64, 99, kTestEtherType));
  EXPECT_EQ(port->counters().tx_dropped_no_peer, dropped + 1);
  EXPECT_EQ(port->counters().tx_frames, from_port.size());

  // `ip link set up`: back up, and frames flow again.
  set_admin_up(kTap, true);
  ASSERT_TRUE(run_until(loop, [&] { return port->link_up(); }));
  const Frame again = make_frame(100, 7, kTestEtherType);
  port->send(again);
  at_host.clear();
  ASSERT_TRUE(run_until(loop, [&] {
    for (Frame& frame : host.take_received())
      at_host.push_back(std::move(frame));
    return !at_host.empty();
  }));
  EXPECT_EQ(at_host, std::vector<Frame>{again}) << "the frame sent while down never arrives";
  run_until_idle(loop);
  EXPECT_EQ(changes, (std::vector<bool>{true, false, true}));
}

TEST_F(TapPortTest, VanishedTapTakesTheLinkDownWithoutSpinAndIsFoundAgain) {
  set_admin_up(kTap, true);
  auto port = make_port(loop, std::string("tap:") + kTap, {});
  std::vector<Frame> at_port;
  port->set_receiver(test_frames_into(at_port));
  ASSERT_TRUE(port->link_up());

  delete_link(kTap);
  ASSERT_TRUE(run_until(loop, [&] { return !port->link_up(); }));
  // Neither the dead descriptor (EPOLLERR forever, were it still registered) nor the probe
  // keeps the loop busy; sending is harmless.
  EXPECT_LT(busy_iterations(loop, std::chrono::milliseconds(500)), 15);
  const uint64_t dropped = port->counters().tx_dropped_no_peer;
  port->send(make_frame(64, 1, kTestEtherType));
  EXPECT_EQ(port->counters().tx_dropped_no_peer, dropped + 1);

  // A new tap of that name: the port attaches to it and follows its state.
  ASSERT_EQ(create_persistent_tap(kTap), 0);
  set_admin_up(kTap, true);
  ASSERT_TRUE(run_until(loop, [&] { return port->link_up(); }));
  HostSide host(kTap);
  ASSERT_TRUE(host.ok());
  ASSERT_NO_FATAL_FAILURE(wait_for_host_path(loop, host, at_port));
  const Frame frame = make_frame(200, 3, kTestEtherType);
  host.send(frame);
  ASSERT_TRUE(run_until(loop, [&] { return at_port.size() == 1; }));
  EXPECT_EQ(at_port[0], frame);
}

TEST_F(TapPortTest, UnusableInterfacesAreRefusedWithTheReason) {
  auto expect_refused = [&](const std::string& ifname, const std::string& reason) {
    try {
      make_port(loop, "tap:" + ifname, {});
      ADD_FAILURE() << "attached to " << ifname;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
    }
  };
  expect_refused("orntest9", "no such interface; create a persistent tap first");
  EXPECT_EQ(::if_nametoindex("orntest9"), 0u) << "the model never creates an interface";
  expect_refused("lo", "not a single-queue tap");
  ASSERT_EQ(create_persistent_tap("orntun0", /*tun=*/true), 0);
  expect_refused("orntun0", "not a single-queue tap");
  auto port = make_port(loop, std::string("tap:") + kTap, {});
  expect_refused(kTap, "in use by another process");
}

TEST(TapPortNoPrivilegeTest, MissingInterfaceIsRefusedBeforeAnythingIsOpened) {
  EventLoop loop;
  try {
    make_port(loop, "tap:ornnotthere0", {});
    ADD_FAILURE() << "attached to a tap that does not exist";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("ip tuntap add dev ornnotthere0 mode tap"),
              std::string::npos)
        << e.what();
  }
}

} // namespace
} // namespace ornic::test
