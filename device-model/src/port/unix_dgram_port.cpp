#include "port/unix_dgram_port.hpp"

#include <cerrno>
#include <stdexcept>
#include <system_error>

#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ornic {
namespace {

[[noreturn]] void throw_errno(int error, const std::string& what) {
  throw std::system_error(error, std::generic_category(), what);
}

UniqueFd open_datagram_socket() {
  UniqueFd fd(::socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd)
    throw_errno(errno, "socket(AF_UNIX, SOCK_DGRAM)");
  return fd;
}

} // namespace

UnixDgramPort::UnixDgramPort(EventLoop& loop, std::string local_path, std::string peer_path,
                             int send_buffer_bytes)
    : DatagramPort(loop, "unix:" + local_path, false), local_path_(std::move(local_path)),
      peer_path_(std::move(peer_path)),
      peer_address_(make_unix_address(peer_path_, "port peer path")) {
  const UnixAddress local_address = make_unix_address(local_path_, "port local path");
  if (local_path_ == peer_path_)
    throw std::invalid_argument("port local and peer path are both '" + local_path_ + "'");

  remove_stale_socket_file(local_path_, local_address, SOCK_DGRAM);
  UniqueFd socket = open_datagram_socket();
  if (::bind(socket.get(), local_address.get(), local_address.length) != 0)
    throw_errno(errno, "binding port socket to '" + local_path_ + "'");
  struct stat st;
  if (::stat(local_path_.c_str(), &st) == 0) {
    bound_device_ = st.st_dev;
    bound_inode_ = st.st_ino;
  }
  // Best effort: a bigger buffer absorbs a longer burst before frames have to queue here.
  ::setsockopt(socket.get(), SOL_SOCKET, SO_SNDBUF, &send_buffer_bytes, sizeof(send_buffer_bytes));

  try {
    attach(std::move(socket));
    probe_and_rearm();
  } catch (...) {
    // The destructor will not run: leave no timer or socket file behind (the base class
    // unregisters the descriptor).
    loop.cancel_timer(probe_timer_);
    ::unlink(local_path_.c_str());
    throw;
  }
}

UnixDgramPort::~UnixDgramPort() {
  loop().cancel_timer(probe_timer_);
  struct stat st;
  if (::lstat(local_path_.c_str(), &st) == 0 && st.st_dev == bound_device_ &&
      st.st_ino == bound_inode_)
    ::unlink(local_path_.c_str());
}

void UnixDgramPort::send(std::span<const std::byte> frame) {
  // The peer may have come back since the last probe: a send is what refreshes the link.
  if (!connected_)
    connect_peer();
  DatagramPort::send(frame);
}

void UnixDgramPort::connect_peer() {
  if (!attached())
    return;
  // Also when already connected: a restarted peer is a new socket at the same path, and
  // connecting again moves our end to it (or fails, when nobody is there any more).
  if (::connect(fd(), peer_address_.get(), peer_address_.length) == 0) {
    connected_ = true;
    set_link(true, "peer socket at " + peer_path_);
    return;
  }
  switch (errno) {
  case EPERM: // the socket at PEER_PATH is connected to some other socket
    disconnect("the socket at the peer path is connected to another socket");
    break;
  case ENOENT:
  case ECONNREFUSED:
    disconnect("no socket bound at the peer path");
    break;
  default:
    disconnect("cannot connect to the peer path");
    break;
  }
}

void UnixDgramPort::disconnect(const char* why) {
  // A failed connect leaves the old connection in place; dissolve it, so that frames stop
  // going to a socket that is no longer the one at PEER_PATH.
  sockaddr unspecified{};
  unspecified.sa_family = AF_UNSPEC;
  ::connect(fd(), &unspecified, sizeof(unspecified));
  connected_ = false;
  set_link(false, std::string(why) + ": " + peer_path_);
}

void UnixDgramPort::probe_and_rearm() {
  probe_timer_ = loop().add_timer(kProbeInterval, [this] { probe_and_rearm(); });
  connect_peer();
}

DatagramPort::Verdict UnixDgramPort::classify(int error) {
  switch (error) {
  case ECONNREFUSED: // the peer socket closed; the kernel has dissolved the connection
  case ECONNRESET:   // the peer disconnected from us with our frames still queued
  case ENOTCONN:
  case EDESTADDRREQ:
  case ENOENT:
  case EPERM:
    connected_ = false;
    return Verdict::no_peer;
  default:
    return Verdict::error;
  }
}

} // namespace ornic
