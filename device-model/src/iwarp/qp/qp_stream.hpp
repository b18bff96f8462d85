// What a QP bound to an iWARP connection knows of its stream (iwarp-cm.rst, "QPs on an iWARP
// port"): the negotiated parameters, the receive side's deframer and MSNs, the FPDUs waiting
// for room in TCP, and where in the byte stream each started WQE ends, so it completes once
// TCP has had all of it acknowledged. The WQEs themselves stay in the QP's RequesterState
// and ReceiveInProgress, where the core's flush finds them.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "iwarp/cm/qp_streams.hpp"
#include "iwarp/fpdu_deframer.hpp"
#include "iwarp/rdmap_message.hpp"

namespace ornic::iwarp::qp {

// One started send WQE, beside its SendOp in RequesterState::ops.
struct OpTrack {
  uint64_t stream_end = 0; // stream offset one past its last byte
  bool read = false;       // an RDMA READ: done when its last Read Response is placed
  bool done = false;
  uint64_t placed = 0; // READ: response bytes placed so far
};

struct QpStream {
  explicit QpStream(const StreamParams& p)
      : params(p), deframer(FpduDeframerConfig{p.crc, kMaxUlpdu}) {}

  StreamParams params;
  size_t max_ulpdu = 0; // the largest ULPDU this side sends
  FpduDeframer deframer;
  // MSNs start at 1 on every queue (RFC 5041).
  uint32_t send_msn = 1;      // queue 0, sent
  uint32_t read_msn = 1;      // queue 1, sent
  uint32_t terminate_msn = 1; // queue 2, sent
  uint32_t expect_send_msn = 1;
  uint32_t expect_read_msn = 1;
  // FPDUs built and not yet taken by TCP, from tx_head on.
  std::vector<uint8_t> tx;
  size_t tx_head = 0;
  uint64_t queued = 0;        // stream bytes built so far
  uint64_t acked = 0;         // of them, acknowledged by the peer
  std::deque<OpTrack> tracks; // one per RequesterState::ops entry, in order
  uint32_t reads_outstanding = 0;
  // Read Requests accepted and not yet answered in full, oldest first (at most the IRD):
  // their responses are built as TCP takes them, each segment's source checked again.
  struct OwedRead {
    ReadRequest request;
    uint64_t sent = 0;
  };
  std::deque<OwedRead> reads_owed;

  size_t tx_pending() const { return tx.size() - tx_head; }
};

} // namespace ornic::iwarp::qp
