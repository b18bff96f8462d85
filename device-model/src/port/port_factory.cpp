// make_port: spec string → backend, optionally wrapped in faults, shaping, the pcap tap and
// priority flow control.
#include <stdexcept>
#include <string>

#include "port/faulty_port.hpp"
#include "port/loopback_port.hpp"
#include "port/null_port.hpp"
#include "port/pcap_tap.hpp"
#include "port/pfc_port.hpp"
#include "port/port.hpp"
#include "port/port_spec.hpp"
#include "port/shaped_port.hpp"
#include "port/shm_port.hpp"
#include "port/tap_port.hpp"
#include "port/udp_port.hpp"
#include "port/unix_dgram_port.hpp"

namespace ornic {
namespace {

std::unique_ptr<Port> make_backend(EventLoop& loop, const PortSpec& spec) {
  if (std::holds_alternative<LoopbackPortSpec>(spec))
    return std::make_unique<LoopbackPort>(loop);
  if (const auto* unix_spec = std::get_if<UnixDgramPortSpec>(&spec))
    return std::make_unique<UnixDgramPort>(loop, unix_spec->local_path, unix_spec->peer_path);
  if (const auto* shm_spec = std::get_if<ShmPortSpec>(&spec))
    return std::make_unique<ShmPort>(loop, shm_spec->local_path, shm_spec->peer_path);
  if (const auto* udp_spec = std::get_if<UdpPortSpec>(&spec))
    return std::make_unique<UdpPort>(loop, *udp_spec);
  if (const auto* tap_spec = std::get_if<TapPortSpec>(&spec))
    return std::make_unique<TapPort>(loop, tap_spec->ifname);
  return std::make_unique<NullPort>();
}

} // namespace

std::unique_ptr<Port> make_port(EventLoop& loop, std::string_view spec, std::string_view pcap_path,
                                const WireFaults& faults, const LinkShaping& shaping,
                                PortFrames frames, const PfcOptions& pfc, PfcPort** pfc_port) {
  if (pfc_port != nullptr)
    *pfc_port = nullptr;
  const PortSpec parsed = parse_port_spec(spec);
  if (frames == PortFrames::infiniband && std::holds_alternative<TapPortSpec>(parsed))
    throw std::invalid_argument("a tap device carries Ethernet frames; an InfiniBand port needs "
                                "a datagram link (unix:, udp:, shm: or loopback)");
  // Checked before the backend exists, so a refused spec leaves no socket behind.
  if (frames == PortFrames::infiniband && pfc.any())
    throw std::invalid_argument("priority flow control is an Ethernet function; an InfiniBand "
                                "port has none");
  std::unique_ptr<Port> port = make_backend(loop, parsed);
  if (faults.any())
    port = std::make_unique<FaultyPort>(loop, std::move(port), faults);
  if (shaping.any())
    port = std::make_unique<ShapedPort>(loop, std::move(port), shaping);
  if (!pcap_path.empty())
    port = std::make_unique<PcapTap>(loop, std::move(port), std::string(pcap_path),
                                     frames == PortFrames::infiniband
                                         ? PcapTap::Records::infiniband_erf
                                         : PcapTap::Records::ethernet);
  if (!pfc.any())
    return port;
  auto pfc_decorator = std::make_unique<PfcPort>(loop, std::move(port), pfc);
  if (pfc_port != nullptr)
    *pfc_port = pfc_decorator.get();
  return pfc_decorator;
}

} // namespace ornic
