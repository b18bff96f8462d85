#include "vfio_user/connection.hpp"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>

#include <spdlog/spdlog.h>

#include "vfio_user/wire.hpp"

namespace ornic::vfio_user {

Connection::Connection(EventLoop& loop, UniqueFd socket, Session& session, size_t max_message_size,
                       ClosedCallback on_closed)
    : loop_(loop), socket_(std::move(socket)), session_(session), decoder_(max_message_size),
      on_closed_(std::move(on_closed)), read_buffer_(kReadChunk) {
  const int flags = fcntl(socket_.get(), F_GETFL);
  fcntl(socket_.get(), F_SETFL, flags | O_NONBLOCK);
  loop_.add_fd(socket_.get(), EPOLLIN | EPOLLRDHUP, [this](uint32_t events) { on_events(events); });
}

Connection::~Connection() {
  if (socket_.valid())
    loop_.remove_fd(socket_.get());
}

bool Connection::peer_gone() const {
  if (!socket_.valid())
    return true;
  pollfd p{socket_.get(), POLLRDHUP, 0};
  return poll(&p, 1, 0) == 1 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

void Connection::on_events(uint32_t events) {
  if (!socket_.valid())
    return;
  if (events & EPOLLOUT) {
    if (!flush())
      return close("write failed");
  }
  if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) {
    if (!read_some())
      return;
    process_frames();
    if (!socket_.valid())
      return;
    if (queued_output() > kMaxQueuedOutput)
      return close("client does not read its replies");
  }
  update_interest();
}

bool Connection::read_some() {
  iovec iov{read_buffer_.data(), read_buffer_.size()};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFdsPerRead)];
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof(control);
  const ssize_t n = recvmsg(socket_.get(), &msg, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
  if (n < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
      return true;
    close("read failed");
    return false;
  }
  std::vector<UniqueFd> fds;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
      continue;
    const size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < count; ++i) {
      int fd;
      std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
      fds.emplace_back(fd);
    }
  }
  const bool truncated = (msg.msg_flags & MSG_CTRUNC) != 0;
  if (n == 0) {
    close(decoder_.mid_message() ? "client hung up in the middle of a message"
                                 : "client disconnected");
    return false;
  }
  decoder_.feed(std::span(read_buffer_.data(), static_cast<size_t>(n)), std::move(fds), truncated);
  return true;
}

void Connection::process_frames() {
  while (socket_.valid()) {
    std::optional<Frame> frame = decoder_.next();
    if (!frame)
      break;
    if (std::optional<Reply> reply = session_.handle(std::move(*frame)))
      queue_reply(*reply);
  }
  if (socket_.valid() && queued_output() > 0 && !flush())
    close("write failed");
}

void Connection::queue_reply(const Reply& reply) {
  encode_header(reply.header, out_);
  out_.insert(out_.end(), reply.payload.begin(), reply.payload.end());
}

bool Connection::flush() {
  while (queued_output() > 0) {
    const ssize_t n =
        send(socket_.get(), out_.data() + out_start_, queued_output(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK)
        break;
      if (errno == EINTR)
        continue;
      return false;
    }
    out_start_ += static_cast<size_t>(n);
  }
  if (out_start_ == out_.size()) {
    out_.clear();
    out_start_ = 0;
  }
  return true;
}

void Connection::update_interest() {
  if (!socket_.valid())
    return;
  const bool want_write = queued_output() > 0;
  if (want_write != want_write_) {
    want_write_ = want_write;
    loop_.modify_fd(socket_.get(), EPOLLIN | EPOLLRDHUP | (want_write ? EPOLLOUT : 0u));
  }
}

void Connection::close(const char* why) {
  if (!socket_.valid())
    return;
  spdlog::info("vfio-user: connection closed: {}", why);
  loop_.remove_fd(socket_.get());
  socket_.reset();
  // Let the current handler unwind before the owner tears us down.
  loop_.post([cb = on_closed_] { cb(); });
}

} // namespace ornic::vfio_user
