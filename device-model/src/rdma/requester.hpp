// The requester (roce.rst "Reliability", wqe.rst): starts SQ WQEs in order, segments them
// into packets of the path MTU and (re)transmits within the send window, and retires the
// WQEs the completer has seen answered. Its per-QP state is RequesterState (qp_transport.hpp),
// which it shares with the completer: the completer moves una_psn, the requester next_psn.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/nic_core.hpp"
#include "core/qp_transport.hpp"
#include "core/transport_timer.hpp"
#include "rdma/memory_access.hpp"

namespace ornic {

class Port;
class TransportEngine;

class Requester {
public:
  Requester(TransportEngine& engine, NicCore& core, Port* port, TransportTimer& timer)
      : engine_(engine), core_(core), port_(port), timer_(timer) {}
  Requester(const Requester&) = delete;
  Requester& operator=(const Requester&) = delete;

  // Sends what the QP's window and `budget` allow; true when it has more to send.
  bool requester_work(uint32_t qpn, QueuePair& qp, unsigned& budget);
  // Completes the WQEs at the head of the SQ that are done, in order.
  void retire(uint32_t qpn, QueuePair& qp);
  // `op` is no longer in the ops list: it completes with `status`, the QP goes to (S)ERR.
  void fail_send(uint32_t qpn, QueuePair& qp, const SendOp& op, uint8_t status, uint8_t vendor_err);
  // `op` is still in the ops list: those before it are flushed, it fails.
  void fail_started(uint32_t qpn, QueuePair& qp, const SendOp& op, uint8_t status,
                    uint8_t vendor_err);
  void maybe_report_drained(uint32_t qpn, QueuePair& qp);
  // A local ODP page is missing: report it and stall the send queue until ODP_RESUME.
  void requester_fault(uint32_t qpn, QueuePair& qp, const OdpFault& fault);

private:
  // An RTS QP with a WQE not yet started and room in its send window.
  bool may_start(const QueuePair& qp) const;
  bool start_wqe(uint32_t qpn, QueuePair& qp);
  bool run_local_op(uint32_t qpn, QueuePair& qp, SendOp& op);
  bool uc_may_send(uint32_t qpn, QueuePair& qp);
  void send_rc_packet(uint32_t qpn, QueuePair& qp, SendOp& op, uint32_t psn);
  std::optional<ornic_wqe_av> ud_address(const QueuePair& qp, const SendOp& op) const;
  void send_ud(uint32_t qpn, QueuePair& qp, SendOp& op);
  void complete_send(uint32_t qpn, QueuePair& qp, const SendOp& op, uint8_t status,
                     uint8_t vendor_err);
  static ornic_cqe send_cqe(uint32_t qpn, const SendOp& op, uint8_t status, uint8_t vendor_err);

  TransportEngine& engine_; // scheduling, the wire and the completer
  NicCore& core_;
  Port* port_; // its transmit backlog paces UC
  TransportTimer& timer_;
  std::vector<uint8_t> payload_; // reused for every payload gathered
};

} // namespace ornic
