// Spec "shm:LOCAL_PATH,PEER_PATH": a point-to-point link to another ornic model on the same
// host over shared memory: a sealed memfd holding one frame ring per direction
// (shm_ring.hpp) and one eventfd per side, kicked only when that side is asleep. A busy
// link makes no system call per frame: the producer writes the frame into the ring and
// publishes it with a store; the consumer finds it the next time it looks.
//
// Rendezvous: the two models agree on their roles from the paths alone. The end whose
// LOCAL_PATH sorts before its PEER_PATH dials: every kRetryInterval while it has no peer,
// it connects an AF_UNIX SOCK_SEQPACKET socket to PEER_PATH and sends a hello carrying, by
// SCM_RIGHTS, a fresh memfd and the two eventfds. The other end listens at LOCAL_PATH (a
// stale socket file of a dead process is replaced), checks the hello and the memfd
// (size, seals, header), maps it and answers with an ack; both links are up from there.
// So either model may start first, and a model that restarts starts a new session with new
// memory: the survivor sees the session socket hang up (the kernel closes it when a
// process dies), takes the link down (through the LinkNotifier), drops what it sends
// while down, and the link comes up again when the peer is back. A hello that does not
// arrive, or an ack that does not, within kHandshakeTimeout is given up.
//
// The peer is another process: everything it wrote (the memfd, the ring's indices,
// lengths and flags, its messages) is checked before use. A frame whose length breaks the
// length rule is dropped (rx_dropped_runt/oversize, rate-limited log); an impossible index
// takes the link down (rate-limited log), after which the dialer starts a new session.
//
// Transmit: a frame the ring has no slot for waits in a bounded queue of our own, in
// order; the port then asks the consumer for a kick when it frees a slot. Only beyond
// kMaxQueuedFrames is a frame dropped ("would block"), as in DatagramPort. Receive: at
// most kMaxFramesPerWakeup frames per turn of the event loop, so a flooding peer cannot
// starve the vfio-user socket; a frame is handed to the receiver where it lies in its
// ring slot (the peer may still scribble on it: see shm_ring.hpp) and the slot is freed
// when the receiver returns, so a RoCE payload is copied once, into guest memory.
#pragma once

#include <chrono>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include <sys/types.h>

#include "common/event_loop.hpp"
#include "common/rate_limited_log.hpp"
#include "common/unique_fd.hpp"
#include "port/link_notifier.hpp"
#include "port/port.hpp"
#include "port/shm_ring.hpp"

namespace ornic {

class ShmPort final : public Port {
public:
  static constexpr std::chrono::milliseconds kRetryInterval{100};
  static constexpr std::chrono::milliseconds kHandshakeTimeout{2000};
  static constexpr int kMaxFramesPerWakeup = 64;
  static constexpr size_t kMaxQueuedFrames = 4096;

  // The hello the dialer sends (with three descriptors: memfd, dialer's eventfd,
  // listener's eventfd) and the ack the listener answers with.
  struct Hello {
    uint32_t magic;
    uint32_t version;
    uint32_t slot_count;
    uint32_t slot_bytes;
    uint64_t region_bytes;
  };
  struct Ack {
    uint32_t magic;
    uint32_t version;
  };

  // Throws std::invalid_argument for unusable paths, std::system_error/std::runtime_error
  // when the listening end cannot bind LOCAL_PATH (in use by a live socket, not a socket).
  ShmPort(EventLoop& loop, std::string local_path, std::string peer_path);
  ~ShmPort() override;
  ShmPort(const ShmPort&) = delete;
  ShmPort& operator=(const ShmPort&) = delete;

  void send(std::span<const std::byte> frame) override;
  // The next free ring slot when the link is up, nothing waits in our queue and the ring
  // has room; otherwise the scratch buffer of Port, committed through send().
  std::span<std::byte> reserve_tx(size_t bytes) override;
  void commit_tx(size_t length) override;
  void set_receiver(Receiver rx) override { receiver_ = std::move(rx); }
  bool link_up() const override { return session_ != nullptr; }
  PortCounters counters() const override { return counters_; }
  size_t tx_backlog() const override { return tx_queue_.size(); }
  void set_link_listener(LinkListener listener) override {
    link_notifier_.set_listener(std::move(listener));
  }

  bool dialer() const { return dialer_; }
  // For tests that play a corrupt peer: the shared memory of the current session (empty
  // while the link is down).
  std::span<std::byte> shared_memory_for_test() const;
  // Sessions set up so far (a restart or a corrupt ring makes a new one).
  uint64_t sessions() const { return sessions_; }

private:
  struct Session;
  // A connection that has not finished its handshake.
  struct Pending {
    UniqueFd socket;
    std::chrono::steady_clock::time_point started;
    // Dialer only: what the hello offered, kept until the ack arrives.
    shm::Region region;
    UniqueFd own_kick;
    UniqueFd peer_kick;
  };

  void tick();
  void dial();
  void accept_connection();
  void on_pending_event(uint32_t events);
  void drop_pending(const std::string& why);
  bool receive_hello(Pending& pending, std::string& why);
  bool receive_ack(Pending& pending, std::string& why);
  void establish(UniqueFd socket, shm::Region region, UniqueFd own_kick, UniqueFd peer_kick);
  void teardown(const std::string& why);
  void on_session_event(uint32_t events);
  void on_kick();
  void kick_peer();
  void drain_tx();
  void drain_rx();
  void deliver_in_place(std::span<const std::byte> frame);
  void schedule_rx();
  void enqueue(std::span<const std::byte> frame);
  bool handle_push(shm::RingProducer::Push result, size_t bytes);
  void set_link(bool up, const std::string& why);

  EventLoop& loop_;
  const std::string local_path_;
  const std::string peer_path_;
  const std::string name_;
  const bool dialer_;
  UniqueFd listener_;
  dev_t bound_device_ = 0;
  ino_t bound_inode_ = 0;
  EventLoop::TimerId timer_ = 0;
  std::unique_ptr<Pending> pending_;
  std::unique_ptr<Session> session_;
  uint64_t sessions_ = 0;
  bool rx_scheduled_ = false;
  bool reserved_in_ring_ = false; // the last reserve_tx() gave a ring slot
  // Posted callbacks hold a weak reference: they do nothing once the port is gone.
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);
  std::deque<std::vector<std::byte>> tx_queue_;
  bool delivering_ = false;                  // the receiver holds a frame in the rx ring
  std::unique_ptr<Session> retired_session_; // torn down while delivering_
  Receiver receiver_;
  PortCounters counters_;
  LinkNotifier link_notifier_;
  RateLimitedLog rx_drop_log_;
  RateLimitedLog corrupt_log_;
  RateLimitedLog handshake_log_;
};

} // namespace ornic
