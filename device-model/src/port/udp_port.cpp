#include "port/udp_port.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <system_error>

#include <netinet/in.h>
#include <sys/socket.h>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace ornic {
namespace {

constexpr int kUdpHeaderBytes = 8;

[[noreturn]] void throw_errno(int error, const std::string& what) {
  throw std::system_error(error, std::generic_category(), what);
}

void set_int_option(int fd, int level, int option, int value) {
  ::setsockopt(fd, level, option, &value, sizeof(value));
}

constexpr std::array<std::byte, UdpPort::kProbeFrameBytes> make_probe_frame() {
  std::array<std::byte, UdpPort::kProbeFrameBytes> frame{};
  constexpr uint8_t header[] = {
      0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e, // to the nearest bridge's group: never forwarded
      0x02, 0x00, 0x00, 0x00, 0x00, 0x00, // a locally administered source
      0x88, 0xb6,                         // IEEE 802 local experimental EtherType 2
  };
  constexpr char text[] = "ornic udp link probe";
  size_t at = 0;
  for (const uint8_t byte : header)
    frame[at++] = std::byte{byte};
  for (size_t i = 0; i + 1 < sizeof(text); ++i)
    frame[at++] = static_cast<std::byte>(text[i]);
  return frame; // the rest is zero padding up to the minimum frame
}

constexpr std::array<std::byte, UdpPort::kProbeFrameBytes> kProbeFrame = make_probe_frame();

} // namespace

UdpPort::UdpPort(EventLoop& loop, const UdpPortSpec& spec)
    : DatagramPort(loop, "udp:" + spec.local.to_string(), true), spec_(spec) {
  const int family = spec_.local.family();
  UniqueFd socket(::socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!socket) {
    const int error = errno;
    throw_errno(error,
                family == AF_INET6 ? "udp port: socket(AF_INET6)" : "udp port: socket(AF_INET)");
  }
  if (family == AF_INET6)
    set_int_option(socket.get(), IPPROTO_IPV6, IPV6_V6ONLY, 1);
  // Best effort: room for a few windows of a busy QP before the kernel drops on receive.
  set_int_option(socket.get(), SOL_SOCKET, SO_RCVBUF, kSocketBufferBytes);
  set_int_option(socket.get(), SOL_SOCKET, SO_SNDBUF, kSocketBufferBytes);

  if (::bind(socket.get(), spec_.local.get(), spec_.local.length) != 0) {
    const int error = errno;
    const std::string local = spec_.local.to_string();
    if (error == EADDRINUSE)
      throw_errno(error, "udp port: " + local + " is in use (another model or QEMU?)");
    if (error == EADDRNOTAVAIL)
      throw_errno(error, "udp port: " + spec_.local.host + " is not an address of this host");
    throw_errno(error, "udp port: binding to " + local);
  }
  if (::connect(socket.get(), spec_.remote.get(), spec_.remote.length) != 0) {
    const int error = errno;
    throw_errno(error, "udp port: connecting to " + spec_.remote.to_string());
  }
  attach(std::move(socket));
  spdlog::info("port {}: linked to {}", name(), spec_.remote.to_string());
  const int mtu = path_mtu();
  const std::string warning = mtu > 0 ? fragmentation_warning(spec_.local.family(), mtu)
                                      : "cannot read the path MTU; frames too long for it will "
                                        "travel as IP fragments";
  if (!warning.empty())
    spdlog::warn("port {} to {}: {}", name(), spec_.remote.to_string(), warning);
}

UdpPort::~UdpPort() {
  loop().cancel_timer(probe_timer_);
}

std::span<const std::byte> UdpPort::probe_frame() {
  return kProbeFrame;
}

bool UdpPort::consume_control(std::span<const std::byte> datagram) {
  return std::ranges::equal(datagram, kProbeFrame);
}

void UdpPort::frame_sent() {
  if (!link_up() && !unrefused_since_)
    unrefused_since_ = Clock::now();
}

void UdpPort::refused() {
  unrefused_since_.reset();
  if (probing_)
    return;
  probing_ = true;
  probe_timer_ = loop().add_timer(kProbeInterval, [this] { probe_tick(); });
}

void UdpPort::probe_tick() {
  probe_timer_ = 0;
  if (link_up()) {
    probing_ = false;
    return;
  }
  if (unrefused_since_ && Clock::now() - *unrefused_since_ >= kQuietPeriod) {
    probing_ = false;
    set_link(true, "the peer no longer refuses datagrams");
    return;
  }
  probe_timer_ = loop().add_timer(kProbeInterval, [this] { probe_tick(); });
  if (!attached())
    return;
  // Not through send(): a probe is no frame of the NIC's and counts nowhere. A refusal
  // taken here is the peer's answer to an earlier datagram, noted by classify().
  if (::send(fd(), kProbeFrame.data(), kProbeFrame.size(), MSG_DONTWAIT | MSG_NOSIGNAL) >= 0)
    frame_sent();
  else
    classify(errno);
}

size_t UdpPort::unfragmented_frame_limit(int family, int path_mtu) {
  const int headers = (family == AF_INET6 ? 40 : 20) + kUdpHeaderBytes;
  return path_mtu > headers ? static_cast<size_t>(path_mtu - headers) : 0;
}

int UdpPort::path_mtu() const {
  int mtu = 0;
  socklen_t length = sizeof(mtu);
  const bool ipv6 = spec_.local.family() == AF_INET6;
  if (::getsockopt(fd(), ipv6 ? IPPROTO_IPV6 : IPPROTO_IP, ipv6 ? IPV6_MTU : IP_MTU, &mtu,
                   &length) != 0)
    return -1;
  return mtu;
}

std::string UdpPort::fragmentation_warning(int family, int path_mtu) {
  const size_t limit = unfragmented_frame_limit(family, path_mtu);
  if (limit >= kMaxFrameBytes)
    return {};
  const size_t headers = static_cast<size_t>(path_mtu) - limit;
  const size_t ethernet_mtu = limit > 14 ? limit - 14 : 0;
  return fmt::format("the path MTU is {} bytes, so frames longer than {} bytes (an Ethernet MTU "
                     "above {}) travel as IP fragments; the port carries frames of up to {} "
                     "bytes. Raise the underlay MTU to {} or keep the guest's MTU at or below {}",
                     path_mtu, limit, ethernet_mtu, kMaxFrameBytes, kMaxFrameBytes + headers,
                     ethernet_mtu);
}

DatagramPort::Verdict UdpPort::classify(int error) {
  switch (error) {
  case ECONNREFUSED: // ICMP port unreachable: nothing listens at RHOST:RPORT
  case EHOSTUNREACH:
  case ENETUNREACH:
  case EHOSTDOWN:
  case ENETDOWN:
    refused();
    return Verdict::no_peer;
  default: // EMSGSIZE, ENOBUFS, ...: this frame is lost, the link is what it was
    return Verdict::error;
  }
}

} // namespace ornic
