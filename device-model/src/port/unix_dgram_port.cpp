#include "port/unix_dgram_port.hpp"

#include <cerrno>
#include <stdexcept>
#include <system_error>

#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include "port/frame_length.hpp"

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

// True if a socket is bound at address. connect() on a datagram socket only records the
// peer, so this sends nothing and never blocks.
bool socket_is_bound_at(const UnixAddress& address) {
  UniqueFd probe(::socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  return probe && ::connect(probe.get(), address.get(), address.length) == 0;
}

// A socket file outlives the process that bound it. Replace it only when nobody is bound
// to it any more (connect says ECONNREFUSED); never touch a live socket or a regular file.
void remove_stale_socket_file(const std::string& path, const UnixAddress& address) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT)
      return;
    throw_errno(errno, "port local path '" + path + "'");
  }
  if (!S_ISSOCK(st.st_mode))
    throw std::runtime_error("port local path '" + path +
                             "' exists and is not a socket; refusing to replace it");
  UniqueFd probe = open_datagram_socket();
  if (::connect(probe.get(), address.get(), address.length) == 0 || errno != ECONNREFUSED)
    throw std::runtime_error("port local path '" + path +
                             "' is in use by a running process (another model or QEMU?)");
  if (::unlink(path.c_str()) != 0 && errno != ENOENT)
    throw_errno(errno, "removing stale socket '" + path + "'");
}

} // namespace

UnixDgramPort::UnixDgramPort(EventLoop& loop, std::string local_path, std::string peer_path)
    : loop_(loop), local_path_(std::move(local_path)), peer_path_(std::move(peer_path)),
      peer_address_(make_unix_address(peer_path_, "port peer path")), link_notifier_(loop),
      rx_buffer_(kMaxFrameBytes) {
  const UnixAddress local_address = make_unix_address(local_path_, "port local path");
  if (local_path_ == peer_path_)
    throw std::invalid_argument("port local and peer path are both '" + local_path_ + "'");

  remove_stale_socket_file(local_path_, local_address);
  socket_ = open_datagram_socket();
  if (::bind(socket_.get(), local_address.get(), local_address.length) != 0)
    throw_errno(errno, "binding port socket to '" + local_path_ + "'");
  struct stat st;
  if (::stat(local_path_.c_str(), &st) == 0) {
    bound_device_ = st.st_dev;
    bound_inode_ = st.st_ino;
  }

  try {
    loop_.add_fd(socket_.get(), EPOLLIN, [this](uint32_t) { on_readable(); });
    probe_peer_and_rearm();
  } catch (...) {
    // The destructor will not run: leave no timer, registered fd or socket file behind.
    loop_.cancel_timer(probe_timer_);
    loop_.remove_fd(socket_.get());
    ::unlink(local_path_.c_str());
    throw;
  }
}

UnixDgramPort::~UnixDgramPort() {
  loop_.cancel_timer(probe_timer_);
  loop_.cancel_timer(retry_timer_);
  loop_.remove_fd(socket_.get());
  struct stat st;
  if (::lstat(local_path_.c_str(), &st) == 0 && st.st_dev == bound_device_ &&
      st.st_ino == bound_inode_)
    ::unlink(local_path_.c_str());
}

void UnixDgramPort::send(std::span<const std::byte> frame) {
  if (!admit_tx_frame(frame.size(), counters_))
    return;
  // Frames already waiting go first: the link never reorders.
  if (tx_queue_.empty() && try_send(frame) != SendResult::would_block)
    return;
  if (tx_queue_.size() >= kMaxQueuedFrames) {
    ++counters_.tx_dropped_would_block;
    return;
  }
  ++counters_.tx_backpressured;
  tx_queue_.emplace_back(frame.begin(), frame.end());
  if (retry_timer_ == 0)
    retry_timer_ = loop_.add_timer(kRetryInterval, [this] {
      retry_timer_ = 0;
      flush_queue();
    });
}

void UnixDgramPort::flush_queue() {
  while (!tx_queue_.empty()) {
    if (try_send(tx_queue_.front()) == SendResult::would_block) {
      retry_timer_ = loop_.add_timer(kRetryInterval, [this] {
        retry_timer_ = 0;
        flush_queue();
      });
      return;
    }
    tx_queue_.pop_front();
  }
}

UnixDgramPort::SendResult UnixDgramPort::try_send(std::span<const std::byte> frame) {
  const ssize_t sent =
      ::sendto(socket_.get(), frame.data(), frame.size(), MSG_DONTWAIT | MSG_NOSIGNAL,
               peer_address_.get(), peer_address_.length);
  if (sent >= 0) {
    ++counters_.tx_frames;
    counters_.tx_bytes += frame.size();
    set_link(true, "peer reachable");
    return SendResult::sent;
  }
  const int error = errno;
  switch (error) {
  case EAGAIN: // the peer is there but has not read its queue yet
    set_link(true, "peer reachable");
    return SendResult::would_block;
  case ENOENT:
  case ECONNREFUSED:
    ++counters_.tx_dropped_no_peer;
    set_link(false, "peer socket gone");
    break;
  default:
    ++counters_.tx_dropped_error;
    tx_error_log_.warn("port {}: sendto {}: {} (dropped {} tx frames so far)", local_path_,
                       peer_path_, std::generic_category().message(error),
                       tx_error_log_.count() + 1);
    break;
  }
  return SendResult::dropped;
}

void UnixDgramPort::on_readable() {
  for (int i = 0; i < kMaxDatagramsPerWakeup; ++i) {
    // MSG_TRUNC makes recv return the datagram's real length even when it did not fit,
    // which is how an oversize datagram is recognised (and then discarded whole).
    const ssize_t received =
        ::recv(socket_.get(), rx_buffer_.data(), rx_buffer_.size(), MSG_DONTWAIT | MSG_TRUNC);
    if (received < 0) {
      if (errno == EINTR)
        continue;
      return; // EAGAIN: drained. Anything else has no datagram to lose either.
    }
    deliver(static_cast<size_t>(received));
  }
}

void UnixDgramPort::deliver(size_t datagram_bytes) {
  if (!admit_rx_frame(datagram_bytes, counters_)) {
    rx_drop_log_.warn("port {}: dropped a {}-byte datagram: not an Ethernet frame of {}..{} bytes",
                      local_path_, datagram_bytes, kMinFrameBytes, kMaxFrameBytes);
    return;
  }
  if (!receiver_) {
    ++counters_.rx_dropped_no_receiver;
    return;
  }
  ++counters_.rx_frames;
  counters_.rx_bytes += datagram_bytes;
  receiver_(std::span<const std::byte>(rx_buffer_.data(), datagram_bytes));
}

void UnixDgramPort::probe_peer_and_rearm() {
  probe_timer_ = loop_.add_timer(kProbeInterval, [this] { probe_peer_and_rearm(); });
  const bool reachable = socket_is_bound_at(peer_address_);
  set_link(reachable, reachable ? "peer socket appeared" : "peer socket gone");
}

void UnixDgramPort::set_link(bool up, const char* reason) {
  if (up == link_up_)
    return;
  link_up_ = up;
  spdlog::info("port {}: link {} ({}: {})", local_path_, up ? "up" : "down", reason, peer_path_);
  link_notifier_.notify(up);
}

} // namespace ornic
