#include <cstring>
#include <stdexcept>
#include <string>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <gtest/gtest.h>

#include "common/event_loop.hpp"
#include "port/port.hpp"
#include "port/port_spec.hpp"

namespace ornic::test {
namespace {

using namespace std::string_literals;

TEST(PortSpecTest, AcceptsTheUnixLoopbackAndNullBackends) {
  EXPECT_TRUE(std::holds_alternative<NullPortSpec>(parse_port_spec("none")));
  EXPECT_TRUE(std::holds_alternative<LoopbackPortSpec>(parse_port_spec("loopback")));
  const PortSpec spec = parse_port_spec("unix:/run/a.sock,rel/b.sock");
  ASSERT_TRUE(std::holds_alternative<UnixDgramPortSpec>(spec));
  EXPECT_EQ(std::get<UnixDgramPortSpec>(spec).local_path, "/run/a.sock");
  EXPECT_EQ(std::get<UnixDgramPortSpec>(spec).peer_path, "rel/b.sock");
}

TEST(PortSpecTest, AcceptsShm) {
  const PortSpec spec = parse_port_spec("shm:/run/o/a.shm,/run/o/b.shm");
  ASSERT_TRUE(std::holds_alternative<ShmPortSpec>(spec));
  EXPECT_EQ(std::get<ShmPortSpec>(spec).local_path, "/run/o/a.shm");
  EXPECT_EQ(std::get<ShmPortSpec>(spec).peer_path, "/run/o/b.shm");
}

TEST(PortSpecTest, AcceptsUdpOverIpv4) {
  const PortSpec spec = parse_port_spec("udp:127.0.0.1:4800,192.0.2.7:65535");
  ASSERT_TRUE(std::holds_alternative<UdpPortSpec>(spec));
  const UdpPortSpec& udp = std::get<UdpPortSpec>(spec);
  EXPECT_EQ(udp.local.family(), AF_INET);
  EXPECT_EQ(udp.local.length, sizeof(sockaddr_in));
  EXPECT_EQ(udp.local.host, "127.0.0.1");
  EXPECT_EQ(udp.local.port, 4800);
  EXPECT_EQ(udp.remote.host, "192.0.2.7");
  EXPECT_EQ(udp.remote.port, 65535);
  const auto* remote = reinterpret_cast<const sockaddr_in*>(&udp.remote.address);
  EXPECT_EQ(ntohs(remote->sin_port), 65535);
  EXPECT_EQ(ntohl(remote->sin_addr.s_addr), 0xc0000207u);
  EXPECT_EQ(udp.local.to_string(), "127.0.0.1:4800");
}

TEST(PortSpecTest, AcceptsUdpOverIpv6InBrackets) {
  const PortSpec spec = parse_port_spec("udp:[::]:1,[2001:db8::1]:5000");
  ASSERT_TRUE(std::holds_alternative<UdpPortSpec>(spec));
  const UdpPortSpec& udp = std::get<UdpPortSpec>(spec);
  EXPECT_EQ(udp.local.family(), AF_INET6);
  EXPECT_EQ(udp.remote.family(), AF_INET6);
  EXPECT_EQ(udp.remote.length, sizeof(sockaddr_in6));
  EXPECT_EQ(udp.local.port, 1);
  EXPECT_EQ(udp.remote.port, 5000);
  const auto* remote = reinterpret_cast<const sockaddr_in6*>(&udp.remote.address);
  in6_addr expected{};
  ASSERT_EQ(inet_pton(AF_INET6, "2001:db8::1", &expected), 1);
  EXPECT_EQ(std::memcmp(&remote->sin6_addr, &expected, sizeof(expected)), 0);
  EXPECT_EQ(ntohs(remote->sin6_port), 5000);
  EXPECT_EQ(udp.remote.to_string(), "[2001:db8::1]:5000");
  // The same port on both ends is fine as long as the hosts differ; a wildcard local too.
  EXPECT_NO_THROW(parse_port_spec("udp:[::1]:5000,[::2]:5000"));
  EXPECT_NO_THROW(parse_port_spec("udp:0.0.0.0:5000,10.0.0.2:5000"));
}

TEST(PortSpecTest, AcceptsTap) {
  const PortSpec spec = parse_port_spec("tap:ornictap0");
  ASSERT_TRUE(std::holds_alternative<TapPortSpec>(spec));
  EXPECT_EQ(std::get<TapPortSpec>(spec).ifname, "ornictap0");
  EXPECT_NO_THROW(parse_port_spec("tap:" + std::string(15, 't'))); // IFNAMSIZ - 1
  EXPECT_NO_THROW(parse_port_spec("tap:my-tap.1_x"));
}

// Every malformed spec is refused with a message that names what is wrong and lists the
// accepted forms.
void expect_rejected(const std::string& spec, const std::string& reason) {
  try {
    parse_port_spec(spec);
    ADD_FAILURE() << "accepted '" << spec << "'";
  } catch (const std::invalid_argument& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(reason), std::string::npos) << spec << " -> " << message;
    EXPECT_NE(message.find("udp:LHOST:LPORT,RHOST:RPORT"), std::string::npos) << message;
    EXPECT_NE(message.find("tap:IFNAME"), std::string::npos) << message;
  }
}

TEST(PortSpecTest, RejectsMalformedUdpSpecs) {
  const std::pair<std::string, std::string> cases[] = {
      {"udp:", "missing ','"},
      {"udp:127.0.0.1:1", "missing ','"},
      {"udp:127.0.0.1:1,127.0.0.1:2,127.0.0.1:3", "more than one ','"},
      {"udp:,127.0.0.1:2", "LHOST:LPORT is empty"},
      {"udp:127.0.0.1:1,", "RHOST:RPORT is empty"},
      {"udp:127.0.0.1,127.0.0.1:2", "LHOST:LPORT: missing ':PORT'"},
      {"udp::1,127.0.0.1:2", "empty host"},
      {"udp:127.0.0.1:,127.0.0.1:2", "empty port number"},
      {"udp:127.0.0.1:0,127.0.0.1:2", "not in 1..65535"},
      {"udp:127.0.0.1:65536,127.0.0.1:2", "not in 1..65535"},
      {"udp:127.0.0.1:99999999999,127.0.0.1:2", "is not a number"},
      {"udp:127.0.0.1:-1,127.0.0.1:2", "is not a number"},
      {"udp:127.0.0.1:+1,127.0.0.1:2", "is not a number"},
      {"udp:127.0.0.1:1x,127.0.0.1:2", "is not a number"},
      {"udp:127.0.0.1: 1,127.0.0.1:2", "is not a number"},
      {"udp:localhost:1,127.0.0.1:2", "not a numeric IPv4 address"},
      {"udp:127.1:1,127.0.0.1:2", "not a numeric IPv4 address"},
      {"udp:256.0.0.1:1,127.0.0.1:2", "not a numeric IPv4 address"},
      {"udp:::1:5000,::1:5001", "IPv6 address goes in brackets"},
      {"udp:[::1:5000,[::1]:5001", "missing ']'"},
      {"udp:[::1]5000,[::1]:5001", "expected ':PORT' after ']'"},
      {"udp:[]:5000,[::1]:5001", "empty host"},
      {"udp:[127.0.0.1]:5000,[::1]:5001", "not a numeric IPv6 address"},
      {"udp:[fe80::1%eth0]:5000,[fe80::2]:5001", "zone ids"},
      {"udp:[::1]:5000,127.0.0.1:5001", "different IP families"},
      {"udp:127.0.0.1:5000,[::1]:5001", "different IP families"},
      {"udp:127.0.0.1:5000,0.0.0.0:5001", "RHOST is the unspecified address"},
      {"udp:[::1]:5000,[::]:5001", "RHOST is the unspecified address"},
      {"udp:127.0.0.1:5000,239.1.2.3:5001", "RHOST is a multicast"},
      {"udp:127.0.0.1:5000,255.255.255.255:5001", "RHOST is a multicast or broadcast"},
      {"udp:[::1]:5000,[ff02::1]:5001", "RHOST is a multicast"},
      {"udp:224.0.0.1:5000,127.0.0.1:5001", "LHOST is a multicast"},
      {"udp:127.0.0.1:5000,127.0.0.1:5000", "the same socket"},
      {"udp:[::1]:5000,[::1]:5000", "the same socket"},
      {"udp:127.0.0.1:1\0,127.0.0.1:2"s, "is not a number"},
  };
  for (const auto& [spec, reason] : cases)
    expect_rejected(spec, reason);
}

TEST(PortSpecTest, RejectsMalformedTapSpecs) {
  const std::pair<std::string, std::string> cases[] = {
      {"tap:", "empty IFNAME"},        {"tap:" + std::string(16, 't'), "Linux allows at most 15"},
      {"tap:.", "'.' or '..'"},        {"tap:..", "'.' or '..'"},
      {"tap:a/b", "may not contain"},  {"tap:a:b", "may not contain"},
      {"tap:a b", "may not contain"},  {"tap:tap%d", "may not contain"},
      {"tap:a\tb", "may not contain"}, {"tap:a\0b"s, "may not contain"},
      {"tap", "unknown backend"},      {"TAP:x", "unknown backend"},
  };
  for (const auto& [spec, reason] : cases)
    expect_rejected(spec, reason);
}

TEST(PortSpecTest, RejectsBadSpecsWithAHelpfulMessage) {
  const std::string too_long(108, 'x');
  const std::string bad_specs[] = {
      "",
      "bogus",
      "Loopback",
      "none ",
      "unix",
      "unix:",
      "unix:a",
      "unix:,b",
      "unix:a,",
      "unix:a,b,c",
      "unix:a,a",
      "shm:",
      "shm:a",
      "shm:a,",
      "shm:a,b,c",
      "shm:a,a",
      "shm:a," + too_long,
      "tcp:a,b",
      "unix:" + too_long + ",b",
      "unix:a," + too_long,
      std::string("unix:a\0x,b", 10),
  };
  for (const std::string& spec : bad_specs) {
    try {
      parse_port_spec(spec);
      ADD_FAILURE() << "accepted '" << spec << "'";
    } catch (const std::invalid_argument& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("unix:LOCAL_PATH,PEER_PATH"), std::string::npos) << message;
      EXPECT_NE(message.find("shm:LOCAL_PATH,PEER_PATH"), std::string::npos) << message;
    }
  }
}

TEST(PortSpecTest, ControlBytesInTheSpecAreEscapedInTheMessage) {
  try {
    parse_port_spec(std::string("unix:a\0x,b", 10));
    ADD_FAILURE() << "accepted a path with a NUL byte";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'unix:a\\x00x,b'"), std::string::npos) << e.what();
  }
}

TEST(PortSpecTest, LongestAllowedPathIsAccepted) {
  const std::string longest(107, 'p');
  EXPECT_NO_THROW(parse_port_spec("unix:" + longest + ",b"));
}

TEST(PortSpecTest, MakePortThrowsInvalidArgumentOnABadSpec) {
  EventLoop loop;
  EXPECT_THROW(make_port(loop, "bogus", {}), std::invalid_argument);
  EXPECT_THROW(make_port(loop, "unix:only-one-path", {}), std::invalid_argument);
}

TEST(PortSpecTest, MakePortBuildsEachBackend) {
  EventLoop loop;
  EXPECT_FALSE(make_port(loop, "none", {})->link_up());
  EXPECT_TRUE(make_port(loop, "loopback", {})->link_up());
}

} // namespace
} // namespace ornic::test
