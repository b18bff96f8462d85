#include "port/datagram_port.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>

#include <sys/epoll.h>
#include <sys/socket.h>

#include <spdlog/spdlog.h>

#include "port/frame_length.hpp"

namespace ornic {
namespace {

std::string describe(int error) {
  return std::generic_category().message(error);
}

} // namespace

DatagramPort::DatagramPort(EventLoop& loop, std::string name, bool link_up)
    : loop_(loop), name_(std::move(name)), link_up_(link_up), link_notifier_(loop),
      rx_buffer_(kMaxFrameBytes) {}

DatagramPort::~DatagramPort() {
  // Not detach(): a destructor must not call the backend's (already destroyed) hooks.
  if (fd_)
    loop_.remove_fd(fd_.get());
}

void DatagramPort::attach(UniqueFd fd) {
  fd_ = std::move(fd);
  watching_writable_ = false;
  loop_.add_fd(fd_.get(), EPOLLIN, [this](uint32_t events) { on_events(events); });
}

void DatagramPort::detach(std::string_view why) {
  if (!attached())
    return;
  loop_.remove_fd(fd_.get());
  fd_.reset();
  watching_writable_ = false;
  counters_.tx_dropped_no_peer += tx_queue_.size();
  tx_queue_.clear();
  spdlog::warn("port {}: descriptor closed: {}", name_, why);
  set_link(false, why);
  detached();
}

void DatagramPort::set_link(bool up, std::string_view why) {
  if (up == link_up_)
    return;
  link_up_ = up;
  spdlog::info("port {}: link {} ({})", name_, up ? "up" : "down", why);
  link_notifier_.notify(up);
}

ssize_t DatagramPort::write_datagram(std::span<const std::byte> frame) {
  return ::send(fd_.get(), frame.data(), frame.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
}

ssize_t DatagramPort::read_datagram(std::span<std::byte> buffer) {
  // MSG_TRUNC makes recv return the datagram's real length even when it did not fit,
  // which is how an oversize datagram is recognised (and then discarded whole).
  return ::recv(fd_.get(), buffer.data(), buffer.size(), MSG_DONTWAIT | MSG_TRUNC);
}

int DatagramPort::take_pending_error() {
  int error = 0;
  socklen_t length = sizeof(error);
  if (::getsockopt(fd_.get(), SOL_SOCKET, SO_ERROR, &error, &length) != 0)
    return -1;
  return error;
}

void DatagramPort::send(std::span<const std::byte> frame) {
  if (!admit_tx_frame(frame.size(), counters_))
    return;
  if (!attached()) {
    ++counters_.tx_dropped_no_peer;
    return;
  }
  // Frames already waiting go first: the link never reorders.
  if (!tx_queue_.empty() || try_send(frame) == SendResult::retry_later)
    enqueue(frame);
}

void DatagramPort::enqueue(std::span<const std::byte> frame) {
  if (tx_queue_.size() >= kMaxQueuedFrames) {
    ++counters_.tx_dropped_would_block;
    return;
  }
  ++counters_.tx_backpressured;
  tx_queue_.emplace_back(frame.begin(), frame.end());
  watch_writable(true);
}

void DatagramPort::watch_writable(bool on) {
  if (on == watching_writable_ || !attached())
    return;
  loop_.modify_fd(fd_.get(), on ? EPOLLIN | EPOLLOUT : EPOLLIN);
  watching_writable_ = on;
}

DatagramPort::SendResult DatagramPort::try_send(std::span<const std::byte> frame) {
  ssize_t sent;
  do {
    sent = write_datagram(frame);
  } while (sent < 0 && errno == EINTR);
  if (sent >= 0) {
    ++counters_.tx_frames;
    counters_.tx_bytes += frame.size();
    frame_sent();
    return SendResult::sent;
  }
  const int error = errno;
  const Verdict verdict =
      error == EAGAIN || error == EWOULDBLOCK ? Verdict::retry_later : classify(error);
  if (verdict == Verdict::retry_later)
    return SendResult::retry_later;
  apply(verdict, error, "send", true);
  return SendResult::dropped;
}

bool DatagramPort::apply(Verdict verdict, int error, const char* operation, bool count_tx) {
  switch (verdict) {
  case Verdict::retry_later:
    return true;
  case Verdict::no_peer:
    if (count_tx)
      ++counters_.tx_dropped_no_peer;
    set_link(false, std::string(operation) + ": " + describe(error));
    return true;
  case Verdict::error:
    if (count_tx) {
      ++counters_.tx_dropped_error;
      tx_error_log_.warn("port {}: {}: {} (dropped {} tx frames so far)", name_, operation,
                         describe(error), counters_.tx_dropped_error);
    } else {
      rx_error_log_.warn("port {}: {}: {}", name_, operation, describe(error));
    }
    return true;
  case Verdict::dead:
    if (count_tx)
      ++counters_.tx_dropped_error;
    detach(std::string(operation) + ": " + describe(error));
    return false;
  }
  return true;
}

void DatagramPort::on_events(uint32_t events) {
  if (events & EPOLLERR) {
    on_error_event();
    if (!attached())
      return;
  }
  if (events & EPOLLHUP) {
    // Nothing more will ever come, and a level-triggered hang-up would wake the loop forever.
    detach("hang-up on the descriptor");
    return;
  }
  if (events & EPOLLIN) {
    receive_batch();
    if (!attached())
      return;
  }
  if (events & EPOLLOUT)
    drain();
}

void DatagramPort::on_error_event() {
  const int error = take_pending_error();
  if (error < 0) {
    detach("the descriptor reports an error condition");
    return;
  }
  if (error == 0)
    return; // already taken by a recv in the meantime
  const Verdict verdict = classify(error);
  if (verdict != Verdict::retry_later)
    apply(verdict, error, "pending error", false);
}

void DatagramPort::drain() {
  while (!tx_queue_.empty()) {
    if (try_send(tx_queue_.front()) == SendResult::retry_later)
      return; // still full: EPOLLOUT stays watched
    if (!attached())
      return; // detach() has dropped the queue
    tx_queue_.pop_front();
  }
  watch_writable(false);
}

void DatagramPort::receive_batch() {
  for (int i = 0; i < kMaxDatagramsPerWakeup; ++i) {
    const ssize_t received = read_datagram(rx_buffer_);
    if (received >= 0) {
      deliver(static_cast<size_t>(received));
      if (!attached())
        return;
      continue;
    }
    const int error = errno;
    if (error == EINTR)
      continue;
    if (error == EAGAIN || error == EWOULDBLOCK)
      return; // drained
    const Verdict verdict = classify(error);
    if (verdict == Verdict::retry_later || !apply(verdict, error, "receive", false))
      return;
    // A reported peer error (ICMP unreachable) was taken by this recv: read on. Anything
    // else: leave it to the next wakeup rather than loop on it here.
    if (verdict != Verdict::no_peer)
      return;
  }
}

void DatagramPort::deliver(size_t datagram_bytes) {
  frame_received();
  if (consume_control(std::span<const std::byte>(rx_buffer_.data(),
                                                 std::min(datagram_bytes, rx_buffer_.size()))))
    return;
  if (!admit_rx_frame(datagram_bytes, counters_)) {
    rx_drop_log_.warn("port {}: dropped a {}-byte datagram: not an Ethernet frame of {}..{} bytes",
                      name_, datagram_bytes, kMinFrameBytes, kMaxFrameBytes);
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

} // namespace ornic
