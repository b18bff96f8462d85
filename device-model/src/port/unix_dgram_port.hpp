// Spec "unix:LOCAL_PATH,PEER_PATH": a point-to-point link to a peer over an AF_UNIX
// SOCK_DGRAM socket, one raw Ethernet frame per datagram. This is the framing of QEMU's
// `-netdev dgram,local.type=unix,local.path=PEER_PATH,remote.type=unix,remote.path=LOCAL_PATH`,
// so the peer can be another ornic model or a QEMU NIC.
//
// The socket is bound at LOCAL_PATH and connect()ed to the socket bound at PEER_PATH. A
// connected pair of datagram sockets is not subject to the receiver's 10-datagram queue
// limit (net.unix.max_dgram_qlen): a burst is bounded by the sender's socket buffer, and
// a full buffer reports EAGAIN and later EPOLLOUT, which drains our own queue
// (DatagramPort). Against a peer that does not connect back (QEMU uses plain sendto) the
// queue limit applies, and the kernel still reports EPOLLOUT once the peer's queue has room.
//
// Link rule: the link is up while our socket is connected to a socket bound at PEER_PATH.
// Every kProbeInterval the port connect()s again (this sends nothing), so it follows a peer
// that appears, restarts or goes away even while the NIC is idle; a send that finds the
// peer gone (ECONNREFUSED) takes the link down at once, and a send while disconnected tries
// to connect first. A connected socket only hears its peer: datagrams from any other socket
// are refused by the kernel (EPERM at the sender). While disconnected, anyone may send.
#pragma once

#include <chrono>
#include <string>

#include <sys/types.h>

#include "port/datagram_port.hpp"
#include "port/unix_address.hpp"

namespace ornic {

class UnixDgramPort final : public DatagramPort {
public:
  static constexpr std::chrono::milliseconds kProbeInterval{100};
  // Asked for (the kernel caps it at net.core.wmem_max): with both ends connected, what a
  // burst may put in flight before frames wait in our own queue.
  static constexpr int kSendBufferBytes = 4 << 20;

  // Binds local_path, replacing a stale socket file left by a dead process. Throws
  // std::invalid_argument for an unusable path and std::system_error/std::runtime_error
  // when local_path is in use by a live socket, is not a socket, or bind fails.
  UnixDgramPort(EventLoop& loop, std::string local_path, std::string peer_path,
                int send_buffer_bytes = kSendBufferBytes);
  ~UnixDgramPort() override;

  void send(std::span<const std::byte> frame) override;

private:
  Verdict classify(int error) override;
  void frame_sent() override { set_link(true, "peer reachable"); }
  // Connects to (or re-targets the connection at) whatever is bound at PEER_PATH.
  void connect_peer();
  void disconnect(const char* why);
  void probe_and_rearm();

  const std::string local_path_;
  const std::string peer_path_;
  const UnixAddress peer_address_;
  bool connected_ = false;
  // Identity of the socket file we bound, so the destructor never unlinks a file that a
  // newer process has bound at the same path in the meantime.
  dev_t bound_device_ = 0;
  ino_t bound_inode_ = 0;
  EventLoop::TimerId probe_timer_ = 0;
};

} // namespace ornic
