#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "common/event_loop.hpp"
#include "port/port.hpp"
#include "port/port_spec.hpp"

namespace ornic::test {
namespace {

TEST(PortSpecTest, AcceptsTheThreeBackends) {
  EXPECT_TRUE(std::holds_alternative<NullPortSpec>(parse_port_spec("none")));
  EXPECT_TRUE(std::holds_alternative<LoopbackPortSpec>(parse_port_spec("loopback")));
  const PortSpec spec = parse_port_spec("unix:/run/a.sock,rel/b.sock");
  ASSERT_TRUE(std::holds_alternative<UnixDgramPortSpec>(spec));
  EXPECT_EQ(std::get<UnixDgramPortSpec>(spec).local_path, "/run/a.sock");
  EXPECT_EQ(std::get<UnixDgramPortSpec>(spec).peer_path, "rel/b.sock");
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
