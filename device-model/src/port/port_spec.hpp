// Parsing of the port spec string given on the model's command line.
#pragma once

#include <string>
#include <string_view>
#include <variant>

namespace ornic {

struct NullPortSpec {};
struct LoopbackPortSpec {};
struct UnixDgramPortSpec {
  std::string local_path;
  std::string peer_path;
};
using PortSpec = std::variant<NullPortSpec, LoopbackPortSpec, UnixDgramPortSpec>;

// "none", "loopback" or "unix:LOCAL_PATH,PEER_PATH" (paths must not contain a comma).
// Throws std::invalid_argument naming the spec and the accepted forms.
PortSpec parse_port_spec(std::string_view spec);

} // namespace ornic
