// Spec "tap:IFNAME": the port is a Linux tap interface (IFF_TAP | IFF_NO_PI, no vnet
// header): every frame the NIC sends is received by IFNAME on the host, and every frame the
// host sends out of IFNAME reaches the NIC. The tap can then be put in a bridge with a
// physical NIC, a VXLAN device, another VM's tap or a host rxe device's netdev. This is the
// framing of QEMU's `-netdev tap,ifname=IFNAME,script=no,downscript=no,vnet_hdr=off`.
//
// The model never creates an interface: IFNAME must exist as a persistent tap
// (`ip tuntap add dev IFNAME mode tap user USER`). Attaching to a tap owned by the model's
// user needs no privilege. A tap has one user at a time; a busy tap is an error.
//
// Link rule: the link is up while the tap interface is administratively up (IFF_UP),
// checked every kProbeInterval and on every failed send (EIO: the tap is down). A frame sent
// while the link is down is dropped and counted (tx_dropped_no_peer). When the interface
// disappears (deleted, or replaced by a new one of the same name) the port closes its
// descriptor and the link goes down; when a tap of that name exists again the port attaches
// to it on the next probe.
#pragma once

#include <chrono>
#include <string>

#include "port/datagram_port.hpp"

namespace ornic {

class TapPort final : public DatagramPort {
public:
  static constexpr std::chrono::milliseconds kProbeInterval{100};

  // Throws std::runtime_error with the reason and the fix when IFNAME does not exist, is
  // not a persistent single-queue tap, is in use, or may not be opened by this user.
  TapPort(EventLoop& loop, std::string ifname);
  ~TapPort() override;

private:
  ssize_t write_datagram(std::span<const std::byte> frame) override;
  ssize_t read_datagram(std::span<std::byte> buffer) override;
  // A tap reports EPOLLERR only when its interface is gone, and has nothing to clear.
  int take_pending_error() override { return -1; }
  Verdict classify(int error) override;

  // Opens /dev/net/tun attached to IFNAME and records its ifindex.
  UniqueFd open_tap();
  void probe_and_rearm();
  void probe();

  const std::string ifname_;
  unsigned ifindex_ = 0;
  UniqueFd control_; // for SIOCGIFFLAGS
  EventLoop::TimerId probe_timer_ = 0;
  RateLimitedLog reattach_log_;
};

} // namespace ornic
