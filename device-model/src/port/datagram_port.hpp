// What every datagram backend (unix:, udp:, tap:) shares: one Ethernet frame per datagram
// on a non-blocking descriptor registered with the EventLoop, the length rule, the
// counters and link notifications.
//
// Transmit: a frame the descriptor cannot take yet (EAGAIN: the kernel's send buffer, or
// the peer's receive queue, is full) waits in a bounded queue of our own, in order, and the
// queue is drained when the descriptor reports EPOLLOUT; EPOLLOUT is watched only while the
// queue is not empty, so an idle port never wakes the loop. Only beyond kMaxQueuedFrames is
// a frame dropped ("would block").
//
// Receive: at most kMaxDatagramsPerWakeup datagrams per wakeup, so a flooding peer cannot
// starve the vfio-user socket; each is checked against the length rule.
//
// Errors never spin the loop: a pending socket error (EPOLLERR: an ICMP unreachable, a
// peer that reset) is read and cleared with SO_ERROR, and a descriptor that reports
// EPOLLHUP, or EPOLLERR without a clearable error (a tap whose interface was deleted), is
// closed and unregistered. The backend decides what each errno means (classify()) and
// whether and when to open a new descriptor.
#pragma once

#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include <sys/types.h>

#include "common/event_loop.hpp"
#include "common/rate_limited_log.hpp"
#include "common/unique_fd.hpp"
#include "port/link_notifier.hpp"
#include "port/port.hpp"

namespace ornic {

class DatagramPort : public Port {
public:
  // Bounds the work of one wakeup so a flooding peer cannot starve the vfio-user socket.
  static constexpr int kMaxDatagramsPerWakeup = 64;
  // Frames waiting for room in the kernel: a few READ bursts of a busy QP.
  static constexpr size_t kMaxQueuedFrames = 4096;

  ~DatagramPort() override;
  DatagramPort(const DatagramPort&) = delete;
  DatagramPort& operator=(const DatagramPort&) = delete;

  void send(std::span<const std::byte> frame) override;
  void set_receiver(Receiver rx) override { receiver_ = std::move(rx); }
  bool link_up() const override { return link_up_; }
  PortCounters counters() const override { return counters_; }
  size_t tx_backlog() const override { return tx_queue_.size(); }
  void set_link_listener(LinkListener listener) override {
    link_notifier_.set_listener(std::move(listener));
  }

protected:
  // What a failed send/recv/pending error means for this backend.
  enum class Verdict {
    retry_later, // EAGAIN: the frame waits for EPOLLOUT
    no_peer,     // nobody at the other end: frame dropped (tx_dropped_no_peer), link down
    error,       // this frame is lost (tx_dropped_error), the link is as it was
    dead,        // the descriptor is unusable: closed and unregistered, link down
  };

  // `name` prefixes every log line ("port unix:/run/a.eth").
  DatagramPort(EventLoop& loop, std::string name, bool link_up);

  // Takes the descriptor (non-blocking) and registers it for EPOLLIN.
  void attach(UniqueFd fd);
  // Unregisters and closes the descriptor; queued frames are dropped as no_peer.
  void detach(std::string_view why);
  bool attached() const { return fd_.valid(); }
  int fd() const { return fd_.get(); }
  void set_link(bool up, std::string_view why);
  EventLoop& loop() { return loop_; }
  const std::string& name() const { return name_; }

  // Backend hooks. The defaults suit a connected socket.
  virtual ssize_t write_datagram(std::span<const std::byte> frame);
  // Returns the datagram's full length even when it did not fit (then > buffer.size()).
  virtual ssize_t read_datagram(std::span<std::byte> buffer);
  // The pending error behind EPOLLERR, cleared by reading it; 0 if there was none, -1 if
  // the descriptor has no such thing (then the descriptor is treated as dead).
  virtual int take_pending_error();
  virtual Verdict classify(int error) = 0;
  // A send succeeded / a frame arrived: what that says about the link.
  virtual void frame_sent() {}
  virtual void frame_received() {}
  // A datagram of the backend's own link protocol, consumed here (after frame_received())
  // instead of reaching the receiver: true to swallow it.
  virtual bool consume_control(std::span<const std::byte> datagram) {
    (void)datagram;
    return false;
  }
  // After detach(), e.g. to try a new descriptor later.
  virtual void detached() {}

private:
  enum class SendResult { sent, retry_later, dropped };
  SendResult try_send(std::span<const std::byte> frame);
  void enqueue(std::span<const std::byte> frame);
  void watch_writable(bool on);
  void on_events(uint32_t events);
  void on_error_event();
  void drain();
  void receive_batch();
  void deliver(size_t datagram_bytes);
  // Applies a verdict to a failed operation; true if the descriptor is still attached.
  bool apply(Verdict verdict, int error, const char* operation, bool count_tx);

  EventLoop& loop_;
  const std::string name_;
  UniqueFd fd_;
  bool watching_writable_ = false;
  std::deque<std::vector<std::byte>> tx_queue_;
  bool link_up_;
  LinkNotifier link_notifier_;
  Receiver receiver_;
  PortCounters counters_;
  std::vector<std::byte> rx_buffer_;
  RateLimitedLog rx_drop_log_;
  RateLimitedLog tx_error_log_;
  RateLimitedLog rx_error_log_;
};

} // namespace ornic
