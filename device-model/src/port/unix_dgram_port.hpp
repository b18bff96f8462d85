// Spec "unix:LOCAL_PATH,PEER_PATH": a point-to-point link to a peer over an AF_UNIX
// SOCK_DGRAM socket, one raw Ethernet frame per datagram. This is the framing of QEMU's
// `-netdev dgram,local.type=unix,...`, so the peer can be another ornic model or a QEMU
// NIC. The socket is not connect()ed: the peer may start late or restart at any time.
//
// Link rule: the link is up while a socket is bound at PEER_PATH. That is checked by every
// send() (sendto fails with ENOENT/ECONNREFUSED when nobody is there) and every
// kProbeInterval by connect()ing a throwaway datagram socket to PEER_PATH, which sends
// nothing, so the link also comes up and goes down while the NIC is idle.
//
// Frames come in from any sender (a restarted peer, or QEMU, which uses plain sendto
// too); each datagram is validated as a frame by length and dropped and counted otherwise.
//
// Back-pressure: Linux queues at most net.unix.max_dgram_qlen (default 10) datagrams per
// receiving socket. A frame the peer's queue cannot take yet (EAGAIN) waits in a bounded
// queue of our own, in order, and is retried on a short timer, so a burst is delayed,
// not lost. Only beyond kMaxQueuedFrames is a frame dropped as "would block". (EPOLLOUT
// cannot be used: an unconnected datagram socket is always writable, whatever the state
// of the peer's queue, so waiting for it would spin.)
#pragma once

#include <chrono>
#include <deque>
#include <string>
#include <vector>

#include <sys/types.h>

#include "common/event_loop.hpp"
#include "common/rate_limited_log.hpp"
#include "common/unique_fd.hpp"
#include "port/link_notifier.hpp"
#include "port/port.hpp"
#include "port/unix_address.hpp"

namespace ornic {

class UnixDgramPort final : public Port {
public:
  static constexpr std::chrono::milliseconds kProbeInterval{100};
  // Bounds the work of one wakeup so a flooding peer cannot starve the vfio-user socket.
  static constexpr int kMaxDatagramsPerWakeup = 64;
  // Frames waiting for room in the peer's queue: a few READ bursts of a busy QP.
  static constexpr size_t kMaxQueuedFrames = 4096;
  static constexpr std::chrono::microseconds kRetryInterval{200};

  // Binds local_path, replacing a stale socket file left by a dead process. Throws
  // std::invalid_argument for an unusable path and std::system_error/std::runtime_error
  // when local_path is in use by a live socket, is not a socket, or bind fails.
  UnixDgramPort(EventLoop& loop, std::string local_path, std::string peer_path);
  ~UnixDgramPort() override;
  UnixDgramPort(const UnixDgramPort&) = delete;
  UnixDgramPort& operator=(const UnixDgramPort&) = delete;

  void send(std::span<const std::byte> frame) override;
  void set_receiver(Receiver rx) override { receiver_ = std::move(rx); }
  bool link_up() const override { return link_up_; }
  PortCounters counters() const override { return counters_; }
  size_t tx_backlog() const override { return tx_queue_.size(); }
  void set_link_listener(LinkListener listener) override {
    link_notifier_.set_listener(std::move(listener));
  }

private:
  enum class SendResult { sent, would_block, dropped };
  SendResult try_send(std::span<const std::byte> frame);
  void flush_queue();
  void on_readable();
  void deliver(size_t datagram_bytes);
  void probe_peer_and_rearm();
  void set_link(bool up, const char* reason);

  EventLoop& loop_;
  const std::string local_path_;
  const std::string peer_path_;
  const UnixAddress peer_address_;
  UniqueFd socket_;
  // Identity of the socket file we bound, so the destructor never unlinks a file that a
  // newer process has bound at the same path in the meantime.
  dev_t bound_device_ = 0;
  ino_t bound_inode_ = 0;
  EventLoop::TimerId probe_timer_ = 0;
  EventLoop::TimerId retry_timer_ = 0;
  std::deque<std::vector<std::byte>> tx_queue_;
  bool link_up_ = false;
  LinkNotifier link_notifier_;
  Receiver receiver_;
  PortCounters counters_;
  std::vector<std::byte> rx_buffer_;
  RateLimitedLog rx_drop_log_;
  RateLimitedLog tx_error_log_;
};

} // namespace ornic
