#include "port/port_spec.hpp"

#include <stdexcept>

#include "port/unix_address.hpp"

namespace ornic {
namespace {

constexpr std::string_view kUnixPrefix = "unix:";
constexpr std::string_view kAcceptedForms =
    "expected 'none', 'loopback' or 'unix:LOCAL_PATH,PEER_PATH' (two AF_UNIX socket paths: "
    "this port binds LOCAL_PATH and sends to PEER_PATH)";

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

UnixDgramPortSpec parse_unix_spec(std::string_view spec) {
  const std::string_view paths = spec.substr(kUnixPrefix.size());
  const size_t comma = paths.find(',');
  if (comma == std::string_view::npos)
    reject(spec, "missing ',' between LOCAL_PATH and PEER_PATH");
  if (paths.find(',', comma + 1) != std::string_view::npos)
    reject(spec, "more than one ','");
  UnixDgramPortSpec result{std::string(paths.substr(0, comma)),
                           std::string(paths.substr(comma + 1))};
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

} // namespace

PortSpec parse_port_spec(std::string_view spec) {
  if (spec == "none")
    return NullPortSpec{};
  if (spec == "loopback")
    return LoopbackPortSpec{};
  if (spec.starts_with(kUnixPrefix))
    return parse_unix_spec(spec);
  reject(spec, "unknown backend");
}

} // namespace ornic
