// Parsing of the port spec string given on the model's command line. Pure: nothing here
// touches the system, so every malformed spec is refused before any socket exists.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include <netinet/in.h>
#include <sys/socket.h>

namespace ornic {

struct NullPortSpec {};
struct LoopbackPortSpec {};
struct UnixDgramPortSpec {
  std::string local_path;
  std::string peer_path;
};
struct ShmPortSpec {
  std::string local_path;
  std::string peer_path;
};

// One end of a UDP link: a numeric IPv4 or IPv6 address and a port, ready for bind/connect.
struct UdpEndpoint {
  sockaddr_storage address{};
  socklen_t length = 0;
  std::string host; // as written, without brackets
  uint16_t port = 0;

  int family() const { return address.ss_family; }
  const sockaddr* get() const { return reinterpret_cast<const sockaddr*>(&address); }
  // "1.2.3.4:5000" or "[::1]:5000", for messages.
  std::string to_string() const;
};
struct UdpPortSpec {
  UdpEndpoint local;
  UdpEndpoint remote;
};
struct TapPortSpec {
  std::string ifname;
};

using PortSpec = std::variant<NullPortSpec, LoopbackPortSpec, UnixDgramPortSpec, ShmPortSpec,
                              UdpPortSpec, TapPortSpec>;

// "none", "loopback", "unix:LOCAL_PATH,PEER_PATH" or "shm:LOCAL_PATH,PEER_PATH" (paths
// must not contain a comma),
// "udp:LHOST:LPORT,RHOST:RPORT" (numeric hosts of one family, IPv6 in brackets, ports
// 1..65535) or "tap:IFNAME" (a Linux interface name). Throws std::invalid_argument naming
// the spec, what is wrong with it and the accepted forms.
PortSpec parse_port_spec(std::string_view spec);

} // namespace ornic
