// The line between an iWARP port's connection manager and its QPs (iwarp-cm.rst, "QPs on an
// iWARP port"): the connection manager runs TCP and the MPA setup, the QP engine owns the
// FPDU stream once a connection is established. Neither includes the other: each sees the
// other through one of these interfaces, so both run alone in tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace ornic::iwarp {

// What the QP engine needs of an established connection.
struct StreamParams {
  uint32_t conn_id = 0;
  uint32_t qpn = 0;
  bool crc = false;
  size_t mss = 0;   // TCP payload bytes per segment
  uint16_t ird = 0; // Read Requests this side answers at once
  uint16_t ord = 0; // Read Requests this side may have outstanding
};

// Why a bound QP's connection ended.
enum class StreamEnd : uint8_t {
  peer_closed,  // FIN
  reset,        // RST
  timed_out,    // TCP gave up retransmitting
  disconnected, // software's IW_DISCONNECT
};

// What the connection manager tells the QPs.
class QpStreams {
public:
  virtual ~QpStreams() = default;
  // Whether IW_CONNECT or IW_ACCEPT may name QP `qpn`: ORNIC_ADMIN_STATUS_SUCCESS, or why
  // not (BAD_HANDLE: no RC QP; BUSY: bound; BAD_STATE: not in INIT).
  virtual uint8_t check_qp(uint32_t qpn) const = 0;
  // The connection is established: the QP is bound to it and goes to RTS.
  virtual void established(const StreamParams& params) = 0;
  // Stream bytes from the peer, in order.
  virtual void received(uint32_t qpn, std::span<const std::byte> bytes) = 0;
  // The peer acknowledged this many more bytes of what the QP sent.
  virtual void acknowledged(uint32_t qpn, size_t bytes) = 0;
  // The connection is gone or going: the QP is unbound and goes to ERR.
  virtual void ended(uint32_t qpn, StreamEnd why) = 0;
};

// What the QPs use of their connection.
class StreamIo {
public:
  virtual ~StreamIo() = default;
  // How many bytes TCP took (what did not fit waits for acknowledged()).
  virtual size_t stream_send(uint32_t conn_id, std::span<const std::byte> bytes) = 0;
  // One FPDU in a TCP segment of its own: all of it (bytes.size()) or nothing (0; try again
  // after acknowledged()).
  virtual size_t stream_send_record(uint32_t conn_id, std::span<const std::byte> bytes) = 0;
  // The QP gave the connection up (a TERMINATE went or came): FIN after what is queued.
  // The QP is already unbound; the connection manager reports IW_CLOSE.
  virtual void stream_close(uint32_t conn_id) = 0;
};

} // namespace ornic::iwarp
