#include "port/port_spec.hpp"

#include <charconv>
#include <cstring>
#include <stdexcept>

#include <arpa/inet.h>

#include <net/if.h>

#include "port/unix_address.hpp"

namespace ornic {
namespace {

constexpr std::string_view kUnixPrefix = "unix:";
constexpr std::string_view kShmPrefix = "shm:";
constexpr std::string_view kUdpPrefix = "udp:";
constexpr std::string_view kTapPrefix = "tap:";
constexpr std::string_view kAcceptedForms =
    "expected 'none', 'loopback', 'unix:LOCAL_PATH,PEER_PATH' (two AF_UNIX socket paths: "
    "this port binds LOCAL_PATH and sends to PEER_PATH), 'shm:LOCAL_PATH,PEER_PATH' (another "
    "model on this host, over shared memory; rendezvous at the AF_UNIX socket paths), "
    "'udp:LHOST:LPORT,RHOST:RPORT' "
    "(numeric addresses, IPv6 in brackets as in [::1]:5000) or 'tap:IFNAME' (an existing tap "
    "interface)";

// The spec is quoted in error messages; control bytes (a NUL would cut what() short) are
// shown as \xNN.
std::string printable(std::string_view text) {
  std::string result;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte != 0x7f) {
      result += c;
      continue;
    }
    constexpr char kHex[] = "0123456789abcdef";
    result += "\\x";
    result += kHex[byte >> 4];
    result += kHex[byte & 0xf];
  }
  return result;
}

[[noreturn]] void reject(std::string_view spec, std::string_view why) {
  throw std::invalid_argument("invalid port spec '" + printable(spec) + "': " + std::string(why) +
                              "; " + std::string(kAcceptedForms));
}

[[noreturn]] void bad(const std::string& why) {
  throw std::invalid_argument(why);
}

// Splits "A,B" into A and B; exactly one comma.
std::pair<std::string_view, std::string_view> split_pair(std::string_view spec,
                                                         std::string_view body,
                                                         std::string_view first,
                                                         std::string_view second) {
  const size_t comma = body.find(',');
  if (comma == std::string_view::npos)
    reject(spec, "missing ',' between " + std::string(first) + " and " + std::string(second));
  if (body.find(',', comma + 1) != std::string_view::npos)
    reject(spec, "more than one ','");
  return {body.substr(0, comma), body.substr(comma + 1)};
}

// unix: and shm: take the same two socket paths.
template <typename Spec>
Spec parse_path_pair_spec(std::string_view spec, std::string_view prefix) {
  const auto [local, peer] =
      split_pair(spec, spec.substr(prefix.size()), "LOCAL_PATH", "PEER_PATH");
  Spec result{std::string(local), std::string(peer)};
  try {
    make_unix_address(result.local_path, "LOCAL_PATH");
    make_unix_address(result.peer_path, "PEER_PATH");
  } catch (const std::invalid_argument& e) {
    reject(spec, e.what());
  }
  if (result.local_path == result.peer_path)
    reject(spec, "LOCAL_PATH and PEER_PATH are the same socket");
  return result;
}

uint16_t parse_udp_port(std::string_view text, const std::string& what) {
  if (text.empty())
    bad(what + ": empty port number");
  unsigned value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.size() > 5)
    bad(what + ": port '" + printable(text) + "' is not a number");
  if (value == 0 || value > 65535)
    bad(what + ": port " + std::string(text) + " is not in 1..65535");
  return static_cast<uint16_t>(value);
}

// "1.2.3.4:5000" or "[2001:db8::1]:5000" → address; `what` names it in messages.
UdpEndpoint parse_udp_endpoint(std::string_view text, const std::string& what) {
  std::string_view host;
  std::string_view port;
  bool ipv6 = false;
  if (text.empty())
    bad(what + " is empty");
  if (text.starts_with('[')) {
    const size_t close = text.find(']');
    if (close == std::string_view::npos)
      bad(what + ": missing ']' after the IPv6 address");
    host = text.substr(1, close - 1);
    const std::string_view rest = text.substr(close + 1);
    if (!rest.starts_with(':'))
      bad(what + ": expected ':PORT' after ']'");
    port = rest.substr(1);
    ipv6 = true;
  } else {
    const size_t colon = text.find(':');
    if (colon == std::string_view::npos)
      bad(what + ": missing ':PORT'");
    if (text.find(':', colon + 1) != std::string_view::npos)
      bad(what + ": more than one ':' (an IPv6 address goes in brackets, as in [::1]:5000)");
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  if (host.empty())
    bad(what + ": empty host");

  UdpEndpoint endpoint;
  endpoint.host = std::string(host);
  endpoint.port = parse_udp_port(port, what);
  if (ipv6) {
    if (host.find('%') != std::string_view::npos)
      bad(what + ": IPv6 zone ids ('%') are not supported; use a global or ULA address");
    sockaddr_in6 address{};
    address.sin6_family = AF_INET6;
    address.sin6_port = htons(endpoint.port);
    if (::inet_pton(AF_INET6, endpoint.host.c_str(), &address.sin6_addr) != 1)
      bad(what + ": '" + printable(host) + "' is not a numeric IPv6 address");
    std::memcpy(&endpoint.address, &address, sizeof(address));
    endpoint.length = sizeof(address);
  } else {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(endpoint.port);
    if (::inet_pton(AF_INET, endpoint.host.c_str(), &address.sin_addr) != 1)
      bad(what + ": '" + printable(host) +
          "' is not a numeric IPv4 address (host names are not resolved; IPv6 goes in "
          "brackets)");
    std::memcpy(&endpoint.address, &address, sizeof(address));
    endpoint.length = sizeof(address);
  }
  return endpoint;
}

bool is_unspecified(const UdpEndpoint& endpoint) {
  if (endpoint.family() == AF_INET)
    return reinterpret_cast<const sockaddr_in*>(&endpoint.address)->sin_addr.s_addr == INADDR_ANY;
  const in6_addr& a = reinterpret_cast<const sockaddr_in6*>(&endpoint.address)->sin6_addr;
  return IN6_IS_ADDR_UNSPECIFIED(&a);
}

// Multicast, or IPv4 limited broadcast: not a single peer.
bool is_group(const UdpEndpoint& endpoint) {
  if (endpoint.family() == AF_INET) {
    const uint32_t a =
        ntohl(reinterpret_cast<const sockaddr_in*>(&endpoint.address)->sin_addr.s_addr);
    return (a >> 28) == 0xe || a == INADDR_BROADCAST;
  }
  const in6_addr& a = reinterpret_cast<const sockaddr_in6*>(&endpoint.address)->sin6_addr;
  return IN6_IS_ADDR_MULTICAST(&a);
}

UdpPortSpec parse_udp_spec(std::string_view spec) {
  const auto [local_text, remote_text] =
      split_pair(spec, spec.substr(kUdpPrefix.size()), "LHOST:LPORT", "RHOST:RPORT");
  UdpPortSpec result;
  try {
    result.local = parse_udp_endpoint(local_text, "LHOST:LPORT");
    result.remote = parse_udp_endpoint(remote_text, "RHOST:RPORT");
  } catch (const std::invalid_argument& e) {
    reject(spec, e.what());
  }
  if (result.local.family() != result.remote.family())
    reject(spec, "LHOST and RHOST are of different IP families (IPv4 and IPv6)");
  if (is_group(result.local))
    reject(spec, "LHOST is a multicast or broadcast address");
  if (is_unspecified(result.remote))
    reject(spec, "RHOST is the unspecified address; name the peer's address");
  if (is_group(result.remote))
    reject(spec, "RHOST is a multicast or broadcast address; the link is point to point");
  if (result.local.length == result.remote.length &&
      std::memcmp(&result.local.address, &result.remote.address, result.local.length) == 0)
    reject(spec, "LHOST:LPORT and RHOST:RPORT are the same socket");
  return result;
}

// The rule of the kernel's dev_valid_name, plus no control bytes and no '%' (a name with
// "%d" would make the kernel allocate a new interface instead of attaching to one).
TapPortSpec parse_tap_spec(std::string_view spec) {
  const std::string_view name = spec.substr(kTapPrefix.size());
  if (name.empty())
    reject(spec, "empty IFNAME");
  if (name.size() >= IFNAMSIZ)
    reject(spec, "IFNAME is " + std::to_string(name.size()) + " bytes; Linux allows at most " +
                     std::to_string(IFNAMSIZ - 1));
  if (name == "." || name == "..")
    reject(spec, "IFNAME may not be '.' or '..'");
  for (const char c : name) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte <= 0x20 || byte == 0x7f || c == '/' || c == ':' || c == '%')
      reject(spec, "IFNAME may not contain '/', ':', '%', white space or control bytes");
  }
  return TapPortSpec{std::string(name)};
}

} // namespace

std::string UdpEndpoint::to_string() const {
  const std::string port_text = ":" + std::to_string(port);
  return family() == AF_INET6 ? "[" + host + "]" + port_text : host + port_text;
}

PortSpec parse_port_spec(std::string_view spec) {
  if (spec == "none")
    return NullPortSpec{};
  if (spec == "loopback")
    return LoopbackPortSpec{};
  if (spec.starts_with(kUnixPrefix))
    return parse_path_pair_spec<UnixDgramPortSpec>(spec, kUnixPrefix);
  if (spec.starts_with(kShmPrefix))
    return parse_path_pair_spec<ShmPortSpec>(spec, kShmPrefix);
  if (spec.starts_with(kUdpPrefix))
    return parse_udp_spec(spec);
  if (spec.starts_with(kTapPrefix))
    return parse_tap_spec(spec);
  reject(spec, "unknown backend");
}

} // namespace ornic
