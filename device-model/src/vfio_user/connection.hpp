// One client connection: non-blocking socket I/O on the event loop. Reads bytes and
// SCM_RIGHTS fds, frames them, hands each frame to the Session and queues its reply;
// partial reads and writes are carried over. Never blocks.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "common/event_loop.hpp"
#include "common/unique_fd.hpp"
#include "vfio_user/frame_decoder.hpp"
#include "vfio_user/session.hpp"

namespace ornic::vfio_user {

class Connection {
public:
  using ClosedCallback = std::function<void()>;

  // Takes the connected socket (made non-blocking here). `on_closed` runs (from a
  // posted callback, never inside this object's own handlers) when the peer hangs up
  // or the connection has to be dropped; the owner may destroy the Connection then.
  Connection(EventLoop& loop, UniqueFd socket, Session& session, size_t max_message_size,
             ClosedCallback on_closed);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  bool open() const { return socket_.valid(); }
  // True if the peer has hung up (even if its last bytes are still unread): lets a new
  // client that arrives in the same event batch as the old one's hang-up take over.
  bool peer_gone() const;
  size_t queued_output() const { return out_.size() - out_start_; }

private:
  static constexpr size_t kReadChunk = 64 * 1024;
  static constexpr size_t kMaxFdsPerRead = 32;          // > any max_msg_fds, so excess is visible
  static constexpr size_t kMaxQueuedOutput = 16u << 20; // client stopped reading: drop it

  void on_events(uint32_t events);
  bool read_some(); // false: connection is finished
  void process_frames();
  void queue_reply(const Reply& reply);
  bool flush(); // false: connection is broken
  void update_interest();
  void close(const char* why);

  EventLoop& loop_;
  UniqueFd socket_;
  Session& session_;
  FrameDecoder decoder_;
  ClosedCallback on_closed_;
  std::vector<std::byte> read_buffer_;
  std::vector<std::byte> out_;
  size_t out_start_ = 0;
  bool want_write_ = false;
};

} // namespace ornic::vfio_user
