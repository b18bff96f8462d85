// Spec "udp:LHOST:LPORT,RHOST:RPORT": a point-to-point link over UDP (IPv4 or IPv6), one
// raw Ethernet frame (no FCS, no vnet header) per datagram. That is what QEMU's
// `-netdev dgram,local.type=inet,...` sends and expects (QEMU 7.2+, IPv4 only there), so
// the peer can be another ornic model on another host or a QEMU NIC.
//
// The socket is bound to LHOST:LPORT and connect()ed to RHOST:RPORT: the kernel then only
// delivers datagrams from RHOST:RPORT (nobody else can inject frames) and reports an ICMP
// port unreachable from the peer's host as ECONNREFUSED.
//
// Link rule: UDP has no carrier, and a connected UDP socket learns of an absent peer only
// from the ICMP port unreachable its datagrams draw. The link is up from the start; an
// ECONNREFUSED (on a send or as the socket's pending error) takes it down. While it is
// down the port sends a link probe every kProbeInterval, and the link comes back up when
// datagrams (probes or frames) have gone out for kQuietPeriod without one refusal: a peer
// that restarted is found without having to send first. A datagram from the peer brings
// the link up at once. Frames handed to send() while it is down are still sent: one may be
// what the peer needs to hear, and the transport retries anyway. Refused sends count in
// tx_dropped_no_peer. Where ICMP is filtered no refusal arrives and the link stays up.
//
// The link probe is one fixed 60-byte Ethernet frame (probe_frame()): to the link-local
// group 01:80:C2:00:00:0E, which bridges never forward, with the IEEE 802 local
// experimental EtherType 0x88B6 and the text "ornic udp link probe". An ornic peer
// swallows it (it only brings that peer's link up); a QEMU NIC hands it to its guest,
// whose stack drops it. Never an empty datagram: QEMU's -netdev dgram takes one for the
// end of the connection and stops reading for good.
//
// Fragmentation: a frame larger than the path MTU minus the IP and UDP headers goes out as
// IP fragments (the socket does not set DF for it), which works but costs. The port warns
// at start when the path MTU the kernel knows for RHOST cannot carry kMaxFrameBytes whole,
// and says which Ethernet MTU would fit.
#pragma once

#include <chrono>
#include <optional>
#include <span>
#include <string>

#include "port/datagram_port.hpp"
#include "port/port_spec.hpp"

namespace ornic {

class UdpPort final : public DatagramPort {
public:
  // Asked for; the kernel caps them at net.core.{r,w}mem_max.
  static constexpr int kSocketBufferBytes = 4 << 20;
  // While the link is down: how often a probe goes out, and how long datagrams must go
  // unrefused before the link is up again. A remote host sends at most one ICMP error a
  // second to us (net.ipv4.icmp_ratelimit), so the quiet period spans more than one.
  static constexpr std::chrono::milliseconds kProbeInterval{250};
  static constexpr std::chrono::milliseconds kQuietPeriod{1500};
  static constexpr size_t kProbeFrameBytes = 60;

  // Throws std::system_error (with a message naming the address) when the socket cannot be
  // bound (address in use, not an address of this host) or connected (no route).
  UdpPort(EventLoop& loop, const UdpPortSpec& spec);
  ~UdpPort() override;

  // The link probe, byte for byte.
  static std::span<const std::byte> probe_frame();

  // The largest frame that fits one datagram on a path of `path_mtu` bytes.
  static size_t unfragmented_frame_limit(int family, int path_mtu);
  // What to tell the user when frames of up to kMaxFrameBytes cannot cross a path of
  // `path_mtu` bytes unfragmented; empty when they can.
  static std::string fragmentation_warning(int family, int path_mtu);
  // The path MTU the kernel knows for the connected peer, or -1.
  int path_mtu() const;

private:
  using Clock = std::chrono::steady_clock;

  Verdict classify(int error) override;
  void frame_sent() override;
  void frame_received() override { set_link(true, "datagram from the peer"); }
  bool consume_control(std::span<const std::byte> datagram) override;
  void refused();
  void probe_tick();

  const UdpPortSpec spec_;
  EventLoop::TimerId probe_timer_ = 0;
  bool probing_ = false;
  // When the first datagram after the last refusal went out; empty until one has.
  std::optional<Clock::time_point> unrefused_since_;
};

} // namespace ornic
