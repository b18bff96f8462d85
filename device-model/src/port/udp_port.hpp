// Spec "udp:LHOST:LPORT,RHOST:RPORT": a point-to-point link over UDP (IPv4 or IPv6), one
// raw Ethernet frame (no FCS, no vnet header) per datagram. That is what QEMU's
// `-netdev dgram,local.type=inet,...` sends and expects (QEMU 7.2+, IPv4 only there), so
// the peer can be another ornic model on another host or a QEMU NIC.
//
// The socket is bound to LHOST:LPORT and connect()ed to RHOST:RPORT: the kernel then only
// delivers datagrams from RHOST:RPORT (nobody else can inject frames) and reports an ICMP
// port unreachable from the peer's host as ECONNREFUSED.
//
// Link rule: UDP has no carrier. The link is up from the start; an ECONNREFUSED (on a send
// or as the socket's pending error) takes it down; the next datagram from the peer brings
// it up again. Frames handed to send() while it is down are still sent: one may be what
// the peer needs to hear, and the transport retries anyway. Refused sends count in
// tx_dropped_no_peer.
//
// Fragmentation: a frame larger than the path MTU minus the IP and UDP headers goes out as
// IP fragments (the socket does not set DF for it), which works but costs. The port warns
// at start when the path MTU the kernel knows for RHOST cannot carry kMaxFrameBytes whole,
// and says which Ethernet MTU would fit.
#pragma once

#include <string>

#include "port/datagram_port.hpp"
#include "port/port_spec.hpp"

namespace ornic {

class UdpPort final : public DatagramPort {
public:
  // Asked for; the kernel caps them at net.core.{r,w}mem_max.
  static constexpr int kSocketBufferBytes = 4 << 20;

  // Throws std::system_error (with a message naming the address) when the socket cannot be
  // bound (address in use, not an address of this host) or connected (no route).
  UdpPort(EventLoop& loop, const UdpPortSpec& spec);

  // The largest frame that fits one datagram on a path of `path_mtu` bytes.
  static size_t unfragmented_frame_limit(int family, int path_mtu);
  // What to tell the user when frames of up to kMaxFrameBytes cannot cross a path of
  // `path_mtu` bytes unfragmented; empty when they can.
  static std::string fragmentation_warning(int family, int path_mtu);
  // The path MTU the kernel knows for the connected peer, or -1.
  int path_mtu() const;

private:
  Verdict classify(int error) override;
  void frame_received() override { set_link(true, "datagram from the peer"); }

  const UdpPortSpec spec_;
};

} // namespace ornic
