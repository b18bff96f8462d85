#include "port/shm_port.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <system_error>
#include <utility>

#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include "port/frame_length.hpp"
#include "port/unix_address.hpp"

namespace ornic {

struct ShmPort::Session {
  UniqueFd socket;
  shm::Region region;
  UniqueFd own_kick;  // we sleep on it
  UniqueFd peer_kick; // the peer sleeps on it
  shm::RingProducer tx;
  shm::RingConsumer rx;
};

namespace {

constexpr int kHelloDescriptors = 3; // memfd, dialer's eventfd, listener's eventfd

[[noreturn]] void throw_errno(int error, const std::string& what) {
  throw std::system_error(error, std::generic_category(), what);
}

UniqueFd open_seqpacket_socket() {
  UniqueFd fd(::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd)
    throw_errno(errno, "socket(AF_UNIX, SOCK_SEQPACKET)");
  return fd;
}

UniqueFd make_eventfd() {
  UniqueFd fd(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
  if (!fd)
    throw_errno(errno, "eventfd");
  return fd;
}

// A descriptor the peer says is an eventfd: we read and write it, so it must be one.
bool is_eventfd(int fd) {
  char link[64];
  const std::string proc = "/proc/self/fd/" + std::to_string(fd);
  const ssize_t n = ::readlink(proc.c_str(), link, sizeof(link) - 1);
  if (n < 0)
    return false;
  link[n] = '\0';
  return std::strcmp(link, "anon_inode:[eventfd]") == 0;
}

ShmPort::Hello expected_hello() {
  return {shm::kRegionMagic, shm::kRegionVersion, shm::kSlotCount,
          static_cast<uint32_t>(shm::kSlotBytes), shm::kRegionBytes};
}

} // namespace

ShmPort::ShmPort(EventLoop& loop, std::string local_path, std::string peer_path)
    : loop_(loop), local_path_(std::move(local_path)), peer_path_(std::move(peer_path)),
      name_("shm:" + local_path_), dialer_(local_path_ < peer_path_), link_notifier_(loop) {
  const UnixAddress local_address = make_unix_address(local_path_, "port local path");
  make_unix_address(peer_path_, "port peer path");
  if (local_path_ == peer_path_)
    throw std::invalid_argument("port local and peer path are both '" + local_path_ + "'");

  if (!dialer_) {
    remove_stale_socket_file(local_path_, local_address, SOCK_SEQPACKET);
    UniqueFd socket = open_seqpacket_socket();
    if (::bind(socket.get(), local_address.get(), local_address.length) != 0)
      throw_errno(errno, "binding port socket to '" + local_path_ + "'");
    struct stat st;
    if (::stat(local_path_.c_str(), &st) == 0) {
      bound_device_ = st.st_dev;
      bound_inode_ = st.st_ino;
    }
    if (::listen(socket.get(), 4) != 0) {
      const int error = errno;
      ::unlink(local_path_.c_str());
      throw_errno(error, "listen on '" + local_path_ + "'");
    }
    listener_ = std::move(socket);
    loop_.add_fd(listener_.get(), EPOLLIN, [this](uint32_t) { accept_connection(); });
  }
  tick(); // the dialer dials at once; both arm the retry timer
}

ShmPort::~ShmPort() {
  loop_.cancel_timer(timer_);
  if (pending_)
    loop_.remove_fd(pending_->socket.get());
  if (session_) {
    loop_.remove_fd(session_->socket.get());
    loop_.remove_fd(session_->own_kick.get());
  }
  if (listener_) {
    loop_.remove_fd(listener_.get());
    struct stat st;
    if (::lstat(local_path_.c_str(), &st) == 0 && st.st_dev == bound_device_ &&
        st.st_ino == bound_inode_)
      ::unlink(local_path_.c_str());
  }
}

std::span<std::byte> ShmPort::shared_memory_for_test() const {
  return session_ ? session_->region.bytes() : std::span<std::byte>();
}

void ShmPort::set_link(bool up, const std::string& why) {
  spdlog::info("port {}: link {} ({})", name_, up ? "up" : "down", why);
  link_notifier_.notify(up);
}

void ShmPort::tick() {
  timer_ = loop_.add_timer(kRetryInterval, [this] { tick(); });
  if (pending_ && std::chrono::steady_clock::now() - pending_->started > kHandshakeTimeout)
    drop_pending("the handshake timed out");
  if (dialer_ && !session_ && !pending_)
    dial();
}

void ShmPort::dial() {
  try {
    UniqueFd socket = open_seqpacket_socket();
    const UnixAddress peer = make_unix_address(peer_path_, "port peer path");
    if (::connect(socket.get(), peer.get(), peer.length) != 0)
      return; // nobody listening yet: the next tick tries again
    auto pending = std::make_unique<Pending>();
    pending->region = shm::Region::create();
    pending->own_kick = make_eventfd();
    pending->peer_kick = make_eventfd();

    Hello hello = expected_hello();
    iovec iov{&hello, sizeof(hello)};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kHelloDescriptors)] = {};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof(control);
    cmsghdr* cmsg = CMSG_FIRSTHDR(&msg);
    cmsg->cmsg_level = SOL_SOCKET;
    cmsg->cmsg_type = SCM_RIGHTS;
    cmsg->cmsg_len = CMSG_LEN(sizeof(int) * kHelloDescriptors);
    const int fds[kHelloDescriptors] = {pending->region.fd(), pending->own_kick.get(),
                                        pending->peer_kick.get()};
    std::memcpy(CMSG_DATA(cmsg), fds, sizeof(fds));
    if (::sendmsg(socket.get(), &msg, MSG_DONTWAIT | MSG_NOSIGNAL) != sizeof(hello)) {
      handshake_log_.warn("port {}: sending the hello to {}: {}", name_, peer_path_,
                          std::strerror(errno));
      return;
    }
    pending->socket = std::move(socket);
    pending->started = std::chrono::steady_clock::now();
    pending_ = std::move(pending);
    loop_.add_fd(pending_->socket.get(), EPOLLIN | EPOLLRDHUP,
                 [this](uint32_t events) { on_pending_event(events); });
  } catch (const std::exception& e) {
    handshake_log_.warn("port {}: cannot offer a session to {}: {}", name_, peer_path_, e.what());
  }
}

void ShmPort::accept_connection() {
  UniqueFd socket(::accept4(listener_.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
  if (!socket)
    return; // EAGAIN, or the connection went away already
  // A live session stays until a newer one has completed its handshake.
  if (pending_)
    drop_pending("a newer connection arrived");
  auto pending = std::make_unique<Pending>();
  pending->socket = std::move(socket);
  pending->started = std::chrono::steady_clock::now();
  pending_ = std::move(pending);
  loop_.add_fd(pending_->socket.get(), EPOLLIN | EPOLLRDHUP,
               [this](uint32_t events) { on_pending_event(events); });
}

void ShmPort::drop_pending(const std::string& why) {
  if (!pending_)
    return;
  handshake_log_.warn("port {}: handshake with {} failed: {}", name_, peer_path_, why);
  loop_.remove_fd(pending_->socket.get());
  pending_.reset();
}

void ShmPort::on_pending_event(uint32_t events) {
  std::string why;
  const bool done = dialer_ ? receive_ack(*pending_, why) : receive_hello(*pending_, why);
  if (done)
    return;
  if (!why.empty())
    drop_pending(why);
  else if (events & (EPOLLHUP | EPOLLRDHUP | EPOLLERR))
    drop_pending("the peer closed the connection");
}

bool ShmPort::receive_hello(Pending& pending, std::string& why) {
  Hello hello{};
  iovec iov{&hello, sizeof(hello)};
  // Room for more descriptors than we expect, so a peer sending too many is recognised
  // (and all of them closed) rather than truncated.
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * (kHelloDescriptors + 5))];
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof(control);
  const ssize_t n = ::recvmsg(pending.socket.get(), &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
  if (n < 0) {
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
      why = std::string("receiving the hello: ") + std::strerror(errno);
    return false;
  }
  // Own every descriptor first, so each is closed on any way out.
  std::vector<UniqueFd> fds;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS || c->cmsg_len < CMSG_LEN(0))
      continue;
    const size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < count; ++i) {
      int fd;
      std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
      fds.emplace_back(fd);
    }
  }
  const Hello expected = expected_hello();
  if (n == 0)
    why = "the peer closed the connection";
  else if (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC))
    why = "the hello was truncated";
  else if (static_cast<size_t>(n) != sizeof(hello))
    why = "the hello is " + std::to_string(n) + " bytes, expected " + std::to_string(sizeof(hello));
  else if (hello.magic != expected.magic || hello.version != expected.version)
    why = "the hello is not an ornic shm hello of version " + std::to_string(expected.version);
  else if (hello.slot_count != expected.slot_count || hello.slot_bytes != expected.slot_bytes ||
           hello.region_bytes != expected.region_bytes)
    why = "the hello's ring geometry (" + std::to_string(hello.slot_count) + " slots of " +
          std::to_string(hello.slot_bytes) + " bytes) is not ours";
  else if (fds.size() != kHelloDescriptors)
    why = "the hello carries " + std::to_string(fds.size()) + " descriptors, expected 3";
  else if (!is_eventfd(fds[1].get()) || !is_eventfd(fds[2].get()))
    why = "the hello's kick descriptors are not eventfds";
  if (!why.empty())
    return false;

  shm::Region region;
  try {
    region = shm::Region::map(std::move(fds[0]));
  } catch (const std::exception& e) {
    why = e.what();
    return false;
  }
  const Ack ack{shm::kRegionMagic, shm::kRegionVersion};
  if (::send(pending.socket.get(), &ack, sizeof(ack), MSG_DONTWAIT | MSG_NOSIGNAL) != sizeof(ack)) {
    why = std::string("sending the ack: ") + std::strerror(errno);
    return false;
  }
  UniqueFd socket = std::move(pending.socket);
  loop_.remove_fd(socket.get());
  pending_.reset();
  establish(std::move(socket), std::move(region), std::move(fds[2]), std::move(fds[1]));
  return true;
}

bool ShmPort::receive_ack(Pending& pending, std::string& why) {
  Ack ack{};
  // Descriptors sent along with it (there should be none) are closed by the kernel.
  const ssize_t n = ::recv(pending.socket.get(), &ack, sizeof(ack), MSG_DONTWAIT);
  if (n < 0) {
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
      why = std::string("receiving the ack: ") + std::strerror(errno);
    return false;
  }
  if (n == 0)
    why = "the peer closed the connection";
  else if (static_cast<size_t>(n) != sizeof(ack) || ack.magic != shm::kRegionMagic ||
           ack.version != shm::kRegionVersion)
    why = "the peer's answer is not an ornic shm ack";
  if (!why.empty())
    return false;
  std::unique_ptr<Pending> done = std::move(pending_);
  loop_.remove_fd(done->socket.get());
  establish(std::move(done->socket), std::move(done->region), std::move(done->own_kick),
            std::move(done->peer_kick));
  return true;
}

void ShmPort::establish(UniqueFd socket, shm::Region region, UniqueFd own_kick,
                        UniqueFd peer_kick) {
  if (session_)
    teardown("the peer started a new session");
  auto session = std::make_unique<Session>();
  session->tx = shm::RingProducer(region.ring(dialer_ ? 0 : 1));
  session->rx = shm::RingConsumer(region.ring(dialer_ ? 1 : 0));
  session->socket = std::move(socket);
  session->region = std::move(region);
  session->own_kick = std::move(own_kick);
  session->peer_kick = std::move(peer_kick);
  loop_.add_fd(session->socket.get(), EPOLLIN | EPOLLRDHUP,
               [this](uint32_t events) { on_session_event(events); });
  loop_.add_fd(session->own_kick.get(), EPOLLIN, [this](uint32_t) { on_kick(); });
  session_ = std::move(session);
  ++sessions_;
  set_link(true, dialer_ ? "session with " + peer_path_ : "session from " + peer_path_);
  // Frames the peer published before we looked, and the first consumer_waiting.
  schedule_rx();
}

void ShmPort::teardown(const std::string& why) {
  if (!session_)
    return;
  loop_.remove_fd(session_->socket.get());
  loop_.remove_fd(session_->own_kick.get());
  if (delivering_)
    retired_session_ = std::move(session_); // a frame in its ring is being parsed
  session_.reset();
  counters_.tx_dropped_no_peer += tx_queue_.size();
  tx_queue_.clear();
  set_link(false, why);
}

void ShmPort::on_session_event(uint32_t events) {
  if (events & EPOLLIN) {
    // The peer has nothing more to say after the handshake: read and drop, and an end of
    // stream is a hang-up.
    char discard[64];
    const ssize_t n = ::recv(session_->socket.get(), discard, sizeof(discard), MSG_DONTWAIT);
    if (n == 0) {
      teardown("the peer closed the session");
      return;
    }
    if (n > 0)
      corrupt_log_.warn("port {}: ignored an unexpected {}-byte message from the peer", name_, n);
  }
  if (events & (EPOLLHUP | EPOLLRDHUP | EPOLLERR))
    teardown("the peer closed the session");
}

void ShmPort::on_kick() {
  uint64_t count;
  if (::read(session_->own_kick.get(), &count, sizeof(count)) < 0 && errno != EAGAIN) {
    teardown(std::string("reading the kick eventfd: ") + std::strerror(errno));
    return;
  }
  drain_tx();
  drain_rx();
}

void ShmPort::kick_peer() {
  const uint64_t one = 1;
  // EAGAIN: the counter is saturated, the peer will wake anyway.
  [[maybe_unused]] const ssize_t n = ::write(session_->peer_kick.get(), &one, sizeof(one));
}

bool ShmPort::handle_push(shm::RingProducer::Push result, size_t bytes) {
  switch (result) {
  case shm::RingProducer::Push::sent_kick:
    kick_peer();
    [[fallthrough]];
  case shm::RingProducer::Push::sent:
    ++counters_.tx_frames;
    counters_.tx_bytes += bytes;
    return true;
  case shm::RingProducer::Push::corrupt:
    ++counters_.tx_dropped_error;
    corrupt_log_.warn("port {}: the peer's ring tail is impossible: link down", name_);
    teardown("corrupt ring (tail)");
    return false;
  case shm::RingProducer::Push::full:
    break;
  }
  return false;
}

void ShmPort::send(std::span<const std::byte> frame) {
  if (!admit_tx_frame(frame.size(), counters_))
    return;
  if (!session_) {
    ++counters_.tx_dropped_no_peer;
    return;
  }
  // Frames already waiting go first: the link never reorders.
  if (!tx_queue_.empty()) {
    enqueue(frame);
    return;
  }
  const auto result = session_->tx.push(frame);
  if (result == shm::RingProducer::Push::full)
    enqueue(frame);
  else
    handle_push(result, frame.size());
}

std::span<std::byte> ShmPort::reserve_tx(size_t bytes) {
  reserved_in_ring_ = false;
  if (session_ && tx_queue_.empty() && bytes <= kMaxFrameBytes) {
    const std::span<std::byte> slot = session_->tx.reserve();
    if (!slot.empty()) {
      reserved_in_ring_ = true;
      return slot.first(bytes);
    }
  }
  return Port::reserve_tx(bytes);
}

void ShmPort::commit_tx(size_t length) {
  if (!std::exchange(reserved_in_ring_, false)) {
    Port::commit_tx(length);
    return;
  }
  // Nothing may run between reserve_tx() and here; checked all the same.
  if (!session_) {
    ++counters_.tx_dropped_no_peer;
    return;
  }
  if (!admit_tx_frame(length, counters_))
    return; // the slot stays unpublished
  if (handle_push(session_->tx.commit(length), length))
    ++counters_.tx_in_place;
}

void ShmPort::enqueue(std::span<const std::byte> frame) {
  if (tx_queue_.size() >= kMaxQueuedFrames) {
    ++counters_.tx_dropped_would_block;
    return;
  }
  ++counters_.tx_backpressured;
  tx_queue_.emplace_back(frame.begin(), frame.end());
  if (tx_queue_.size() == 1 && session_->tx.request_room())
    drain_tx(); // the consumer freed a slot in the meantime
}

void ShmPort::drain_tx() {
  while (session_ && !tx_queue_.empty()) {
    const auto result = session_->tx.push(tx_queue_.front());
    if (result == shm::RingProducer::Push::full) {
      if (session_->tx.request_room())
        continue;
      return; // the consumer kicks us when it frees a slot
    }
    if (!handle_push(result, tx_queue_.front().size()))
      return; // corrupt: the session and the queue are gone
    tx_queue_.pop_front();
  }
}

void ShmPort::schedule_rx() {
  if (rx_scheduled_)
    return;
  rx_scheduled_ = true;
  loop_.post([this, weak = std::weak_ptr(alive_)] {
    if (!weak.lock())
      return;
    rx_scheduled_ = false;
    drain_rx();
  });
}

void ShmPort::drain_rx() {
  int budget = kMaxFramesPerWakeup;
  while (session_) {
    if (budget-- == 0) {
      if (session_->rx.take_room_request())
        kick_peer();
      schedule_rx(); // more next turn, after the other descriptors had theirs
      return;
    }
    uint32_t length = 0;
    std::span<const std::byte> frame;
    switch (session_->rx.peek(frame, length)) {
    case shm::RingConsumer::Pop::empty:
      if (session_->rx.take_room_request())
        kick_peer();
      if (session_->rx.prepare_sleep())
        return; // the peer kicks us when it publishes a frame
      break;
    case shm::RingConsumer::Pop::corrupt:
      corrupt_log_.warn("port {}: the peer's ring head is impossible: link down", name_);
      teardown("corrupt ring (head)");
      return;
    case shm::RingConsumer::Pop::bad_length:
      if (length < kMinFrameBytes)
        ++counters_.rx_dropped_runt;
      else
        ++counters_.rx_dropped_oversize;
      rx_drop_log_.warn("port {}: dropped a ring slot of length {}: not an Ethernet frame of "
                        "{}..{} bytes",
                        name_, length, kMinFrameBytes, kMaxFrameBytes);
      session_->rx.release();
      break;
    case shm::RingConsumer::Pop::frame:
      deliver_in_place(frame);
      break;
    }
  }
}

// The receiver parses the frame where it lies in the ring and copies its payload once,
// into guest memory; the slot is freed after. Whatever the receiver sends meanwhile may
// find the ring corrupt and tear the session down: the mapping then lives on in
// retired_session_ until the receiver is done with the frame.
void ShmPort::deliver_in_place(std::span<const std::byte> frame) {
  if (!receiver_) {
    ++counters_.rx_dropped_no_receiver;
    session_->rx.release();
    return;
  }
  ++counters_.rx_frames;
  counters_.rx_bytes += frame.size();
  Session* const session = session_.get();
  delivering_ = true;
  receiver_(frame);
  delivering_ = false;
  if (session_.get() == session)
    session_->rx.release();
  retired_session_.reset();
}

} // namespace ornic
