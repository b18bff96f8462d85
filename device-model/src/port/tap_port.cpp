#include "port/tap_port.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <system_error>

#include <fcntl.h>
#include <linux/if_tun.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <net/if.h>
#include <spdlog/spdlog.h>

namespace ornic {
namespace {

[[noreturn]] void fail(const std::string& ifname, const std::string& why) {
  throw std::runtime_error("tap port '" + ifname + "': " + why);
}

std::string describe(int error) {
  return std::generic_category().message(error);
}

ifreq request_for(const std::string& ifname) {
  ifreq request{};
  std::memcpy(request.ifr_name, ifname.data(),
              std::min(ifname.size(), sizeof(request.ifr_name) - 1));
  return request;
}

} // namespace

TapPort::TapPort(EventLoop& loop, std::string ifname)
    : DatagramPort(loop, "tap:" + ifname, false), ifname_(std::move(ifname)) {
  // Any socket answers SIOCGIFFLAGS (the kernel hands unknown ioctls to the device layer);
  // AF_UNIX works even where IPv4 is disabled.
  control_ = UniqueFd(::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (!control_)
    fail(ifname_, "socket(AF_UNIX): " + describe(errno));
  attach(open_tap());
  probe_and_rearm();
}

TapPort::~TapPort() {
  loop().cancel_timer(probe_timer_);
}

UniqueFd TapPort::open_tap() {
  if (::if_nametoindex(ifname_.c_str()) == 0)
    fail(ifname_, "no such interface; create a persistent tap first, e.g. `ip tuntap add dev " +
                      ifname_ + " mode tap user $(id -un)`");
  UniqueFd fd(::open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC));
  if (!fd) {
    const int error = errno;
    if (error == ENOENT || error == ENODEV || error == ENXIO)
      fail(ifname_, "no /dev/net/tun (load the tun module)");
    fail(ifname_, "cannot open /dev/net/tun: " + describe(error));
  }
  ifreq request = request_for(ifname_);
  request.ifr_flags = IFF_TAP | IFF_NO_PI;
  if (::ioctl(fd.get(), TUNSETIFF, &request) != 0) {
    const int error = errno;
    switch (error) {
    case EPERM:
      fail(ifname_, "not allowed to attach: the tap belongs to another user or group (set its "
                    "`user`/`group` to the model's) and the model lacks CAP_NET_ADMIN");
    case EBUSY:
      fail(ifname_, "in use by another process (QEMU or another model?); a tap has one user");
    case EINVAL:
      fail(ifname_, "not a single-queue tap (a tun device, a multi_queue tap, or not a tun/tap "
                    "interface at all)");
    default:
      fail(ifname_, "TUNSETIFF: " + describe(error));
    }
  }
  // Had the interface vanished since the check above, a privileged TUNSETIFF would have made
  // a new, non-persistent one: closing the descriptor deletes it again.
  ifreq attached{};
  if (::ioctl(fd.get(), TUNGETIFF, &attached) != 0 || !(attached.ifr_flags & IFF_PERSIST) ||
      (attached.ifr_flags & IFF_VNET_HDR) ||
      std::strncmp(attached.ifr_name, ifname_.c_str(), IFNAMSIZ) != 0)
    fail(ifname_, "no persistent tap of this name");
  ifindex_ = ::if_nametoindex(ifname_.c_str());
  spdlog::info("port {}: attached to tap {} (ifindex {})", name(), ifname_, ifindex_);
  return fd;
}

void TapPort::probe_and_rearm() {
  probe_timer_ = loop().add_timer(kProbeInterval, [this] { probe_and_rearm(); });
  probe();
}

void TapPort::probe() {
  const unsigned index = ::if_nametoindex(ifname_.c_str());
  if (!attached()) {
    if (index == 0)
      return; // still gone
    try {
      attach(open_tap());
    } catch (const std::exception& e) {
      reattach_log_.warn("port {}: cannot attach again: {}", name(), e.what());
      return;
    }
  } else if (index != ifindex_) {
    detach(index == 0 ? "the tap interface is gone" : "the tap interface was replaced");
    return;
  }
  ifreq request = request_for(ifname_);
  if (::ioctl(control_.get(), SIOCGIFFLAGS, &request) != 0) {
    detach("SIOCGIFFLAGS: " + describe(errno));
    return;
  }
  const bool up = (request.ifr_flags & IFF_UP) != 0;
  set_link(up, up ? "tap interface up" : "tap interface down");
}

ssize_t TapPort::write_datagram(std::span<const std::byte> frame) {
  return ::write(fd(), frame.data(), frame.size());
}

ssize_t TapPort::read_datagram(std::span<std::byte> buffer) {
  // A frame longer than the buffer is cut, and read returns its full length: the caller
  // then sees an oversize frame and drops it whole.
  return ::read(fd(), buffer.data(), buffer.size());
}

DatagramPort::Verdict TapPort::classify(int error) {
  switch (error) {
  case EIO: // the interface is down
    return Verdict::no_peer;
  case EBADFD: // the interface is gone: the descriptor is attached to nothing
  case ENODEV:
  case ENXIO:
    return Verdict::dead;
  default: // EINVAL (a frame the tap refused), ENOMEM, ...: this frame is lost
    return Verdict::error;
  }
}

} // namespace ornic
