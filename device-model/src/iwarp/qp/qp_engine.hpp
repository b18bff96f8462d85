// The iWARP QP engine of an iWARP port (iwarp-cm.rst, "QPs on an iWARP port"): the
// TransportHooks the core calls for doorbells and QP state changes, and the QpStreams the
// connection manager calls once a connection is established. It binds the QP named by
// IW_CONNECT or IW_ACCEPT to its connection and takes it to RTS; turns SQ WQEs into RDMAP
// messages cut into DDP segments in FPDUs on the connection's byte stream (qp_sender.cpp);
// places what arrives by DDP's tagged and untagged models (qp_receiver.cpp); and answers
// every bad segment with a TERMINATE before giving the connection up (qp_terminate.cpp).
// Memory is reached through the shared checks of rdma/memory_access.hpp, WQEs through
// rdma/wqe_fetch.hpp, and the local WQEs (REG_MR, LOCAL_INV, BIND_MW) run as on RoCE
// through rdma/fast_reg.hpp.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "common/function_ref.hpp"
#include "core/nic_core.hpp"
#include "core/transport_hooks.hpp"
#include "iwarp/cm/qp_streams.hpp"
#include "iwarp/qp/qp_stream.hpp"
#include "iwarp/segment.hpp"

namespace ornic::iwarp::qp {

struct QpEngineCounters {
  uint64_t terminates_sent = 0;
  uint64_t terminates_received = 0;
  uint64_t bytes_dropped = 0; // for a QP no longer in RTS
};

class QpEngine final : public TransportHooks, public QpStreams {
public:
  // FPDUs one QP builds ahead of what TCP has taken.
  static constexpr size_t kTxHighWater = 64 * 1024;

  explicit QpEngine(NicCore& core) : core_(core) {}
  void set_io(StreamIo* io) { io_ = io; }

  // TransportHooks.
  void sq_doorbell(uint32_t qpn) override;
  void qp_modified(uint32_t qpn, ornic_qp_state from, ornic_qp_state to) override;
  void qp_entering_error(uint32_t qpn) override;
  void qp_destroyed(uint32_t qpn) override;
  void receive(std::span<const std::byte>) override {} // no frames: the CM has the wire
  void odp_resume(uint32_t qpn) override { sq_doorbell(qpn); }
  void reset() override;

  // QpStreams.
  uint8_t check_qp(uint32_t qpn) const override;
  void established(const StreamParams& params) override;
  void received(uint32_t qpn, std::span<const std::byte> bytes) override;
  void acknowledged(uint32_t qpn, size_t bytes) override;
  void ended(uint32_t qpn, StreamEnd why) override;

  const QpEngineCounters& counters() const { return counters_; }
  bool bound(uint32_t qpn) const { return streams_.contains(qpn); }
  // The connection id QP `qpn` is bound to; 0 when unbound.
  uint32_t connection_of(uint32_t qpn) const;

private:
  QpStream* stream(uint32_t qpn);

  // qp_sender.cpp: starts WQEs while there is room, hands FPDUs to TCP, retires WQEs.
  void pump(uint32_t qpn);
  void start_wqes(uint32_t qpn, QueuePair& qp, QpStream& s);
  bool start_wqe(uint32_t qpn, QueuePair& qp, QpStream& s);
  void push_tx(QpStream& s);
  void retire(uint32_t qpn, QueuePair& qp, QpStream& s);
  void complete_send(uint32_t qpn, QueuePair& qp, const SendOp& op, uint8_t status,
                     uint8_t vendor_err);
  // Appends the FPDUs of one message: `header` for every segment (MO, TO, L set here),
  // payload from `data(offset, out)`; false when data() failed.
  using PayloadSource = FunctionRef<bool(uint64_t offset, std::span<uint8_t> out)>;
  bool append_message(QpStream& s, Segment header, uint64_t length, PayloadSource data);
  void append_segment(QpStream& s, const Segment& segment);

  // qp_receiver.cpp: one ULPDU from the deframer; false once the QP gave the stream up.
  bool on_ulpdu(uint32_t qpn, std::span<const uint8_t> ulpdu);
  bool on_send(uint32_t qpn, QueuePair& qp, QpStream& s, const Segment& seg,
               std::span<const uint8_t> ulpdu);
  bool on_write(uint32_t qpn, QueuePair& qp, QpStream& s, const Segment& seg,
                std::span<const uint8_t> ulpdu);
  bool on_read_request(uint32_t qpn, QueuePair& qp, QpStream& s, const Segment& seg,
                       std::span<const uint8_t> ulpdu);
  // Read Response segments for what is owed, while TCP has room; false once given up.
  bool send_read_responses(uint32_t qpn, QueuePair& qp, QpStream& s);
  bool on_read_response(uint32_t qpn, QueuePair& qp, QpStream& s, const Segment& seg,
                        std::span<const uint8_t> ulpdu);
  enum class Take : uint8_t { ok, none, failed };
  Take take_receive(uint32_t qpn, QueuePair& qp);
  // The receive WQE in progress completes with what it holds (`invalidated`: the STag a
  // Send with Invalidate named).
  void complete_recv(uint32_t qpn, QueuePair& qp, uint8_t status, uint8_t vendor_err,
                     std::optional<uint32_t> invalidated, bool solicited);

  // qp_terminate.cpp: a TERMINATE for the segment `ulpdu` (empty: a framing error), the
  // stream given up, the QP to ERR with async event `event`. Returns false for callers.
  bool terminate(uint32_t qpn, QpStream& s, TerminateCause cause, std::span<const uint8_t> ulpdu,
                 uint32_t event);
  // The QP lets its connection go: unbound, QP to ERR (with `event` unless 0).
  void give_up(uint32_t qpn, bool close, uint32_t event);

  NicCore& core_;
  StreamIo* io_ = nullptr;
  std::map<uint32_t, std::unique_ptr<QpStream>> streams_;
  // Streams given up while a caller may still hold them (the deframer that is feeding):
  // freed when the next call from outside begins.
  std::vector<std::unique_ptr<QpStream>> retired_;
  QpEngineCounters counters_;
};

} // namespace ornic::iwarp::qp
